import knexFactory, { type Knex } from 'knex';
import { migrationSource } from './migrations';

export type Db = Knex;

export function createDb(databaseUrl: string, pool: { min?: number; max?: number } = {}): Db {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: databaseUrl },
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
  });
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
