/**
 * bench:api's floors, in a process of their own (issue 33): bare Koa, bare Koa with one SELECT (knex), with one
 * prepared SELECT (raw pg), with a key, a scoped prepared SELECT and the wire record, and with a write route's JSON
 * body and INSERTs. Why not in the API's process: Koa's own code (context, request and response getters and setters)
 * then saw the objects of five or six apps, and its inline caches went megamorphic, a cost the API never pays in
 * production, where it is the process's one app. Each process now runs one kind of server, as deployed.
 */
import http from 'node:http';
import Koa from 'koa';
import pg from 'pg';
import { fork } from 'node:child_process';
import { API_DB_POOLS, createDb } from '../../src/platform/db/knex';
import { toLineRecord, type LineRow } from '../../src/domain/lines/store';
import { hashKey } from '../../src/domain/keys/format';
import { koaWithInserts } from './apiWrites';
import { closeServer, listen } from './http';

/** What the floors are built from: the bench's database, its line and the key of its tenant. */
export interface FloorsSpec {
  databaseUrl: string;
  lineId: string;
  key: { plaintext: string; workspaceId: string };
  /** The INSERT counts of the write rows to run (one floor server each). */
  inserts: number[];
}

export interface FloorUrls {
  baseline: string;
  select: string;
  prepared: string;
  keyed: string;
  inserts: Record<number, string>;
}

export interface FloorsProcess {
  pid: number;
  urls: FloorUrls;
  stop(): Promise<void>;
}

function bareKoa(): Koa {
  const koa = new Koa();
  koa.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  return koa;
}

/**
 * Bare Koa answering with one row read by primary key through the same kind of knex pool: the least any
 * "read a row over HTTP" can cost on this machine, where Postgres shares the cores with the server and the load.
 */
function koaWithOneSelect(db: ReturnType<typeof createDb>, lineId: string): Koa {
  const koa = new Koa();
  koa.use(async (ctx) => {
    ctx.body = { line: await db('lines').where({ id: lineId }).first() };
  });
  return koa;
}

/**
 * The same one-row read as a named prepared statement on a raw pg pool (no knex): Postgres parses and plans it
 * once per connection, so this is the ceiling of "one Postgres round trip per request" on this machine.
 */
function koaWithOnePreparedSelect(pool: pg.Pool, lineId: string): Koa {
  const koa = new Koa();
  koa.use(async (ctx) => {
    const result = await pool.query({ name: 'bench_line_by_id', text: 'select * from lines where id = $1', values: [lineId] });
    ctx.body = { line: result.rows[0] };
  });
  return koa;
}

/**
 * The least any conforming `GET /lines/{id}` does, on the same raw pg pool: the bearer key hashed (`hashKey`) and found in an
 * in-memory map (as Switchboard's key cache does), the line read by a prepared SELECT scoped by id, workspace and
 * environment, and the row mapped to its wire record. No request id, CORS, metrics, routing table or validation: what
 * the authenticated GET costs beyond this is Switchboard's own, and how far this row sits below the prepared floor is
 * what authentication and the wire shape cost on this machine (issue 33: how close the 0.85x target can come).
 */
function koaWithKeyAndScopedSelect(pool: pg.Pool, lineId: string, key: { plaintext: string; workspaceId: string }): Koa {
  const keys = new Map([[hashKey(key.plaintext), { workspaceId: key.workspaceId, environment: 'test' }]]);
  const koa = new Koa();
  koa.use(async (ctx) => {
    const token = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
    const tenant = token === undefined ? undefined : keys.get(hashKey(token));
    if (!tenant) {
      ctx.status = 401;
      return;
    }
    const result = await pool.query({
      name: 'bench_line_by_scope',
      text: 'select * from lines where id = $1 and workspace_id = $2 and environment = $3',
      values: [lineId, tenant.workspaceId, tenant.environment],
    });
    ctx.body = { line: toLineRecord(result.rows[0] as LineRow) };
  });
  return koa;
}

/** The floors' process: builds the servers, answers their URLs, and closes them when the parent disconnects. */
async function floorsMain(): Promise<void> {
  const spec = await new Promise<FloorsSpec>((resolve) => process.once('message', (message) => resolve(message as FloorsSpec)));
  // The knex pool of the API process's size (its statement pool is the API's own), and the raw pool of 20.
  const db = createDb(spec.databaseUrl, { max: API_DB_POOLS.max });
  const pool = new pg.Pool({ connectionString: spec.databaseUrl, max: 20 });
  const servers: http.Server[] = [];
  const serve = async (koa: Koa): Promise<string> => {
    const server = http.createServer(koa.callback());
    servers.push(server);
    return listen(server);
  };
  const urls: FloorUrls = {
    baseline: await serve(bareKoa()),
    select: await serve(koaWithOneSelect(db, spec.lineId)),
    prepared: await serve(koaWithOnePreparedSelect(pool, spec.lineId)),
    keyed: await serve(koaWithKeyAndScopedSelect(pool, spec.lineId, spec.key)),
    inserts: {},
  };
  for (const count of spec.inserts) urls.inserts[count] = await serve(koaWithInserts(db, count));
  process.once('disconnect', () => {
    void (async () => {
      for (const server of servers) await closeServer(server);
      await pool.end();
      await db.destroy();
      process.exit(0);
    })();
  });
  process.send!(urls);
}

/** Starts the floors in a child process (execArgv is inherited: it runs under `--import tsx` too). */
export function startFloors(spec: FloorsSpec): Promise<FloorsProcess> {
  const child = fork(__filename, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`the floors' process exited (code ${code}, signal ${signal})`)));
    child.once('message', (urls) =>
      resolve({
        pid: child.pid!,
        urls: urls as FloorUrls,
        stop: async () => {
          if (child.connected) child.disconnect();
          await exited;
        },
      }),
    );
    child.send(spec);
  });
}

// Forked by startFloors: this file is the child's entry point.
if (require.main === module) void floorsMain();
