import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createApp } from '../../api/app';
import { telnyxInboxPorts } from '../../src/main/telnyxInbox';
import { createLogger } from '../../src/platform/logger';
import type { Harness } from './harness';

/** A second API whose log lines are kept, for tests of what an operator reads in the log. */
export interface LoggingApi {
  url: string;
  /** Every line it logged at `warn` or above, parsed. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Starts a second API on `h`'s configuration, database and Temporal (its Telnyx inbox too, where Telnyx is configured). */
export async function startLoggingApi(h: Harness): Promise<LoggingApi> {
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = createApp({
    config: h.config,
    db: h.db,
    temporal: h.temporal,
    logger: createLogger('api-test', 'warn', sink),
    now: () => new Date(),
    telnyxInbox: telnyxInboxPorts(h.config, h.db),
  });
  const server = http.createServer(app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logs,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}
