import { createDb, STATEMENT_POOL_NAME, type Db } from '../../src/platform/db/knex';
import { preparedStatement } from '../../src/platform/db/prepared';
import { until } from '../support/waits';

/**
 * The API's prepared statements run on a pool of raw pg connections of their own (docs/decisions/api.md, "Hot
 * statements are named prepared statements"): knex's pool is skipped on the request path, a failed connection is
 * replaced, and `destroy()` closes both pools.
 */
describe('the statement pool', () => {
  const whoRuns = preparedStatement(
    'test_statement_pool_backend',
    'select pg_backend_pid() as pid, current_setting(?) as application_name',
  );
  const handles: Db[] = [];
  const open = (pools: Parameters<typeof createDb>[1]) => {
    const db = createDb(process.env.DATABASE_URL!, pools);
    handles.push(db);
    return db;
  };
  afterAll(async () => {
    for (const db of handles) await db.destroy();
  });

  test('prepared statements run on it, everything else on knex', async () => {
    const db = open({ max: 2, statements: 1 });
    const [prepared] = await whoRuns<{ pid: number; application_name: string }>(db, ['application_name']);
    expect(prepared.application_name).toBe(STATEMENT_POOL_NAME);
    const { rows } = await db.raw<{ rows: Array<{ application_name: string }> }>(
      "select current_setting('application_name') as application_name",
    );
    expect(rows[0].application_name).not.toBe(STATEMENT_POOL_NAME);
    // The statement keeps its connection: a second run reaches the same backend (a pool of one).
    const [again] = await whoRuns<{ pid: number }>(db, ['application_name']);
    expect(again.pid).toBe(prepared.pid);
  });

  test('without one, prepared statements use knex’s pool', async () => {
    const db = open({ max: 2 });
    const [row] = await whoRuns<{ application_name: string }>(db, ['application_name']);
    expect(row.application_name).not.toBe(STATEMENT_POOL_NAME);
  });

  test('a connection killed under it is replaced, and the process lives on', async () => {
    const db = open({ max: 2, statements: 1 });
    const [before] = await whoRuns<{ pid: number }>(db, ['application_name']);
    const { rows } = await db.raw<{ rows: Array<{ killed: boolean }> }>('select pg_terminate_backend(?) as killed', [before.pid]);
    expect(rows[0].killed).toBe(true);
    // The idle connection's failure reaches the pool's error listener (without one the process would end); the next
    // statement gets a new backend. A statement sent in between may fail with the dead connection: that is the caller's.
    let after: number | undefined;
    await until(async () => {
      after = await whoRuns<{ pid: number }>(db, ['application_name']).then(
        ([row]) => row.pid,
        () => undefined,
      );
      return after !== undefined;
    }, 'a statement on a new connection');
    expect(after).not.toBe(before.pid);
  });

  test('destroy() closes both pools', async () => {
    const db = createDb(process.env.DATABASE_URL!, { max: 1, statements: 1 });
    await whoRuns(db, ['application_name']);
    await db.raw('select 1');
    await db.destroy();
    await expect(whoRuns(db, ['application_name'])).rejects.toThrow(/after calling end/);
    await expect(db.raw('select 1')).rejects.toThrow();
    // A second destroy (a shutdown path and a test's cleanup both calling it) is harmless.
    await expect(db.destroy()).resolves.toBeUndefined();
  });
});
