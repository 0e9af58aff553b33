import { eventually, expectThat, type Check } from './runner';
import { AMOUNT_CENTS, autoCharge, ledgerEntry, visa, type StripeSession } from './stripeSession';

/**
 * Money Stripe moves back by itself on an auto-recharge, and how the customer's ledger mirrors
 * it from test-mode webhooks (docs/carriers.md, Stripe "Refunds made on Stripe", "Chargebacks"):
 * `card_refund` per refund, `card_dispute` when a chargeback withdraws the funds (auto-recharge
 * turned off), `card_dispute_reversal` when the dispute is won.
 */

const PARTIAL_CENTS = 200;

export const reversalChecks: Check<StripeSession>[] = [
  {
    id: 'refund',
    title: 'Refunds of that charge, partial then the rest, are taken off the ledger',
    budgetMs: 6 * 60_000,
    async run(session, log) {
      const charge = await visa(session, log);
      expectThat(charge.intent.status === 'succeeded', `no successful charge to refund (the intent is ${charge.intent.status})`);
      const seen: string[] = [];
      for (const amount of [PARTIAL_CENTS, undefined]) {
        const since = Date.now() - 5_000;
        const refund = await session.stripe.refunds.create({
          payment_intent: charge.intent.id,
          ...(amount ? { amount } : {}),
          metadata: { switchboard_smoke: session.runId },
        });
        const entry = await ledgerEntry(
          charge.api,
          `a card_refund of -${refund.amount} ¢ for refund ${refund.id}`,
          (t) => t.type === 'card_refund' && t.amount_cents === -refund.amount && Date.parse(t.created_at) >= since,
        );
        seen.push(`${refund.id} ${refund.amount} ¢ → ${entry.type} ${entry.amount_cents} ¢ (balance ${entry.balance_after_cents} ¢)`);
      }
      return seen.join('; ');
    },
  },
  {
    id: 'dispute',
    title: 'A chargeback is taken off the ledger and stops auto-recharge; won, it is given back',
    budgetMs: 10 * 60_000,
    async run(session, log) {
      const charge = await autoCharge(session, 'pm_card_createDispute', log);
      const { intent } = charge;
      expectThat(intent.status === 'succeeded', `Stripe's intent ${intent.id} is ${intent.status}; pm_card_createDispute charges succeed`);
      const dispute = await eventually(
        `Stripe opening a dispute on ${intent.id}`,
        async () => (await session.stripe.disputes.list({ payment_intent: intent.id, limit: 1 })).data[0],
        { timeoutMs: 120_000, everyMs: 5_000 },
      );
      const withdrawn = await ledgerEntry(
        charge.api,
        `a card_dispute of -${dispute.amount} ¢ for ${dispute.id}`,
        (t) => t.type === 'card_dispute' && t.amount_cents === -dispute.amount,
      );
      const settings = await charge.api.settings();
      expectThat(!settings.auto_recharge_enabled, `auto-recharge is still on after the chargeback ${dispute.id}`);
      // Stripe's test mode decides a dispute by its evidence text (docs.stripe.com/testing#disputes).
      await session.stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: 'winning_evidence' }, submit: true });
      const reinstated = await ledgerEntry(
        charge.api,
        `a card_dispute_reversal of ${dispute.amount} ¢ once ${dispute.id} is won`,
        (t) => t.type === 'card_dispute_reversal' && t.amount_cents === dispute.amount,
        5 * 60_000,
      );
      return (
        `${intent.id} (${AMOUNT_CENTS} ¢) disputed as ${dispute.id}: ${withdrawn.type} ${withdrawn.amount_cents} ¢ and auto-recharge off; ` +
        `won: ${reinstated.type} ${reinstated.amount_cents} ¢`
      );
    },
  },
];
