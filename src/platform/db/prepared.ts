import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from './knex';

/**
 * A hot read as a named prepared statement on one of the knex pool's connections: Postgres parses and plans `text`
 * once per connection (pg keeps the names it has prepared per client), and knex's query building is skipped. Only for
 * fixed statements on the request path; `name` must be unique per `text`. Rows come back parsed as knex returns them.
 */
export async function queryPrepared<Row>(db: Db, name: string, text: string, values: readonly unknown[]): Promise<Row[]> {
  const connection = (await db.client.acquireConnection()) as {
    query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: Row[] }>;
  };
  try {
    return (await connection.query({ name, text, values })).rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/**
 * A knex raw statement (`?` bindings) run as a named prepared statement: knex turns it into Postgres' native `$n` form,
 * and the name is `prefix` plus a digest of that text, so a statement built in a few shapes gets one name per shape.
 * Never inside a transaction: it runs on a connection of its own from the pool.
 */
export async function queryPreparedRaw<Row>(db: Db, prefix: string, sql: string, bindings: readonly Knex.RawBinding[]): Promise<Row[]> {
  const native = db
    .raw(sql, bindings as Knex.RawBinding[])
    .toSQL()
    .toNative();
  const name = `${prefix}_${crypto.createHash('sha1').update(native.sql).digest('hex').slice(0, 12)}`;
  return queryPrepared<Row>(db, name, native.sql, native.bindings);
}

/** A statement (`?` bindings) one area hands to a statement of another, which runs it inside its own. */
export interface SqlStatement {
  sql: string;
  bindings: readonly Knex.RawBinding[];
}
