import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import type { Config } from '../../src/platform/config';
import type { Db } from '../../src/platform/db/knex';
import { createLogger } from '../../src/platform/logger';
import type { Harness } from './harness';

/** Serves a fresh app with the harness's `config` and `overrides` (and optionally another database) for one GET. */
export async function getFromFreshApp(
  h: Harness,
  path: string,
  overrides: Partial<Config> = {},
  options: { db?: Db; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string }> {
  const { koa } = createApp({
    config: { ...h.config, ...overrides },
    db: options.db ?? h.db,
    temporal: h.temporal,
    logger: createLogger('api-test', 'silent'),
    now: () => new Date(),
  });
  const server = http.createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { headers: options.headers });
    return { status: res.status, text: await res.text() };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
