import http from 'node:http';
import { Writable } from 'node:stream';
import { createApp } from '../../api/app';
import { telnyxInboxPorts } from '../../src/main/telnyxInbox';
import { createLogger } from '../../src/platform/logger';
import { freePort } from './freePort';
import type { Harness } from './harness';

/** A second API on the harness's database and Temporal whose log lines are kept (refusals are logged). */
export interface LoggedApi {
  /** Where it listens; also its PUBLIC_BASE_URL, so Twilio signatures are computed over it. */
  url: string;
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startLoggedApi(h: Harness): Promise<LoggedApi> {
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = { ...h.config, publicBaseUrl: url };
  const app = createApp({
    config,
    db: h.db,
    temporal: h.temporal,
    logger: createLogger('api-test', 'info', sink),
    now: () => new Date(),
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
export function reachRefusals(api: LoggedApi, about: Record<string, unknown>): Array<Record<string, unknown>> {
  return api.logs.filter(
    (l) =>
      l.msg === 'carrier callback refused: it is about an environment its carrier does not serve' &&
      Object.entries(about).every(([k, v]) => l[k] === v),
  );
}
