import { Runtime } from '@temporalio/worker';
import { freePort } from '../net/freePort';

/**
 * Installs the Temporal runtime with its Prometheus exporter on a free loopback port, and returns
 * the exporter's URL (the worker's own /metrics reads and merges it; nothing else should reach
 * it). The runtime can be installed once per process, before its first connection.
 * Durations in seconds, as Prometheus conventions (and docs/operations.md) have them.
 */
export async function installSdkMetricsRuntime(): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      Runtime.install({
        telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, useSecondsForDurations: true } } },
      });
      return `http://127.0.0.1:${port}/metrics`;
    } catch (err) {
      // Another process took the port since it was found free; a failed install can be tried again.
      if (attempt >= 3 || !/address already in use/i.test((err as Error).message)) throw err;
    }
  }
}
