import type { Knex } from 'knex';

/**
 * Counts the statements a knex instance sends, by statement (its SQL with bindings as placeholders): a bench's
 * "round trips a unit of work" and where they come from. Counting costs a map update per query.
 */
export function countQueries(db: Knex): { total: () => number; top: (n: number) => Array<[string, number]>; stop: () => void } {
  const counts = new Map<string, number>();
  let total = 0;
  const onQuery = (query: { sql: string }) => {
    total += 1;
    const sql = query.sql.replace(/\s+/g, ' ').slice(0, 140);
    counts.set(sql, (counts.get(sql) ?? 0) + 1);
  };
  db.on('query', onQuery);
  return {
    total: () => total,
    top: (n) => [...counts].sort((a, b) => b[1] - a[1]).slice(0, n),
    stop: () => db.removeListener('query', onQuery),
  };
}
