import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/platform/config';
import { createDb, migrateLatest } from '../../src/platform/db/knex';
import { cloneDatabase, createDatabaseIfMissing, dropDatabase, ensurePostgres } from './postgres';
import { freePortBlock } from './proc';
import { freePort } from '../../src/platform/net/freePort';
import { ensureTemporalCli, ensureTemporalTestServer, startDevServer } from './temporal';
import { ensureNamespace, prepareTemporalServer, startTemporalServer, TEMPORAL_SERVER_PORT_COUNT } from './temporalServer';

/**
 * A throwaway stack for tests and benchmarks: a fresh database (on the project's cached
 * test cluster, or on DATABASE_URL's server) and a headless Temporal dev server
 * (or TEMPORAL_ADDRESS; or, with `temporalServer`, the official server of the cluster profile on
 * the same Postgres, in databases of its own). `stop()` removes what it created.
 */
export interface EphemeralStack {
  databaseUrl: string;
  temporalAddress: string;
  temporalTestServerPath: string | undefined;
  temporalDevServerPid: number | undefined;
  /** The Temporal server this stack started, dev or official (undefined with TEMPORAL_ADDRESS). */
  temporalServerPid: number | undefined;
  /** Where the dev server keeps its data; a restart with the same file keeps every workflow. */
  temporalDbFile: string | undefined;
  temporalCliPath: string | undefined;
  /** For each name of `copies`: its database (a copy of the migrated one) and its Temporal namespace. */
  copies: Record<string, { databaseUrl: string; temporalNamespace: string }>;
  stop(): Promise<void>;
}

export async function startEphemeralStack(opts: {
  name: string;
  withTestServer?: boolean;
  log?: (line: string) => void;
  /** Settings for the Temporal dev server it starts (see `startDevServer`). */
  temporalDynamicConfig?: Record<string, string | number | boolean>;
  /** The official Temporal server on Postgres (`npm run up -- --cluster`'s) instead of the dev server. */
  temporalServer?: boolean;
  /**
   * Copies of the migrated database and Temporal namespaces, one set per name: parallel test workers each get their
   * own, so no worker sees another's rows, schedules or task queues (`copies` in the result).
   */
  copies?: readonly string[];
}): Promise<EphemeralStack> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`[stack] ${line}\n`));
  const config = loadConfig();
  const stops: Array<() => Promise<void> | void> = [];
  const database = `${opts.name}_${crypto.randomBytes(4).toString('hex')}`;

  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
  } else {
    const pg = await ensurePostgres({
      dataDir: path.join(config.toolCacheDir, 'pg-test'),
      port: Number(process.env.TEST_PG_PORT ?? 54330),
      log,
    });
    adminUrl = pg.adminUrl;
    if (pg.startedHere) stops.push(() => pg.stopUnlessShared());
  }
  await createDatabaseIfMissing(adminUrl, database);
  stops.push(() => dropDatabase(adminUrl, database));
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  const db = createDb(databaseUrl, { max: 1 });
  await migrateLatest(db);
  await db.destroy();
  const copies: EphemeralStack['copies'] = {};
  for (const name of opts.copies ?? []) {
    const copy = `${database}_${name}`;
    await cloneDatabase(adminUrl, database, copy);
    stops.push(() => dropDatabase(adminUrl, copy));
    const copyUrl = new URL(adminUrl);
    copyUrl.pathname = `/${copy}`;
    copies[name] = { databaseUrl: copyUrl.toString(), temporalNamespace: `${config.temporalNamespace}-${name}` };
  }
  const namespaces = Object.values(copies).map((copy) => copy.temporalNamespace);

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  let temporalDevServerPid: number | undefined;
  let temporalDbFile: string | undefined;
  let temporalCliPath: string | undefined;
  let temporalServerPid: number | undefined;
  if (!temporalAddress && opts.temporalServer) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${opts.name}-temporal-server-`));
    const databases = { temporal: `${database}_temporal`, visibility: `${database}_temporal_visibility` };
    stops.push(async () => {
      await dropDatabase(adminUrl, databases.visibility);
      await dropDatabase(adminUrl, databases.temporal);
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const frontendPort = await freePortBlock(TEMPORAL_SERVER_PORT_COUNT);
    const server = await startTemporalServer(
      await prepareTemporalServer({
        toolCacheDir: config.toolCacheDir,
        adminUrl,
        databases,
        frontendPort,
        configDir: dir,
        logFile: path.join(dir, 'temporal.log'),
        namespace: config.temporalNamespace,
        log,
      }),
    );
    temporalAddress = server.address;
    temporalServerPid = server.process.pid;
    stops.push(() => server.stop());
  }
  if (!temporalAddress) {
    temporalCliPath = ensureTemporalCli(config.toolCacheDir, log);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${opts.name}-temporal-`));
    temporalDbFile = path.join(dir, 'temporal.db');
    const server = await startDevServer({
      cli: temporalCliPath,
      port: await freePort(),
      dbFile: temporalDbFile,
      logFile: path.join(dir, 'temporal.log'),
      dynamicConfig: opts.temporalDynamicConfig,
      namespaces,
    });
    temporalAddress = server.address;
    temporalDevServerPid = server.process.pid;
    temporalServerPid = temporalDevServerPid;
    stops.push(async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
  }
  // The dev server registers them at start (`--namespace`); another server learns them here.
  if (!temporalDevServerPid) for (const namespace of namespaces) await ensureNamespace(temporalAddress, namespace);
  const temporalTestServerPath = opts.withTestServer ? ensureTemporalTestServer(config.toolCacheDir, log) : undefined;

  return {
    databaseUrl,
    temporalAddress,
    temporalTestServerPath,
    temporalDevServerPid,
    temporalServerPid,
    temporalDbFile,
    temporalCliPath,
    copies,
    async stop() {
      for (const stop of stops.reverse()) {
        try {
          await stop();
        } catch (err) {
          log(`cleanup failed: ${(err as Error).message}`);
        }
      }
    },
  };
}
