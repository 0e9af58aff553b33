import type { Knex } from 'knex';
import pg from 'pg';

/**
 * Counts the statements a knex instance sends, by statement (its SQL with bindings as placeholders), and the time each
 * took from sending to its answer: a bench's "round trips a unit of work", where they come from and which wait longest.
 * Counting costs a map update per query. Named prepared statements (src/platform/db/prepared.ts) go to a pooled pg
 * client past knex's events: they are counted as `[prepared <name>] <text>` (their time is not measured).
 */
export function countQueries(db: Knex): {
  total: () => number;
  top: (n: number) => Array<[string, number]>;
  slowest: (n: number) => Array<{ sql: string; count: number; meanMs: number }>;
  stop: () => void;
} {
  const counts = new Map<string, number>();
  const times = new Map<string, number>();
  const started = new Map<string, { sql: string; at: number }>();
  let total = 0;
  const onQuery = (query: { sql: string; __knexQueryUid: string }) => {
    total += 1;
    const sql = query.sql.replace(/\s+/g, ' ').slice(0, 140);
    counts.set(sql, (counts.get(sql) ?? 0) + 1);
    started.set(query.__knexQueryUid, { sql, at: performance.now() });
  };
  const onAnswer = (_response: unknown, query: { __knexQueryUid: string }) => {
    const start = started.get(query.__knexQueryUid);
    if (!start) return;
    started.delete(query.__knexQueryUid);
    times.set(start.sql, (times.get(start.sql) ?? 0) + performance.now() - start.at);
  };
  const onError = (_err: unknown, query: { __knexQueryUid: string }) => onAnswer(undefined, query);
  db.on('query', onQuery);
  db.on('query-response', onAnswer);
  db.on('query-error', onError);
  const clientQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as { name?: string; text?: string } | undefined;
    if (config && typeof config === 'object' && config.name) {
      total += 1;
      const sql = `[prepared ${config.name}] ${(config.text ?? '').replace(/\s+/g, ' ')}`.slice(0, 140);
      counts.set(sql, (counts.get(sql) ?? 0) + 1);
    }
    return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof clientQuery;
  return {
    total: () => total,
    top: (n) => [...counts].sort((a, b) => b[1] - a[1]).slice(0, n),
    slowest: (n) =>
      [...times]
        .map(([sql, ms]) => ({ sql, count: counts.get(sql) ?? 0, meanMs: ms / (counts.get(sql) ?? 1) }))
        .sort((a, b) => b.meanMs * b.count - a.meanMs * a.count)
        .slice(0, n),
    stop: () => {
      pg.Client.prototype.query = clientQuery;
      db.removeListener('query', onQuery);
      db.removeListener('query-response', onAnswer);
      db.removeListener('query-error', onError);
    },
  };
}
