/**
 * The two list shapes. Offset lists (`offsetPage`) answer a page and `total`. Cursor pagination is
 * one shape for every cursor list (transactions, conversations, a
 * conversation's messages): newest first, ordered by (time, id) so rows that share a
 * millisecond keep a stable order and every row is seen exactly once. The cursor is
 * `<ISO time>|<id>` of the last row returned; a bare ISO time (the spec's "a timestamp from the
 * previous response") is accepted too and continues strictly before that time.
 */
import type { Knex } from 'knex';
import { errors } from './errors';
import { isUuid, parseDateOrDateTime } from './openapi/formats';

export interface TimeCursor {
  at: Date;
  id?: string;
}

export function cursorPaginationParams() {
  return [
    { name: 'limit', in: 'query' as const, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
    {
      name: 'cursor',
      in: 'query' as const,
      schema: CURSOR_SCHEMA,
      description: '`next_cursor` of the previous page (or an ISO timestamp)',
    },
  ];
}

/** A calendar date `YYYY-MM-DD` that exists (years 0000-9999, leap years included), as `parseDate` reads it. */
const EXISTING_DATE =
  '(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))' +
  '|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)';
const UUID_TEXT = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/**
 * What `parseCursor` takes, as the OpenAPI document states it and the validator checks it: a
 * date-time or a date (the spec's "timestamp"), or `next_cursor` as this API writes it
 * (`<UTC time to the millisecond>|<id>`).
 */
export const CURSOR_SCHEMA = {
  type: 'string',
  // The bound on the one branch whose length it limits: a date and this API's cursor have fixed lengths.
  anyOf: [
    { format: 'date-time', maxLength: 100 },
    { format: 'date' },
    { pattern: `^${EXISTING_DATE}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\\.[0-9]{3}Z\\|${UUID_TEXT}$` },
  ],
};

/**
 * The time must be an RFC 3339 date-time or a date (years 0000-9999, inside Postgres's range)
 * and the id a canonical UUID: a forged cursor is a 422, never a value the query cannot bind.
 */
export function parseCursor(cursor: string | undefined): TimeCursor | undefined {
  if (!cursor) return undefined;
  const [time, id, ...rest] = cursor.split('|');
  const at = parseDateOrDateTime(time);
  if (!at || rest.length > 0 || (id !== undefined && !isUuid(id))) {
    throw errors.validation([{ field: 'cursor', message: 'Not a cursor from this endpoint' }]);
  }
  return { at, id };
}

/** Rows strictly after the cursor in newest-first order, compared at millisecond precision. */
export function beforeCursor<Q extends Knex.QueryBuilder>(
  query: Q,
  after: TimeCursor | undefined,
  timeColumn: string,
  idColumn: string,
): Q {
  if (after?.id) query.whereRaw(`(date_trunc('milliseconds', ??), ??) < (?, ?)`, [timeColumn, idColumn, after.at, after.id]);
  else if (after) query.whereRaw(`date_trunc('milliseconds', ??) < ?`, [timeColumn, after.at]);
  return query;
}

/** Splits `limit + 1` fetched rows into the page and `{has_more, next_cursor}`. */
export function cursorPage<T>(
  rows: T[],
  limit: number,
  keyOf: (row: T) => { at: Date; id: string },
): { page: T[]; has_more: boolean; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = page[page.length - 1];
  if (!hasMore || last === undefined) return { page, has_more: false, next_cursor: null };
  const key = keyOf(last);
  return { page, has_more: true, next_cursor: `${key.at.toISOString()}|${key.id}` };
}

/** One cursor page of rows keyed by (`created_at`, `id`), newest first: the query after the cursor, `limit + 1` read. */
export async function newestFirstPage<T extends { created_at: Date; id: string }>(
  query: Knex.QueryBuilder,
  cursor: string | undefined,
  limit: number,
): Promise<{ page: T[]; has_more: boolean; next_cursor: string | null }> {
  beforeCursor(query, parseCursor(cursor), 'created_at', 'id');
  const rows = (await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit + 1)) as T[];
  return cursorPage(rows, limit, (row) => ({ at: row.created_at, id: row.id }));
}

/**
 * Offset pagination, the other list shape (`limit`/`offset` with `total`): newest first by
 * (time, id), one page of `query()` and the count of the same filter, read together.
 */
export async function offsetPage<TRecord extends object, TResult>(
  query: () => Knex.QueryBuilder<TRecord, TResult>,
  page: { limit: number; offset: number },
  timeColumn = 'created_at',
) {
  const [rows, [{ total }]] = await Promise.all([
    query()
      .orderBy([
        { column: timeColumn, order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(page.limit)
      .offset(page.offset),
    query().count<{ total: string }[]>('id as total'),
  ]);
  return { rows, total: Number(total) };
}
