import { createRequire } from 'node:module';
import pg from 'pg';
import { keepRowBuilderFor } from './rowBuilders';

/** The parts of pg's `Connection` (pg/lib/connection.js, 8.x) an execution of a prepared statement sends with. */
interface PgConnection {
  bind(config: {
    portal: string;
    statement: string;
    values: unknown[] | undefined;
    binary: boolean | undefined;
    valueMapper: unknown;
  }): void;
  close(config: { type: 'S'; name: string }): void;
  sync(): void;
}

/** pg-protocol's RowDescription message: what a portal's rows are (the columns' names, types and formats). */
interface RowDescription {
  fields: pg.FieldDef[];
}

/** The parts of pg's `Query` (pg/lib/query.js, 8.x) that preparing an execution touches. */
interface PgQuery {
  name: string | undefined;
  text: string;
  values: unknown[] | undefined;
  portal: string;
  binary: boolean | undefined;
  rows: number | undefined;
  prepare(connection: PgConnection): void;
  hasBeenParsed(connection: PgConnection): boolean;
  handleRowDescription(message: RowDescription): void;
  handleError(err: unknown, connection: PgConnection): void;
  _getRows(connection: PgConnection, rows: number | undefined): void;
}

const PgQueryClass = pg.Query as unknown as new (config: pg.QueryConfig) => PgQuery;
const { prepareValue } = createRequire(__filename)('pg/lib/utils') as { prepareValue: unknown };

/** What each connection's Postgres said its prepared statements return, by statement name (with the text it was for). */
const descriptions = new WeakMap<PgConnection, Map<string, { text: string; description: RowDescription }>>();

/**
 * pg 8 sends a named prepared statement as Bind, Describe, Execute, Sync on every execution, and Postgres answers the
 * Describe with the statement's RowDescription every time: for the line's 37 columns about 7 µs of the API's CPU a
 * request to read and take apart (pg-protocol's parser, pg's `addFields`), a tenth of an authenticated GET, and the
 * server's work to write it (issue 33).
 *
 * What a prepared statement returns cannot change while it exists: a change to a table it reads makes Postgres refuse
 * to run it ("cached plan must not change result type") rather than answer with other columns. So this query sends
 * the Describe only the first time the statement runs on a connection, keeps the RowDescription that answered it per
 * connection and statement name, and on later executions hands the kept one to pg (`handleRowDescription`, as pg does
 * when the message arrives) instead of asking. The rows are built exactly as before, from the same description.
 *
 * A statement that returns no rows is answered NoData and keeps being described; one sent in pages (`rows`) keeps
 * pg's own code. The Bind and its refusal are pg's own, copied from `Query.prepare`: `describedOnceSupported()` says
 * whether the installed pg still prepares that way (test/integration/describedOnce.test.ts checks it on an upgrade),
 * and when it does not, statements are sent as pg sends them.
 */
class DescribedOnceQuery extends PgQueryClass {
  /** The connection this execution asked for the description on (its answer is kept for the next executions). */
  #describing: PgConnection | undefined;

  override prepare(connection: PgConnection): void {
    const name = this.rows === undefined ? this.name : undefined;
    const kept = name ? descriptions.get(connection)?.get(name) : undefined;
    if (!name || !kept || kept.text !== this.text || !this.hasBeenParsed(connection)) {
      this.#describing = name ? connection : undefined;
      super.prepare(connection);
      return;
    }
    try {
      connection.bind({ portal: this.portal, statement: name, values: this.values, binary: this.binary, valueMapper: prepareValue });
    } catch (err) {
      // As pg does: a value its mapper refuses closes the statement and fails this query alone.
      connection.close({ type: 'S', name });
      connection.sync();
      this.handleError(err, connection);
      return;
    }
    this.handleRowDescription(kept.description);
    this._getRows(connection, this.rows);
  }

  override handleRowDescription(message: RowDescription): void {
    super.handleRowDescription(message);
    const connection = this.#describing;
    if (!connection || !this.name) return;
    this.#describing = undefined;
    let kept = descriptions.get(connection);
    if (!kept) descriptions.set(connection, (kept = new Map()));
    kept.set(this.name, { text: this.text, description: message });
    keepRowBuilderFor(message.fields);
  }
}

/** Whether the installed pg prepares a named statement as `DescribedOnceQuery` was written against (pg 8.23). */
export function describedOnceSupported(): boolean {
  const prepare = String(PgQueryClass.prototype.prepare);
  const describe = String(PgQueryClass.prototype.handleRowDescription);
  return (
    typeof prepareValue === 'function' &&
    prepare.includes('connection.bind({') &&
    prepare.includes('valueMapper: utils.prepareValue') &&
    prepare.includes("connection.close({ type: 'S', name: this.name })") &&
    prepare.includes("connection.describe({\n      type: 'P',") &&
    prepare.includes('this._getRows(connection, this.rows)') &&
    describe.includes('this._result.addFields(msg.fields)')
  );
}

const SUPPORTED = describedOnceSupported();

/** A pg pool or client, as both take a query object with a callback. */
interface Queryable {
  query(query: unknown, callback: (err: Error | undefined, result: pg.QueryResult) => void): unknown;
}

/**
 * Runs the named prepared statement `name` (`text`, `$n` parameters) on `on`, a pg pool or client, described once per
 * connection (`DescribedOnceQuery`); its rows as pg builds them.
 */
export function queryDescribedOnce<Row>(
  on: pg.Pool | pg.ClientBase,
  name: string,
  text: string,
  values: readonly unknown[],
): Promise<Row[]> {
  const config: pg.QueryConfig = { name, text, values: values as unknown[] };
  const query = SUPPORTED ? new DescribedOnceQuery(config) : config;
  return new Promise<Row[]>((resolve, reject) =>
    (on as unknown as Queryable).query(query, (err, result) => (err ? reject(err) : resolve(result.rows as Row[]))),
  );
}
