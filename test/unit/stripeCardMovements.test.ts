import type Stripe from 'stripe';
import { cardMovementsOfEvent } from '../../src/adapters/payments/callbacks/stripe';
import fixtures from '../fixtures/stripe/fixtures3-subset.json';

/**
 * Stripe's refund and dispute events as money on a charge, read from Stripe's own example objects
 * (`stripe/openapi` fixtures, test/fixtures/stripe) with only the scenario's fields set.
 */
describe('cardMovementsOfEvent', () => {
  const event = (type: string, object: Record<string, unknown>) =>
    ({ ...structuredClone(fixtures.event), type, data: { object } }) as unknown as Stripe.Event;
  const refund = (fields: Record<string, unknown> = {}) => ({ ...structuredClone(fixtures.refund), payment_intent: 'pi_1', ...fields });
  const dispute = (fields: Record<string, unknown> = {}) => ({ ...structuredClone(fixtures.dispute), payment_intent: 'pi_1', ...fields });
  const transaction = (amount: number, currency = 'usd') => ({ ...structuredClone(fixtures.balance_transaction), amount, currency });
  const id = fixtures.refund.id;

  it('a refund moves its own amount back to the card, whichever refund event carries it', () => {
    for (const type of ['refund.created', 'refund.updated', 'charge.refund.updated'])
      expect(cardMovementsOfEvent(event(type, refund({ status: 'pending' })))).toEqual({
        chargeId: 'pi_1',
        movements: [{ kind: 'refund', amountCents: 100, reference: `refund:${id}`, objectId: id }],
      });
  });

  it('a failed or canceled refund carries the refund and its failure, so they post together', () => {
    for (const status of ['failed', 'canceled'])
      expect(cardMovementsOfEvent(event('refund.failed', refund({ status, amount: 700 })))!.movements).toEqual([
        { kind: 'refund', amountCents: 700, reference: `refund:${id}`, objectId: id },
        { kind: 'refund_failure', amountCents: 700, reference: `refund:${id}:failure`, objectId: id },
      ]);
  });

  it('charge.refunded moves the refunds it lists (API versions before 2022-11-15), and nothing without the list', () => {
    const charge = { ...structuredClone(fixtures.charge), payment_intent: 'pi_1', amount_refunded: 300 };
    const listed = {
      ...charge,
      refunds: { ...charge.refunds, data: [refund({ id: 're_a', amount: 100 }), refund({ id: 're_b', amount: 200 })] },
    };
    expect(cardMovementsOfEvent(event('charge.refunded', listed))!.movements.map((m) => [m.reference, m.amountCents])).toEqual([
      ['refund:re_a', 100],
      ['refund:re_b', 200],
    ]);
    const { refunds: _omitted, ...unlisted } = charge;
    expect(cardMovementsOfEvent(event('charge.refunded', unlisted))).toEqual({ chargeId: 'pi_1', movements: [] });
  });

  it('a dispute moves what its balance transactions moved; an inquiry without them moves nothing', () => {
    const dp = fixtures.dispute.id;
    // Stripe's example is an inquiry (`warning_needs_response`, no balance transactions).
    expect(cardMovementsOfEvent(event('charge.dispute.created', dispute()))).toEqual({ chargeId: 'pi_1', movements: [] });
    const withdrawn = dispute({ status: 'needs_response', balance_transactions: [transaction(-1000)] });
    expect(cardMovementsOfEvent(event('charge.dispute.created', withdrawn))!.movements).toEqual([
      { kind: 'dispute', amountCents: 1000, reference: `dispute:${dp}:funds_withdrawn`, objectId: dp },
    ]);
    const won = dispute({ status: 'won', balance_transactions: [transaction(-1000), transaction(600)] });
    expect(cardMovementsOfEvent(event('charge.dispute.closed', won))!.movements.map((m) => [m.kind, m.amountCents])).toEqual([
      ['dispute', 1000],
      ['dispute_reversal', 600],
    ]);
  });

  it('without balance transactions, the event or the outcome says what moved: the disputed amount', () => {
    const bare = (status: string) => dispute({ status, balance_transactions: [] });
    const kinds = (type: string, status: string) => cardMovementsOfEvent(event(type, bare(status)))!.movements.map((m) => m.kind);
    expect(kinds('charge.dispute.funds_withdrawn', 'needs_response')).toEqual(['dispute']);
    expect(kinds('charge.dispute.closed', 'lost')).toEqual(['dispute']);
    expect(kinds('charge.dispute.funds_reinstated', 'under_review')).toEqual(['dispute', 'dispute_reversal']);
    expect(kinds('charge.dispute.closed', 'won')).toEqual(['dispute', 'dispute_reversal']);
    expect(kinds('charge.dispute.closed', 'warning_closed')).toEqual([]);
    // A settlement currency other than the dollar: the disputed amount, in the charge's dollars.
    const foreign = dispute({ status: 'needs_response', balance_transactions: [transaction(-920, 'eur')] });
    expect(cardMovementsOfEvent(event('charge.dispute.funds_withdrawn', foreign))!.movements[0].amountCents).toBe(1000);
  });

  it('moves nothing in another currency, names no charge without a PaymentIntent, and ignores other events', () => {
    expect(cardMovementsOfEvent(event('refund.created', refund({ currency: 'eur' })))!.movements).toEqual([]);
    expect(cardMovementsOfEvent(event('refund.created', refund({ payment_intent: null })))).toBeNull();
    expect(cardMovementsOfEvent(event('charge.dispute.created', { ...structuredClone(fixtures.dispute) }))).toBeNull();
    expect(cardMovementsOfEvent(event('charge.succeeded', { ...structuredClone(fixtures.charge), payment_intent: 'pi_1' }))).toBeNull();
    expect(cardMovementsOfEvent(event('charge.dispute.updated', dispute()))).toBeNull();
  });
});
