import type { Knex } from 'knex';

/** A phone number searched for: one E.164 number, or a run of digits some stored numbers contain (e.g. their last four). */
export type NumberMatch = { e164: string } | { digits: string };

/**
 * Narrows `query` to rows where one of `columns` matches the number: equal to the E.164 number, or
 * containing the digits (digits only, so no LIKE wildcard can come from the search box).
 */
export function whereNumberMatches(query: Knex.QueryBuilder, columns: readonly string[], number: NumberMatch): void {
  if ('digits' in number && !/^\d+$/.test(number.digits)) throw new Error('a number match holds digits only');
  query.andWhere((either) => {
    for (const column of columns) {
      if ('e164' in number) either.orWhere(column, number.e164);
      else either.orWhere(column, 'like', `%${number.digits}%`);
    }
  });
}
