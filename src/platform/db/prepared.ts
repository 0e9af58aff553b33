import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';
import { queryDescribedOnce } from './describedOnce';

/** The statement pool of each database handle that has one (createDb's `statements`). */
const statementPools = new WeakMap<Knex, pg.Pool>();

/**
 * Gives `db` a pool of raw pg connections for its prepared statements, closed by `db.destroy()` before knex's own.
 * Why a pool of its own: acquiring a connection through knex (tarn, with a timer per acquire) cost 15–35 µs of the
 * API's CPU per statement, about a tenth of a cached GET (docs/performance.md, issue 33).
 */
export function attachStatementPool(db: Knex, pool: pg.Pool): void {
  statementPools.set(db, pool);
  const destroyKnex = db.destroy.bind(db) as () => Promise<void>;
  let ended: Promise<void> | undefined;
  const destroy = async (callback?: (err?: unknown) => void): Promise<void> => {
    try {
      ended ??= pool.end();
      await ended;
      await destroyKnex();
      callback?.();
    } catch (err) {
      if (!callback) throw err;
      callback(err);
    }
  };
  // knex defines `destroy` as a read-only (configurable) property of the instance.
  Object.defineProperty(db, 'destroy', { value: destroy, configurable: true });
}

/**
 * A hot statement as a named prepared statement: Postgres parses and plans `text` once per connection (pg keeps the
 * names it has prepared per client) and describes its rows once per connection (describedOnce.ts), and knex's query
 * building is skipped. It runs on the handle's statement pool when it has one, else on one of the knex pool's
 * connections. Only for fixed statements on the request path; `name`
 * must be unique per `text`. Rows come back parsed as knex returns them.
 */
export function queryPrepared<Row>(db: Knex, name: string, text: string, values: readonly unknown[]): Promise<Row[]> {
  const pool = statementPools.get(db);
  // The hot path without an async layer of its own (issue 33).
  if (pool) return queryDescribedOnce<Row>(pool, name, text, values);
  return onKnexConnection<Row>(db, name, text, values);
}

/** `queryPrepared` on a connection of knex's pool: a handle without a statement pool (the worker, the CLI, `up`). */
async function onKnexConnection<Row>(db: Knex, name: string, text: string, values: readonly unknown[]): Promise<Row[]> {
  const connection = (await db.client.acquireConnection()) as pg.ClientBase;
  try {
    return await queryDescribedOnce<Row>(connection, name, text, values);
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/**
 * A knex raw statement (`?` bindings) run as a named prepared statement: knex turns it into Postgres' native `$n` form,
 * and the name is `prefix` plus a digest of that text, so a statement built in a few shapes gets one name per shape.
 * Never inside a transaction: it runs on a connection of its own from the pool.
 */
export async function queryPreparedRaw<Row>(db: Knex, prefix: string, sql: string, bindings: readonly Knex.RawBinding[]): Promise<Row[]> {
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

/**
 * A hot statement of fixed text, prepared once per connection (Postgres parses and plans it once; the text crosses the
 * socket once): written with `?` or `:name` bindings, turned into Postgres' `$n` form here, once. `run` takes the
 * values in order (for `:name` bindings, in the order of `names`). Inside a transaction it runs through knex on the
 * transaction's connection (a prepared statement would take a connection of its own).
 */
export function preparedStatement(name: string, sql: string, names?: readonly string[]) {
  const text = names ? namedToPositional(sql, names) : questionMarksToPositional(sql);
  const inTransaction = async <Row>(db: Knex, values: readonly unknown[]): Promise<Row[]> => {
    const bindings = names ? Object.fromEntries(names.map((key, i) => [key, values[i]])) : values;
    return (await db.raw(sql, bindings as Knex.RawBinding[] | Knex.ValueDict)).rows as Row[];
  };
  // Not an async function outside a transaction: the request path's statements skip a layer of promise (issue 33).
  return <Row>(db: Knex, values: readonly unknown[]): Promise<Row[]> =>
    db.isTransaction ? inTransaction<Row>(db, values) : queryPrepared<Row>(db, name, text, values);
}

function questionMarksToPositional(sql: string): string {
  let n = 0;
  let quoted = false;
  let text = '';
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted;
    if (ch === '?' && quoted) throw new Error('preparedStatement: a ? inside a string literal is ambiguous');
    text += ch === '?' ? `$${(n += 1)}` : ch;
  }
  return text;
}

function namedToPositional(sql: string, names: readonly string[]): string {
  return sql.replace(/(?<!:):([A-Za-z]\w*)/g, (_whole, name: string) => {
    const index = names.indexOf(name);
    if (index < 0) throw new Error(`preparedStatement: no position for :${name}`);
    return `$${index + 1}`;
  });
}
