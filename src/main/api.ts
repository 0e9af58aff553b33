import type http from 'node:http';
import { createApp } from '../../api/app';
import { cardVaultsFor } from './payments';
import { mailerFor } from '../adapters/email/smtp';
import { telnyxInboxPorts } from './telnyxInbox';
import { recordingOpener } from './carrierRecordings';
import { recordingStoreFromConfig } from './recordingStore';
import { createApiServer } from '../../api/server';
import { loadConfig, requireSetting, type Config } from '../platform/config';
import { API_DB_POOLS, createDb } from '../platform/db/knex';
import { CLOSE_MARGIN_MS, drainHttpServer, drainOnSignal } from '../platform/lifecycle/drain';
import { createLogger } from '../platform/logger';
import { PROVIDER_SETTINGS } from '../adapters/settings';
import { assertStartupConfiguration, deprecatedSettings, exitOnStartupFailure } from '../platform/startupCheck';
import { connectDeploymentTemporal } from '../platform/temporal/client';
import { startTracing } from '../platform/tracing/setup';

/**
 * Runs the HTTP API until SIGINT/SIGTERM, then drains: /readyz answers 503, no new connections,
 * in-flight requests finish (up to API_DRAIN_SECONDS), then the pools close and the process exits 0.
 * Refuses to start on a weak configuration.
 */
export async function runApi(config: Config = loadConfig()): Promise<http.Server> {
  const warnings = assertStartupConfiguration('api', config, PROVIDER_SETTINGS);
  const tracing = startTracing('api');
  const logger = createLogger('api', config.logLevel);
  for (const warning of warnings) logger.warn({ setting: warning.setting }, `dev profile: ${warning.setting} ${warning.message}`);
  for (const old of deprecatedSettings(config)) logger.warn({ setting: old.setting }, `deprecated setting: ${old.setting} ${old.message}`);
  const databaseUrl = requireSetting(config.databaseUrl, 'DATABASE_URL');
  const db = createDb(databaseUrl, API_DB_POOLS);
  const temporal = await connectDeploymentTemporal(config);
  let draining = false;
  const app = createApp({
    config,
    db,
    temporal,
    logger,
    now: () => new Date(),
    draining: () => draining,
    telnyxInbox: telnyxInboxPorts(config, db),
    openRecording: recordingOpener(config),
    recordingStore: recordingStoreFromConfig(config),
    cardVaults: cardVaultsFor(config),
    mailer: mailerFor(config, logger),
  });
  // Revocations reach this process's key cache within moments of their commit, not after its TTL.
  await app.listenForKeyChanges(databaseUrl);
  const server = createApiServer(app, { requestTimeoutMs: config.httpRequestTimeoutMs, headersTimeoutMs: config.httpHeadersTimeoutMs });
  app.acceptWebSockets(server);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  logger.info({ url: `http://${config.host}:${config.port}` }, 'api listening');

  drainOnSignal({
    log: logger,
    forceExitAfterMs: config.apiDrainSeconds * 1000 + CLOSE_MARGIN_MS,
    drain: async () => {
      draining = true;
      const inTime = await drainHttpServer(server, config.apiDrainSeconds * 1000);
      if (!inTime) logger.warn({ deadline_s: config.apiDrainSeconds }, 'drain deadline passed: requests still in flight were cut');
      await app.close();
      await temporal.connection.close();
      await db.destroy();
      await tracing.shutdown();
      logger.info('api stopped');
      process.exit(0);
    },
  });
  return server;
}

if (require.main === module) {
  runApi().catch(exitOnStartupFailure);
}
