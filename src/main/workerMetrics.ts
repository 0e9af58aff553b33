import client from 'prom-client';
import { observeActiveCalls, workerRegistry } from '../../activities/metrics';
import type { Config } from '../platform/config';
import type { Db } from '../platform/db/knex';
import type { Logger } from '../platform/logger';
import { installSdkMetricsRuntime } from '../platform/metrics/sdkRuntime';
import { scrapeText, serveMetrics, type MetricsServer } from '../platform/metrics/server';

export interface WorkerMetrics {
  /**
   * Starts serving /metrics, and the probes /healthz and /readyz (200 while `ready()`): call once the worker is ready,
   * so that a scrape or a probe that answers means it is.
   */
  serve(ready: () => boolean): Promise<void>;
  /** Stops serving: first on the way out, so no scrape meets a half-closed worker. */
  close(): Promise<void>;
}

/**
 * The worker's `GET /metrics` on `HOST:WORKER_METRICS_PORT` (nothing when the port is unset), with the probes
 * `GET /healthz` and `GET /readyz` (no bearer; 503 once the worker drains):
 * the Temporal SDK's runtime metrics (its exporter on a loopback port, merged in at each
 * scrape), the process's and the business metrics of activities/metrics.ts, under the same
 * access rule as the API's. Call before the worker's first Temporal connection: it installs the
 * SDK runtime.
 */
export async function prepareWorkerMetrics(config: Config, db: Db, log: Logger): Promise<WorkerMetrics> {
  const port = config.workerMetricsPort;
  if (port === undefined) return { serve: async () => {}, close: async () => {} };
  if (!config.metricsToken && config.profile !== 'dev')
    log.warn('WORKER_METRICS_PORT is set without METRICS_TOKEN: /metrics answers 404 outside the dev profile');
  const sdkMetricsUrl = await installSdkMetricsRuntime();
  client.collectDefaultMetrics({ register: workerRegistry });
  observeActiveCalls(db, (err) => log.warn({ err }, 'metrics: active calls could not be counted'));
  let server: MetricsServer | undefined;
  return {
    async serve(ready) {
      server = await serveMetrics({
        ready,
        host: config.host,
        port,
        access: config,
        sources: [() => workerRegistry.metrics(), () => scrapeText(sdkMetricsUrl)],
        onSourceError: (err) => log.warn({ err }, 'metrics: a source could not be read'),
      });
      log.info({ url: server.url }, 'worker metrics served');
    },
    async close() {
      await server?.close();
      server = undefined;
    },
  };
}
