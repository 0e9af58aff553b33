import { createRequire } from 'node:module';
import pg from 'pg';

/** The parts of pg's `Result` (pg/lib/result.js, 8.x) that building a result's rows touches. */
interface ResultInternals {
  fields: pg.FieldDef[];
  _parsers: Array<(value: string) => unknown> | undefined;
  _types: { getTypeParser(oid: number, format: string): (value: string) => unknown } | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
  /** This result's row builder (ours), or undefined where pg's own parseRow builds the rows. */
  _buildRow?: RowBuilder;
}

/** Builds one row from a DataRow's raw text values with the result's parsers: an object literal of the result's columns. */
type RowBuilder = (raw: ReadonlyArray<string | null>, parsers: ReadonlyArray<(value: string) => unknown>) => Record<string, unknown>;

type AddFields = (this: ResultInternals, fields: pg.FieldDef[]) => void;
type ParseRow = (this: ResultInternals, raw: Array<string | null>) => Record<string, unknown>;

const INSTALLED = Symbol.for('switchboard.pg.rowBuilders');

/** Marks a description whose builder is to be kept on it (`keepRowBuilderFor`) until a result first uses it. */
const TO_KEEP = Symbol('to keep');

/**
 * The builders of the descriptions describedOnce.ts hands to pg on every execution of a prepared statement, by the
 * description's columns array (the same array each time): found without joining the names again. Only those are
 * kept this way; any other result's columns are a new array each time and are not stored.
 */
const keptDescriptions = new WeakMap<pg.FieldDef[], RowBuilder | null | typeof TO_KEEP>();

/** Keeps the row builder of `fields`, a description that will be handed to pg again, on the description itself. */
export function keepRowBuilderFor(fields: pg.FieldDef[]): void {
  if (!keptDescriptions.has(fields)) keptDescriptions.set(fields, TO_KEEP);
}

/** How many column lists' builders are kept; past it they are all dropped and made again as results come. */
const MAX_BUILDERS = 1_000;

/**
 * pg 8.23 builds each row by copying a template of the result's columns (`{ ...template }`) and storing every value by
 * its column name (`row[name] = value`). That one function builds the rows of every query, so V8's caches for those
 * copies and stores see dozens of shapes and fall back to their slowest path: 7 µs for the line's 37 columns, about a
 * tenth of an authenticated GET (issue 33; upstream brianc/node-postgres#3055 and #3753 describe the template's cost).
 *
 * Here each column list gets a row builder of its own, made once: a function returning one object literal of its
 * columns in order (`{"id": raw[0] === null ? null : parsers[0](raw[0]), ...}`), so each builder's object always has one
 * shape. 0.9 µs for the line's row, parsers included. It is generated code (as ajv's validators are): each name enters
 * it only as a JSON string literal, which no name can break out of, and Postgres names hold no NUL. The rows are the
 * same plain objects with the same values, keys and order as pg's (a repeated name keeps its first place and its last
 * value, as pg's stores do). Kept per column list, the builder never goes stale; the type parsers are still looked up
 * for each result, so a parser set later (`types.setTypeParser`) applies at once. A result with a column named
 * `__proto__` (which an object literal would take for the prototype) or a binary column is left to pg's own code.
 *
 * Installed once per process, and only on the pg it was written against: if a later pg builds its rows otherwise, pg's
 * own code stays (test/integration/rowBuilders.test.ts says so).
 */
export function installRowBuilders(): boolean {
  const Result = createRequire(__filename)('pg/lib/result') as { prototype: { addFields: AddFields; parseRow: ParseRow } };
  const proto = Result.prototype;
  if ((proto.addFields as { [INSTALLED]?: true })[INSTALLED]) return true;
  if (!String(proto.parseRow).includes('this._prebuiltEmptyResultObject') || !String(proto.addFields).includes('this._types')) return false;
  const pgAddFields = proto.addFields;
  const pgParseRow = proto.parseRow;
  // null: a list pg's own code builds (a `__proto__` column).
  const builders = new Map<string, RowBuilder | null>();
  const addFields: AddFields = function (this: ResultInternals, fields) {
    this._buildRow = undefined;
    const kept = keptDescriptions.get(fields);
    let builder = kept === TO_KEEP ? undefined : kept;
    if (builder === undefined) {
      // Postgres names cannot hold a NUL, so the list is told apart by its names joined with one.
      let names = '';
      for (let i = 0; i < fields.length; i += 1) {
        if (fields[i]!.format === 'binary') return pgAddFields.call(this, fields);
        names += `${fields[i]!.name}\u0000`;
      }
      builder = builders.get(names);
      if (builder === undefined) {
        builder = rowBuilder(fields);
        if (builders.size >= MAX_BUILDERS) builders.clear();
        builders.set(names, builder);
      }
      if (kept === TO_KEEP) keptDescriptions.set(fields, builder);
    }
    if (builder === null) return pgAddFields.call(this, fields);
    this.fields = fields;
    if (fields.length) this._parsers = new Array<(value: string) => unknown>(fields.length);
    const types = this._types ?? pg.types;
    for (let i = 0; i < fields.length; i += 1) {
      this._parsers![i] = types.getTypeParser(fields[i]!.dataTypeID, 'text') as (value: string) => unknown;
    }
    this._prebuiltEmptyResultObject = null;
    this._buildRow = builder;
  };
  const parseRow: ParseRow = function (this: ResultInternals, raw) {
    const build = this._buildRow;
    return build ? build(raw, this._parsers!) : pgParseRow.call(this, raw);
  };
  Object.defineProperty(addFields, INSTALLED, { value: true });
  proto.addFields = addFields;
  proto.parseRow = parseRow;
  return true;
}

/** The row builder of a column list; null when a column is named `__proto__`. */
function rowBuilder(fields: readonly pg.FieldDef[]): RowBuilder | null {
  if (fields.some((field) => field.name === '__proto__')) return null;
  const columns = fields.map((field, i) => `${JSON.stringify(field.name)}: raw[${i}] === null ? null : parsers[${i}](raw[${i}])`);
  return new Function('raw', 'parsers', `return { ${columns.join(', ')} };`) as RowBuilder;
}
