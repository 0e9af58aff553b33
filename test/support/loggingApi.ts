import http from 'node:http';
import { Writable } from 'node:stream';
import { createApp } from '../../api/app';
import { telnyxInboxPorts } from '../../src/main/telnyxInbox';
import type { Config } from '../../src/platform/config';
import { createLogger } from '../../src/platform/logger';
import { freePort } from '../../src/platform/net/freePort';
import { SUITE_CALLING_HOURS_AT, type Harness } from './harness';

/** A second API whose log lines are kept, for tests of what an operator reads in the log. */
export interface LoggingApi {
  /** Where it listens (also its PUBLIC_BASE_URL with `ownPublicUrl`). */
  url: string;
  /** Every line it logged at `warn` or above, parsed. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Starts a second API on `h`'s configuration, database and Temporal (its Telnyx inbox too, where Telnyx is
 * configured), taking WebSocket upgrades (ConversationRelay). `ownPublicUrl`: its own address is its
 * PUBLIC_BASE_URL, so what Twilio signs over the URL it calls (callbacks, relay sockets) is signed over it.
 * `config`: more of its configuration than `h`'s (another deployment over the same database).
 */
export async function startLoggingApi(h: Harness, options: { ownPublicUrl?: boolean; config?: Partial<Config> } = {}): Promise<LoggingApi> {
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = { ...h.config, ...options.config, ...(options.ownPublicUrl ? { publicBaseUrl: url } : {}) };
  const app = createApp({
    config,
    db: h.db,
    temporal: h.temporal,
    logger: createLogger('api-test', 'warn', sink),
    now: () => new Date(),
    callingHoursNow: () => SUITE_CALLING_HOURS_AT,
    telnyxInbox: telnyxInboxPorts(config, h.db),
  });
  const server = http.createServer(app.koa.callback());
  app.acceptWebSockets(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url,
    logs,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

/** The log lines of callbacks refused for acting outside their carrier's environments (src/domain/carriers/reach.ts), matching `about`. */
export function reachRefusals(api: LoggingApi, about: Record<string, unknown>): Array<Record<string, unknown>> {
  return api.logs.filter(
    (l) =>
      l.msg === 'carrier callback refused: it is about an environment its carrier does not serve' &&
      Object.entries(about).every(([k, v]) => l[k] === v),
  );
}
