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
