import pg from 'pg';
import { createDb, type Db } from '../../src/platform/db/knex';
import { queryPrepared } from '../../src/platform/db/prepared';
import { installRowBuilders } from '../../src/platform/db/rowBuilders';

/**
 * pg's rows are built by a row builder per column list (src/platform/db/rowBuilders.ts): rows must come back exactly as
 * pg's own code gives them, through knex and through the statement pool; a column named `__proto__` must stay a column,
 * and a column's name is only ever a name, whatever it holds.
 */
describe("pg's rows, built per column list", () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.DATABASE_URL!, { max: 2, statements: 1 });
  });
  afterAll(() => db.destroy());

  const SQL =
    "select 1::int as n, 'x'::text as s, null::text as gone, '2026-11-30T05:00:00Z'::timestamptz as at, array[1,2]::int[] as ids, '{\"a\":1}'::jsonb as j, " +
    'true as constructor, \'v\'::text as "hasOwnProperty", 2 as n';

  test('is what pg 8 builds its rows from, and is installed by opening a database', () => {
    // A pg that no longer builds rows this way keeps its own code; this says when that happens (on an upgrade).
    expect(installRowBuilders()).toBe(true);
  });

  test('rows are the same as pg builds them without it: values, types, column order, a repeated name', async () => {
    const [viaKnex] = (await db.raw<{ rows: Array<Record<string, unknown>> }>(SQL)).rows;
    const [viaStatement] = await queryPrepared<Record<string, unknown>>(db, 'test_row_template', SQL, []);
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<unknown[]>({ text: SQL, rowMode: 'array' } as pg.QueryArrayConfig);
      const [n, s, gone, at, ids, j, ctor, own, second] = rows[0]!;
      for (const row of [viaKnex, viaStatement]) {
        expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
        expect(Object.keys(row)).toEqual(['n', 's', 'gone', 'at', 'ids', 'j', 'constructor', 'hasOwnProperty']);
        expect(row).toEqual({ n: second, s, gone, at, ids, j, constructor: ctor, hasOwnProperty: own });
        expect(row.n).toBe(2);
        expect(n).toBe(1);
        expect(row.at).toBeInstanceOf(Date);
      }
    } finally {
      await client.end();
    }
  });

  test('a kept template serves the next result of the same columns: rows stay apart, and a parser set later applies', async () => {
    const sql = "select 1::int as n, 'x'::text as s, 2.5::numeric as amount";
    const first = (await db.raw<{ rows: Array<Record<string, unknown>> }>(sql)).rows[0]!;
    first.n = 99;
    (first as Record<string, unknown>).added = true;
    const second = (await db.raw<{ rows: Array<Record<string, unknown>> }>(sql)).rows[0]!;
    expect(second).toEqual({ n: 1, s: 'x', amount: '2.5' });
    expect(Object.keys(second)).toEqual(['n', 's', 'amount']);

    // The same names in another order are another list.
    const reordered = (await db.raw<{ rows: Array<Record<string, unknown>> }>("select 'x'::text as s, 1::int as n")).rows[0]!;
    expect(Object.keys(reordered)).toEqual(['s', 'n']);

    // The template is kept, the parsers are not: a parser set on this client's types after the first result applies.
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      expect((await client.query(sql)).rows[0]).toEqual({ n: 1, s: 'x', amount: '2.5' });
      client.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));
      expect((await client.query(sql)).rows[0]).toEqual({ n: 1, s: 'x', amount: 2.5 });
    } finally {
      await client.end();
    }
  });

  test('a column named __proto__ is a column, and the row keeps its prototype', async () => {
    const [row] = (await db.raw<{ rows: Array<Record<string, unknown>> }>(`select '{"polluted": true}'::jsonb as "__proto__", 1 as n`))
      .rows;
    expect(Object.prototype.hasOwnProperty.call(row, '__proto__')).toBe(true);
    expect((row as { polluted?: unknown }).polluted).toBeUndefined();
    expect(row.n).toBe(1);
  });

  test('a name that looks like code is only a name, and a binary result is left to pg', async () => {
    const names = ['a"b', "c'd", 'e\\f', 'g\nh', '}; globalThis.pwned = 1; ({', '\u2028', '${x}', 'toString'];
    const sql = `select ${names.map((name, i) => `${i}::int as "${name.replace(/"/g, '""')}"`).join(', ')}`;
    const [row] = (await db.raw<{ rows: Array<Record<string, unknown>> }>(sql)).rows;
    expect(Object.keys(row)).toEqual(names);
    expect(Object.values(row)).toEqual(names.map((_, i) => i));
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();

    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query({ text: "select 'x'::text as s, 7::int4 as n", binary: true } as pg.QueryConfig);
      expect(rows[0].s).toBe('x');
      expect(rows[0].n).toBe(7);
    } finally {
      await client.end();
    }
  });
});
