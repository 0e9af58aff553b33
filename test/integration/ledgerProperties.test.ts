import crypto from 'node:crypto';
import fc from 'fast-check';
import { extendHold, placeHold, releaseHold, settleHold } from '../../src/domain/billing/holds';
import { balanceOf, post, type BillingTenant } from '../../src/domain/billing/ledger';
import { creditAccount } from '../support/ledger';
import { callChargeCents, ratePerMinuteCents, ZONES } from '../../src/domain/billing/pricing';
import { backfillHeldCents } from '../../src/platform/db/migrations/0019_ledger_postings';
import { useSuite } from '../support/suite';

/** Properties of the books, checked against the real database. */
describe('ledger properties', () => {
  const ctx = useSuite();
  let tenant: BillingTenant;
  beforeEach(() => {
    tenant = { workspaceId: ctx.tenant.workspaceId, environment: 'test' };
  });

  const ledgerSum = async () =>
    Number(
      (await ctx.h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId, environment: 'test' }).sum('amount_cents as s'))[0]
        .s,
    );

  it('the balance is always the sum of the ledger, whatever is posted (retries included)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ amount: fc.integer({ min: -5000, max: 5000 }), repeats: fc.integer({ min: 1, max: 3 }) }), { maxLength: 15 }),
        async (postings) => {
          for (const { amount, repeats } of postings) {
            const posting = {
              tenant,
              type: amount >= 0 ? ('refund' as const) : ('call_charge' as const),
              amountCents: amount,
              description: 'p',
              idempotencyRef: `prop:${crypto.randomUUID()}`,
              at: new Date(),
            };
            for (let i = 0; i < repeats; i += 1) await post(ctx.h.db, posting);
          }
          expect((await balanceOf(ctx.h.db, tenant)).balanceCents).toBe(await ledgerSum());
        },
      ),
      { numRuns: 20 },
    );
  });

  it('settlement plus what is released equals what was held, and the charge follows the formula', async () => {
    await creditAccount(ctx.h.db, tenant, 10_000_000);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('webhook' as const, 'hosted' as const, 'audio' as const),
        fc.constantFrom(...ZONES),
        fc.integer({ min: 0, max: 15 * 60_000 }),
        async (mode, zone, durationMs) => {
          const rate = ratePerMinuteCents(mode, zone);
          const reference = `call:${crypto.randomUUID()}`;
          const before = await balanceOf(ctx.h.db, tenant);
          await placeHold(ctx.h.db, { tenant, keyId: null, reference, amountCents: rate, at: new Date() });
          const minutes = Math.max(1, Math.ceil(durationMs / 60_000));
          for (let m = 2; m <= minutes; m += 1) await extendHold(ctx.h.db, { tenant, reference, totalCents: rate * m, at: new Date() });
          const charge = callChargeCents(mode, zone, durationMs);
          const { heldCents } = await settleHold(ctx.h.db, {
            tenant,
            reference,
            chargeCents: charge,
            type: 'call_charge',
            description: 'Call',
            at: new Date(),
          });
          const after = await balanceOf(ctx.h.db, tenant);
          const released = heldCents - charge;
          expect(released).toBeGreaterThanOrEqual(0);
          expect(charge + released).toBe(heldCents);
          expect(heldCents).toBe(rate * minutes);
          expect(before.balanceCents - after.balanceCents).toBe(charge);
          expect(after.heldCents).toBe(before.heldCents);
        },
      ),
      { numRuns: 40 },
    );
  });

  /** What the account row says is held, against the active holds it stands for. */
  const heldTotals = async () => {
    const scope = { workspace_id: tenant.workspaceId, environment: tenant.environment };
    const account = await ctx.h.db('billing_accounts').where(scope).first('held_cents', 'balance_cents');
    const [{ held }] = await ctx.h
      .db('spend_holds')
      .where({ ...scope, status: 'active' })
      .sum('amount_cents as held');
    return { onAccount: Number(account.held_cents), ofHolds: Number(held ?? 0), balance: Number(account.balance_cents) };
  };

  it('concurrent holds, extensions, settlements and releases never pass the balance or a cap, and the held total is always the sum of the active holds', async () => {
    const capCents = 60;
    const created = await ctx.h.request('POST', '/v1/keys', {
      key: ctx.tenant.keys.serviceTest,
      body: { name: 'capped', monthly_cap_cents: capCents },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    const cappedKey = created.body.key.id as string;
    const capSpend = async () => {
      const [{ spent }] = await ctx.h.db('ledger_transactions').where({ actor_key_id: cappedKey }).sum('amount_cents as spent');
      const [{ held }] = await ctx.h.db('spend_holds').where({ key_id: cappedKey, status: 'active' }).sum('amount_cents as held');
      return -Number(spent ?? 0) + Number(held ?? 0);
    };
    const expectBooksKept = async () => {
      const totals = await heldTotals();
      expect(totals.onAccount).toBe(totals.ofHolds);
      expect(totals.balance - totals.onAccount).toBeGreaterThanOrEqual(0);
      expect(totals.balance).toBe(await ledgerSum());
      expect(await capSpend()).toBeLessThanOrEqual(capCents);
      return totals;
    };

    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            capped: fc.boolean(),
            rate: fc.integer({ min: 1, max: 90 }),
            minutes: fc.integer({ min: 1, max: 4 }),
            end: fc.constantFrom('settle' as const, 'release' as const, 'open' as const),
            chargeShare: fc.double({ min: 0, max: 1, noNaN: true }),
            retried: fc.boolean(),
            // Ends while the others are still placing, or only once every hold is placed and extended.
            endsEarly: fc.boolean(),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (calls) => {
          // Each run starts from 150 available, so holds race at the edge of the balance as well as the cap.
          const funds = 150 - (await balanceOf(ctx.h.db, tenant)).balanceCents;
          if (funds !== 0) {
            const type = funds > 0 ? ('credit_purchase' as const) : ('call_charge' as const);
            await post(ctx.h.db, {
              tenant,
              type,
              amountCents: funds,
              description: 'funds',
              idempotencyRef: `funds:${crypto.randomUUID()}`,
              at: new Date(),
            });
          }
          const open: string[] = [];
          const late: Array<() => Promise<void>> = [];
          await Promise.all(
            calls.map(async (call) => {
              const reference = `call:${crypto.randomUUID()}`;
              const keyId = call.capped ? cappedKey : null;
              const place = () => placeHold(ctx.h.db, { tenant, keyId, reference, amountCents: call.rate, at: new Date() });
              const hold = await place();
              if (!hold.ok) return;
              if (call.retried) expect(await place()).toEqual(hold);
              let held = call.rate;
              for (let m = 2; m <= call.minutes; m += 1) {
                const extend = () => extendHold(ctx.h.db, { tenant, reference, totalCents: call.rate * m, at: new Date() });
                const extended = await extend();
                if (!extended.ok) break;
                held = call.rate * m;
                if (call.retried) expect(await extend()).toEqual(extended);
              }
              const end = async () => {
                if (call.end === 'open') return void open.push(reference);
                if (call.end === 'release') return releaseHold(ctx.h.db, { tenant, reference, at: new Date() });
                const settle = () =>
                  settleHold(ctx.h.db, {
                    tenant,
                    reference,
                    chargeCents: Math.floor(held * call.chargeShare),
                    type: 'call_charge',
                    description: 'Call',
                    at: new Date(),
                  });
                const first = await settle();
                expect(first.heldCents).toBe(held);
                if (call.retried) expect((await settle()).transaction?.id).toBe(first.transaction?.id);
              };
              if (call.endsEarly) await end();
              else late.push(end);
            }),
          );
          // Every late hold is still active here: together they must fit the balance and the cap.
          await expectBooksKept();
          await Promise.all(late.map((end) => end()));
          const totals = await expectBooksKept();
          // Open holds end released, so every run races at the edge of what is left.
          await Promise.all(open.map((reference) => releaseHold(ctx.h.db, { tenant, reference, at: new Date() })));
          expect(await heldTotals()).toEqual({ onAccount: 0, ofHolds: 0, balance: totals.balance });
        },
      ),
      { numRuns: 30 },
    );
  });

  it('migration 0019 sets each account’s held total to what its active holds set aside', async () => {
    await placeHold(ctx.h.db, { tenant, keyId: null, reference: `call:${crypto.randomUUID()}`, amountCents: 120, at: new Date() });
    await placeHold(ctx.h.db, { tenant, keyId: null, reference: `call:${crypto.randomUUID()}`, amountCents: 30, at: new Date() });
    await ctx.h
      .db('billing_accounts')
      .where({ workspace_id: tenant.workspaceId, environment: tenant.environment })
      .update({ held_cents: 0 });
    expect(await backfillHeldCents(ctx.h.db)).toBeGreaterThanOrEqual(1);
    expect(await heldTotals()).toMatchObject({ onAccount: 150, ofHolds: 150 });
    expect(await backfillHeldCents(ctx.h.db)).toBe(0);
  });
});
