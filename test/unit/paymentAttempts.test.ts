import { autoRechargeCredit } from '../../src/domain/billing/paymentAttempts';

describe('the credit of a charged auto-recharge (src/domain/billing/paymentAttempts.ts)', () => {
  it('credits the amount once under the charge key, naming the processor charge', () => {
    const at = new Date('2026-11-28T12:00:00Z');
    const tenant = { workspaceId: 'ws_1', environment: 'live' as const };
    expect(autoRechargeCredit(tenant, { amountCents: 2000, chargeId: 'ch_1', idempotencyKey: 'auto-charge:ws_1:live:a1' }, at)).toEqual({
      tenant,
      type: 'auto_recharge',
      amountCents: 2000,
      description: 'Automatic recharge of the card on file (ch_1)',
      idempotencyRef: 'auto-charge:ws_1:live:a1',
      referenceId: 'ch_1',
      referenceType: 'card_charge',
      at,
    });
  });
});
