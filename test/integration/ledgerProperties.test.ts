import crypto from 'node:crypto';
import fc from 'fast-check';
import { extendHold, placeHold, settleHold } from '../../src/domain/billing/holds';
import { balanceOf, post, type BillingTenant } from '../../src/domain/billing/ledger';
import { callChargeCents, ratePerMinuteCents, ZONES } from '../../src/domain/billing/pricing';
import { useHarness } from '../support/harness';

/** Properties of the books, checked against the real database. */
describe('ledger properties', () => {
  const ctx = useHarness();
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
    await post(ctx.h.db, {
      tenant,
      type: 'credit_purchase',
      amountCents: 10_000_000,
      description: 'funds',
      idempotencyRef: `funds:${crypto.randomUUID()}`,
      at: new Date(),
    });
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
});
