import { addPaymentMethod, parseCardExpiry } from '../../src/domain/billing/addPaymentMethod';
import { SimulatedCardVault } from '../../src/adapters/payments/cardTokenizer';
import { StripeCardVault } from '../../src/adapters/payments/stripeCards';
import type { Db } from '../../src/platform/db/knex';

/** The refusals of `addPaymentMethod`, the use case of the CLI's `payment-method add` and the portal's card form: none reaches the database. */
describe('addPaymentMethod', () => {
  const untouched = () => {
    throw new Error('a refused card must not reach the database');
  };
  const noDb = new Proxy(untouched, { apply: untouched, get: untouched }) as unknown as Db;
  const deps = { db: noDb, now: () => new Date('2026-11-26T12:00:00Z') };
  const owner = { workspaceId: 'w', userId: 'u', environment: 'test' as const };
  const noStripe = () => {
    throw new Error('Stripe must not be asked');
  };

  it('refuses a card number where the processor is Stripe, and a pm_ id where it is the simulator, before asking either', async () => {
    const typed = { kind: 'card_number' as const, number: '4242424242424242', expMonth: 12, expYear: 2039 };
    const onStripe = await addPaymentMethod(deps, new StripeCardVault(noStripe), owner, typed, true);
    expect(onStripe).toMatchObject({ ok: false, refused: 'wrong_entry', message: expect.stringContaining('never a card number') });
    expect(JSON.stringify(onStripe)).not.toContain('4242424242424242');
    const onSimulator = await addPaymentMethod(
      deps,
      new SimulatedCardVault(),
      owner,
      { kind: 'stripe_payment_method', paymentMethodId: 'pm_x' },
      true,
    );
    expect(onSimulator).toMatchObject({ ok: false, refused: 'wrong_entry' });
  });

  it("answers the simulator's declines and malformed numbers as refusals", async () => {
    const card = (number: string, expYear = 2039) => ({ kind: 'card_number' as const, number, expMonth: 12, expYear });
    const vault = new SimulatedCardVault();
    await expect(addPaymentMethod(deps, vault, owner, card('4000000000000002'), true)).resolves.toEqual({
      ok: false,
      refused: 'card_declined',
      declineCode: 'generic_decline',
      message: 'the card was declined (generic_decline)',
    });
    await expect(addPaymentMethod(deps, vault, owner, card('4242424242424241'), true)).resolves.toMatchObject({
      refused: 'card_declined',
      declineCode: 'invalid_number',
    });
    await expect(addPaymentMethod(deps, vault, owner, card('4242424242424242', 2025), true)).resolves.toMatchObject({
      refused: 'card_declined',
      declineCode: 'expired_card',
    });
  });

  it('reads an expiry typed MM/YY or MM/YYYY', () => {
    expect(parseCardExpiry('12/39')).toEqual({ expMonth: 12, expYear: 2039 });
    expect(parseCardExpiry(' 1 / 2040 ')).toEqual({ expMonth: 1, expYear: 2040 });
    for (const bad of ['13-39', '1239', '12/3', '', 'ab/cd']) expect(parseCardExpiry(bad)).toBeUndefined();
  });
});
