import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { AppContext } from '../context';
import { beforeCursor, type TimeCursor } from '../pagination';

/**
 * The portal's CSV exports (calls, deliveries, usage; issue 30 item 5): RFC 4180 (CRLF line ends, a
 * field quoted when it holds a quote, comma or line break, quotes doubled), safe to open in a
 * spreadsheet (OWASP "CSV injection": a text cell starting with = + - @, tab or carriage return is
 * prefixed with '), streamed in keyset-paged batches newest first, and bounded at CSV_MAX_ROWS.
 * The caller's query is the list's own, so the export holds exactly what the filters keep, of the
 * operator's workspace and environment only.
 */

/** The most rows one export holds (newest first); narrow the time range for older ones. */
export const CSV_MAX_ROWS = 100_000;
const BATCH = 1_000;

/** One export's column: its header and its cell of a row. A number is written as is; text is made safe. */
export interface CsvColumn<Row> {
  header: string;
  cell: (row: Row) => string | number | null | undefined;
}

/** Characters a spreadsheet starts a formula (or a DDE call) with. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One RFC 4180 field. */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One record: its fields joined, CRLF-terminated. */
export function csvRecord(fields: ReadonlyArray<string | number | null | undefined>): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/**
 * The rows of `query()` newest first, `BATCH` at a time (each batch a new query after the last row's
 * time and id, so no transaction or cursor is held open while the client reads), up to CSV_MAX_ROWS.
 */
export async function* newestFirstInBatches<Row>(
  query: () => Knex.QueryBuilder,
  key: { time: string; id: string; of: (row: Row) => TimeCursor },
  max = CSV_MAX_ROWS,
): AsyncGenerator<Row> {
  let after: TimeCursor | undefined;
  let sent = 0;
  while (sent < max) {
    const batch = (await beforeCursor(query(), after, key.time, key.id)
      .orderBy([
        { column: key.time, order: 'desc' },
        { column: key.id, order: 'desc' },
      ])
      .limit(Math.min(BATCH, max - sent))) as Row[];
    for (const row of batch) yield row;
    sent += batch.length;
    if (batch.length < BATCH) return;
    after = key.of(batch[batch.length - 1]);
  }
}

/** Answers with a CSV download named `<name>-<environment>-<UTC time>.csv`: the header row, then a record per row. */
export function sendCsv<Row>(
  ctx: AppContext,
  name: string,
  environment: string,
  columns: ReadonlyArray<CsvColumn<Row>>,
  rows: AsyncIterable<Row>,
): void {
  const stamp = new Date().toISOString().slice(0, 16).replace(/[-:]/g, '');
  ctx.type = 'text/csv; charset=utf-8; header=present';
  ctx.set('Content-Disposition', `attachment; filename="${name}-${environment}-${stamp}Z.csv"`);
  ctx.set('Cache-Control', 'private, no-store');
  ctx.body = Readable.from(records(columns, rows));
}

async function* records<Row>(columns: ReadonlyArray<CsvColumn<Row>>, rows: AsyncIterable<Row>): AsyncGenerator<string> {
  yield csvRecord(columns.map((column) => column.header));
  for await (const row of rows) yield csvRecord(columns.map((column) => column.cell(row)));
}
