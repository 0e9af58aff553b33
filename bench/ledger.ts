/**
 * Ledger benchmark: reserve and settle N random calls (random mode, zone and duration) the way
 * the call workflow does — hold one minute, extend minute by minute, settle the exact
 * per-second charge — with bounded concurrency against one workspace, then check the books:
 * the balance must equal the sum of the ledger and the expected total from the pricing
 * module, to the cent, and the held total on the account row the sum of the active holds. Baseline: as many
 * one-row UPDATE transactions as there were postings (holds, extensions, settlements), on one row; ceiling: that
 * UPDATE alone in autocommit.
 *
 *   npm run bench:ledger
 *   BENCH_CALLS=20000 BENCH_CONCURRENCY=32 npm run bench:ledger
 */
import crypto from 'node:crypto';
import fc from 'fast-check';
import { intFromEnv } from '../src/platform/config';
import { createDb, type Db } from '../src/platform/db/knex';
import { extendHold, placeHold, settleHold } from '../src/domain/billing/holds';
import { balanceOf, post, type BillingTenant } from '../src/domain/billing/ledger';
import { callChargeCents, ratePerMinuteCents, ZONES, type Zone } from '../src/domain/billing/pricing';
import { startEphemeralStack } from '../dev/infra/stack';
import { runBounded } from './support/async';
import { createCleanups, reportFailures, runBench } from './support/run';
import { fmt, printTable, RATIO_LABEL, ratio } from './support/table';
import { createBenchWorkspace } from './support/tenant';

const CALLS = intFromEnv('BENCH_CALLS', 10_000);
const CONCURRENCY = intFromEnv('BENCH_CONCURRENCY', 16);
const MODES = ['webhook', 'hosted', 'audio'] as const;

interface Call {
  mode: (typeof MODES)[number];
  zone: Zone;
  durationMs: number;
}

async function settleCall(db: Db, tenant: BillingTenant, call: Call): Promise<number> {
  const rate = ratePerMinuteCents(call.mode, call.zone);
  const reference = `call:${crypto.randomUUID()}`;
  const hold = await placeHold(db, { tenant, keyId: null, reference, amountCents: rate, at: new Date() });
  if (!hold.ok) throw new Error(`hold refused: ${hold.refusal.code}`);
  const minutes = Math.max(1, Math.ceil(call.durationMs / 60_000));
  for (let minute = 2; minute <= minutes; minute += 1) {
    const extended = await extendHold(db, { tenant, reference, totalCents: rate * minute, at: new Date() });
    if (!extended.ok) throw new Error(`extension refused: ${extended.refusal.code}`);
  }
  const charge = callChargeCents(call.mode, call.zone, call.durationMs);
  await settleHold(db, {
    tenant,
    reference,
    chargeCents: charge,
    type: 'call_charge',
    description: 'Call',
    usage: { kind: 'call', seconds: Math.ceil(call.durationMs / 1000) },
    at: new Date(),
  });
  return charge;
}

async function main(): Promise<number> {
  const cleanups = createCleanups();
  try {
    const stack = await startEphemeralStack({ name: 'switchboard_bench_ledger', log: () => undefined });
    cleanups.push(() => stack.stop());
    const db = createDb(stack.databaseUrl, { max: CONCURRENCY + 4 });
    cleanups.push(() => db.destroy());
    const { workspace } = await createBenchWorkspace(db);
    const tenant: BillingTenant = { workspaceId: workspace.id, environment: 'test' };
    const startingBalance = 100_000_000;
    await post(db, {
      tenant,
      type: 'credit_purchase',
      amountCents: startingBalance,
      description: 'bench funds',
      idempotencyRef: `bench:${workspace.id}`,
      at: new Date(),
    });
    const before = (await balanceOf(db, tenant)).balanceCents;

    // Calls of 0 s to 20 min, seeded so runs are comparable.
    const calls = fc.sample(
      fc.record({ mode: fc.constantFrom(...MODES), zone: fc.constantFrom(...ZONES), durationMs: fc.integer({ min: 0, max: 20 * 60_000 }) }),
      { numRuns: CALLS, seed: 42 },
    );
    const holdsPerCall = calls.reduce((n, c) => n + Math.max(1, Math.ceil(c.durationMs / 60_000)), 0);
    let expectedCharges = 0;
    const started = process.hrtime.bigint();
    await runBounded(calls.length, CONCURRENCY, async (i) => {
      const charge = await settleCall(db, tenant, calls[i]);
      expectedCharges += charge;
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;

    const after = await balanceOf(db, tenant);
    const [{ sum }] = await db('ledger_transactions').where({ workspace_id: workspace.id, environment: 'test' }).sum('amount_cents as sum');
    const active = await db('spend_holds').where({ workspace_id: workspace.id, status: 'active' }).count('id as n');
    const [{ held }] = await db('spend_holds').where({ workspace_id: workspace.id, status: 'active' }).sum('amount_cents as held');
    // The running held balance on the account row against the holds it stands for.
    const driftHeld = after.heldCents - Number(held ?? 0);
    const driftVsLedger = after.balanceCents - Number(sum);
    const driftVsPricing = before - expectedCharges - after.balanceCents;

    // Baseline, pgbench-like: as many one-row UPDATE transactions (BEGIN; UPDATE ... WHERE id = 1; COMMIT) as there were
    // postings, on ONE row (the workspace account is one row), same pool, same concurrency.
    await db.schema.createTable('bench_accounts', (t) => {
      t.integer('id').primary();
      t.bigInteger('balance').notNullable();
    });
    await db('bench_accounts').insert({ id: 1, balance: 0 });
    const postings = holdsPerCall + CALLS;
    const baselineStarted = process.hrtime.bigint();
    await runBounded(postings, CONCURRENCY, async (i) => {
      await db.transaction((trx) => trx.raw('update bench_accounts set balance = balance + ? where id = 1', [i % 100]));
    });
    const baselineSeconds = Number(process.hrtime.bigint() - baselineStarted) / 1e9;
    // The ceiling of anything serialised on one row through this pool: the same UPDATE alone, in autocommit (one round trip).
    const ceilingStarted = process.hrtime.bigint();
    await runBounded(postings, CONCURRENCY, async (i) => {
      await db.raw('update bench_accounts set balance = balance + ? where id = 1', [i % 100]);
    });
    const ceilingSeconds = Number(process.hrtime.bigint() - ceilingStarted) / 1e9;

    const row = (label: string, n: number, s: number) => [label, String(n), fmt(s, 2), fmt(n / s, 0)];
    console.log(
      `\n[bench] ${CALLS} calls, concurrency ${CONCURRENCY}, one workspace; postings = holds + extensions + settlements, each serialised on the account row\n`,
    );
    printTable(
      ['target', 'n', 'seconds', 'per second'],
      [
        row('switchboard: reserve + extend + settle (calls)', CALLS, seconds),
        row('switchboard: holds and extensions', holdsPerCall, seconds),
        row('switchboard: settlements', CALLS, seconds),
        row('switchboard: postings (holds + extensions + settlements)', postings, seconds),
        row('baseline: one-row UPDATE transaction', postings, baselineSeconds),
        [RATIO_LABEL, '', '', ratio(postings / seconds, postings / baselineSeconds, 2)],
        row('ceiling: the same UPDATE alone, autocommit', postings, ceilingSeconds),
        ['ratio switchboard/ceiling', '', '', ratio(postings / seconds, postings / ceilingSeconds, 2)],
      ],
    );
    console.log(
      `\ncharged ${expectedCharges} cents; drift balance vs ledger: ${driftVsLedger} cents; drift vs pricing: ${driftVsPricing} cents; drift held vs active holds: ${driftHeld} cents; active holds left: ${active[0].n}`,
    );
    return reportFailures(
      driftVsLedger !== 0 || driftVsPricing !== 0 || driftHeld !== 0 || Number(active[0].n) !== 0 ? ['the books do not balance'] : [],
    );
  } finally {
    await cleanups.run();
  }
}

runBench(main);
