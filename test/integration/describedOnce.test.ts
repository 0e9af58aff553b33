import { createRequire } from 'node:module';
import pg from 'pg';
import { describedOnceSupported, queryDescribedOnce } from '../../src/platform/db/describedOnce';

/**
 * A named prepared statement is described once per connection (src/platform/db/describedOnce.ts): its later executions
 * send no Describe, and their rows are built from the kept description exactly as pg builds them from a fresh one.
 * Counted here on pg's own Connection: the messages it really sends.
 */
describe('prepared statements described once per connection', () => {
  const Connection = createRequire(__filename)('pg/lib/connection') as { prototype: { describe(message: unknown): void } };
  const pgDescribe = Connection.prototype.describe;
  let describes = 0;
  let pool: pg.Pool;
  const table = `described_once_${process.pid}`;

  beforeAll(async () => {
    Connection.prototype.describe = function (this: unknown, message: unknown) {
      describes += 1;
      return pgDescribe.call(this, message);
    };
    // One connection: every execution below runs on the same one unless the pool replaces it.
    pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    await pool.query(`create table ${table} (id int primary key, note text, at timestamptz, tags text[], doc jsonb, flag boolean)`);
    await pool.query(
      `insert into ${table} values (1, 'one', '2026-11-30T05:00:00Z', '{a,b}', '{"k":[1,2]}', true), (2, null, null, null, null, null)`,
    );
  });
  afterAll(async () => {
    Connection.prototype.describe = pgDescribe;
    await pool.query(`drop table if exists ${table}`);
    await pool.end();
  });
  beforeEach(() => {
    describes = 0;
  });

  const SELECT = () => `select *, $1::int as asked from ${table} order by id`;

  test('is what pg 8 prepares statements as (an upgrade of pg that changes it keeps pg own way, and fails this)', () => {
    expect(describedOnceSupported()).toBe(true);
  });

  test('the first execution asks for the description, the next ones do not, and the rows are the same as pg gives', async () => {
    const stock = (await pool.query({ name: 'stock_select', text: SELECT(), values: [7] })).rows;
    describes = 0;
    const runs = [];
    for (const asked of [7, 7, 7])
      runs.push(await queryDescribedOnce<Record<string, unknown>>(pool, 'described_select', SELECT(), [asked]));
    expect(describes).toBe(1);
    for (const rows of runs) {
      expect(rows).toEqual(stock);
      expect(Object.keys(rows[0]!)).toEqual(['id', 'note', 'at', 'tags', 'doc', 'flag', 'asked']);
      expect(rows[0]!.at).toBeInstanceOf(Date);
      expect(rows[1]).toEqual({ id: 2, note: null, at: null, tags: null, doc: null, flag: null, asked: 7 });
    }
    // Each execution's rows are its own objects.
    expect(runs[0]![0]).not.toBe(runs[1]![0]);
    // pg's own path still describes every time.
    await pool.query({ name: 'stock_select', text: SELECT(), values: [8] });
    expect(describes).toBe(2);
  });

  test('a statement without rows is answered NoData each time, and still runs', async () => {
    const insert = `insert into ${table} (id, note) values ($1, $2) on conflict (id) do update set note = excluded.note`;
    for (const id of [3, 4]) await queryDescribedOnce(pool, 'described_insert', insert, [id, `n${id}`]);
    expect(describes).toBe(2);
    const rows = await queryDescribedOnce<{ note: string }>(pool, 'described_note', `select note from ${table} where id = $1`, [4]);
    expect(rows).toEqual([{ note: 'n4' }]);
  });

  test("a value pg's mapper refuses fails its own query, as pg's; the next execution answers", async () => {
    const text = `select id, $1::text as echoed from ${table} where id = 1`;
    expect(await queryDescribedOnce(pool, 'described_echo', text, ['a'])).toEqual([{ id: 1, echoed: 'a' }]);
    const refused = {
      toPostgres() {
        throw new Error('refused value');
      },
    };
    await expect(queryDescribedOnce(pool, 'described_echo', text, [refused])).rejects.toThrow('refused value');
    expect(await queryDescribedOnce(pool, 'described_echo', text, ['b'])).toEqual([{ id: 1, echoed: 'b' }]);
  });

  test('a change to the columns is refused by Postgres, never answered with the kept description', async () => {
    const text = `select * from ${table} where id = $1`;
    await queryDescribedOnce(pool, 'described_star', text, [1]);
    await queryDescribedOnce(pool, 'described_star', text, [1]);
    expect(describes).toBe(1);
    await pool.query(`alter table ${table} add column extra int default 5`);
    await expect(queryDescribedOnce(pool, 'described_star', text, [1])).rejects.toThrow('cached plan must not change result type');
    // The pool drops a connection whose query failed: the next one prepares and describes afresh.
    const [row] = await queryDescribedOnce<Record<string, unknown>>(pool, 'described_star', text, [1]);
    expect(row).toMatchObject({ id: 1, extra: 5 });
  });

  test('each connection asks once', async () => {
    const other = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    try {
      const text = `select id from ${table} where id = $1`;
      for (const on of [pool, other, pool, other]) expect(await queryDescribedOnce(on, 'described_by_id', text, [1])).toEqual([{ id: 1 }]);
      expect(describes).toBe(2);
    } finally {
      await other.end();
    }
  });
});
