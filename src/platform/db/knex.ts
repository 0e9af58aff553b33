import knexFactory, { type Knex } from 'knex';
import { createLogger } from '../logger';
import { migrationSource } from './migrations';

const dbLog = createLogger('db');

export type Db = Knex;

export function createDb(databaseUrl: string, pool: { min?: number; max?: number } = {}): Db {
  return knexFactory({
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
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
