import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { createLogger } from '../logger';
import { migrationSource } from './migrations';
import { attachStatementPool } from './prepared';
import { installRowBuilders } from './rowBuilders';

const dbLog = createLogger('db');

// Every process that opens the database reads rows through pg's Result; see rowBuilders.ts.
installRowBuilders();

export type Db = Knex;

/** The `application_name` of the statement pool's connections. */
export const STATEMENT_POOL_NAME = 'switchboard-statements';

/**
 * The connections of a process that serves API requests: 20 in all, 8 of them for the request path's prepared
 * statements (the key, the rate limit, idempotency, the hot reads and writes) and 12 for everything else.
 */
export const API_DB_POOLS = { max: 12, statements: 8 } as const;

/**
 * The process's database handle: a knex pool of `max` connections and, when `statements` is given, a second pool of
 * that many connections on which the hot prepared statements run (prepared.ts), skipping knex's pool on the request
 * path. The process may hold `max + statements` connections in all; both pools open them lazily and close idle ones.
 * `destroy()` closes both.
 */
export function createDb(databaseUrl: string, pool: { min?: number; max?: number; statements?: number } = {}): Db {
  const db = knexFactory({
    client: 'pg',
    connection: { connectionString: databaseUrl },
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    // knex prints to the console by default; route it through the structured logger.
    log: {
      warn: (message: unknown) => dbLog.warn({ knex: String(message) }, 'knex warning'),
      error: (message: unknown) => dbLog.error({ knex: String(message) }, 'knex error'),
      deprecate: (method: string, alternative: string) => dbLog.warn({ method, alternative }, 'knex deprecation'),
      debug: (message: unknown) => dbLog.debug({ knex: String(message) }, 'knex debug'),
    },
  });
  if (pool.statements && pool.statements > 0) {
    // Named, so `pg_stat_activity` tells the two pools apart (an application_name in DATABASE_URL wins).
    const statements = new pg.Pool({ connectionString: databaseUrl, max: pool.statements, application_name: STATEMENT_POOL_NAME });
    // An idle connection that fails (Postgres restarted, the connection killed) is dropped by the pool; without a
    // listener the error would end the process. Queries on a failed connection fail on their own.
    statements.on('error', (err) => dbLog.warn({ err: err.message }, 'an idle connection of the statement pool failed'));
    attachStatementPool(db, statements);
  }
  return db;
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
