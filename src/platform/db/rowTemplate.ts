import { createRequire } from 'node:module';
import pg from 'pg';

/** The parts of pg's `Result` (pg/lib/result.js, 8.x) that building a result's row template touches. */
interface ResultInternals {
  fields: pg.FieldDef[];
  _parsers: Array<(value: string) => unknown> | undefined;
  _types: { getTypeParser(oid: number, format: string): (value: string) => unknown } | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
}

type AddFields = (this: ResultInternals, fields: pg.FieldDef[]) => void;

const FAST_TEMPLATE = Symbol.for('switchboard.pg.plainRowTemplate');

/** How many column lists' templates are kept; past it they are all dropped and built again as results come. */
const MAX_TEMPLATES = 1_000;

/**
 * pg 8.23 builds each result's row template (every column set to null, copied for each row) on an object without a
 * prototype: V8 keeps such an object in dictionary mode, and copying it costs about 6 µs more per query for a
 * 37-column row than copying a plain object (7.6 against 1.2 µs, issue 33; upstream brianc/node-postgres#3055 and
 * #3753). This builds the same template as a plain object, the rows being plain objects either way. The one column name a
 * plain object treats differently, `__proto__`, keeps pg's own way, which is why pg chose it.
 *
 * Built once per column list and kept (by the columns' names in order): building even a plain one, a property at a
 * time, cost 8–10 µs a query for the line's 37 columns under load, 48 µs over an SMS's statements (issue 33). A
 * template depends only on the names (pg copies it for each row and never writes to it), so a kept one never goes stale.
 * The type parsers are still looked up for each result, so a parser set later (`types.setTypeParser`) applies at once.
 *
 * Installed once per process, and only on the pg it was written against: if a later pg no longer builds its rows from
 * `_prebuiltEmptyResultObject`, pg's own code stays (test/integration/rowTemplate.test.ts says so).
 */
export function installPlainRowTemplates(): boolean {
  const Result = createRequire(__filename)('pg/lib/result') as { prototype: { addFields: AddFields; parseRow: unknown } };
  const proto = Result.prototype;
  if ((proto.addFields as { [FAST_TEMPLATE]?: true })[FAST_TEMPLATE]) return true;
  if (!String(proto.parseRow).includes('this._prebuiltEmptyResultObject') || !String(proto.addFields).includes('this._types')) return false;
  const pgOwn = proto.addFields;
  // null: a list with a `__proto__` column, left to pg's own code.
  const templates = new Map<string, Record<string, null> | null>();
  const addFields: AddFields = function (this: ResultInternals, fields) {
    // Postgres names cannot hold a NUL, so the list is told apart by its names joined with one.
    let names = '';
    for (let i = 0; i < fields.length; i += 1) names += `${fields[i]!.name}\u0000`;
    let template = templates.get(names);
    if (template === undefined) {
      template = plainTemplate(fields);
      if (templates.size >= MAX_TEMPLATES) templates.clear();
      templates.set(names, template);
    }
    if (template === null) return pgOwn.call(this, fields);
    this.fields = fields;
    if (fields.length) this._parsers = new Array<(value: string) => unknown>(fields.length);
    const types = this._types ?? pg.types;
    for (let i = 0; i < fields.length; i += 1) {
      const field = fields[i]!;
      this._parsers![i] = types.getTypeParser(field.dataTypeID, (field.format || 'text') as 'text' | 'binary') as (
        value: string,
      ) => unknown;
    }
    this._prebuiltEmptyResultObject = template;
  };
  Object.defineProperty(addFields, FAST_TEMPLATE, { value: true });
  proto.addFields = addFields;
  return true;
}

/** Every column set to null on a plain object, in order; null when a column is named `__proto__`. */
function plainTemplate(fields: readonly pg.FieldDef[]): Record<string, null> | null {
  if (fields.some((field) => field.name === '__proto__')) return null;
  const row: Record<string, null> = {};
  for (const field of fields) row[field.name] = null;
  return row;
}
