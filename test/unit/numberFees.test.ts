import {
  NUMBER_FEE_CENTS_PER_MONTH,
  numberFeeCents,
  numberFeePosting,
  numberFeeRef,
  owesNumberFee,
} from '../../src/domain/billing/numberFees';

describe('number fees', () => {
  const march = new Date('2030-03-01T00:00:00Z');
  const at = (iso: string) => new Date(iso);
  const line = (activated: string | null, grace: string | null = null, released: string | null = null) => ({
    activated_at: activated ? at(activated) : null,
    grace_ends_at: grace ? at(grace) : null,
    released_at: released ? at(released) : null,
  });

  it('is $2.50 a month', () => expect(NUMBER_FEE_CENTS_PER_MONTH).toBe(250));

  it('is $2.50 for a local or mobile number and $5.00 for a toll-free one', () => {
    expect([numberFeeCents('local'), numberFeeCents('mobile'), numberFeeCents('toll_free')]).toEqual([250, 250, 500]);
  });

  it('bills a whole month for any part of it held, never a line that never had a number', () => {
    expect(owesNumberFee(line('2030-03-31T23:59:59.999Z'), march)).toBe(true);
    expect(owesNumberFee(line('2030-04-01T00:00:00Z'), march)).toBe(false);
    expect(owesNumberFee(line('2029-01-01T00:00:00Z'), march)).toBe(true);
    expect(owesNumberFee(line(null), march)).toBe(false);
  });

  it('bills nothing inside the grace, and the month the grace ends in', () => {
    expect(owesNumberFee(line('2030-03-10T00:00:00Z', '2030-04-09T00:00:00Z'), march)).toBe(false);
    expect(owesNumberFee(line('2030-03-10T00:00:00Z', '2030-04-09T00:00:00Z'), new Date('2030-04-01T00:00:00Z'))).toBe(true);
    expect(owesNumberFee(line('2030-02-10T00:00:00Z', '2030-03-12T00:00:00Z'), march)).toBe(true);
    // Released inside its grace: never billed.
    expect(
      owesNumberFee(line('2030-03-10T00:00:00Z', '2030-04-09T00:00:00Z', '2030-04-01T00:00:00Z'), new Date('2030-04-01T00:00:00Z')),
    ).toBe(false);
    expect(
      owesNumberFee(line('2030-03-10T00:00:00Z', '2030-04-09T00:00:00Z', '2030-04-05T00:00:00Z'), new Date('2030-04-01T00:00:00Z')),
    ).toBe(false);
  });

  it('bills the month of release, not the months after', () => {
    expect(owesNumberFee(line('2030-01-10T00:00:00Z', null, '2030-03-01T00:00:01Z'), march)).toBe(true);
    expect(owesNumberFee(line('2030-01-10T00:00:00Z', null, '2030-03-01T00:00:00Z'), march)).toBe(false);
    expect(owesNumberFee(line('2030-01-10T00:00:00Z', null, '2030-02-20T00:00:00Z'), march)).toBe(false);
  });

  it('keys each fee by line and month', () => {
    expect(numberFeeRef('l1', march)).toBe('number_fee:l1:2030-03');
  });

  it('posts each fee as a debit of the line, paid by the key that bought the number', () => {
    const posting = { workspace_id: 'ws1', environment: 'live' as const, created_by_key_id: 'k1' };
    const now = at('2030-04-01T01:00:00Z');
    expect(numberFeePosting({ id: 'l1', phone_number: '+14155550100', number_type: 'toll_free', ...posting }, march, now)).toEqual({
      tenant: { workspaceId: 'ws1', environment: 'live' },
      type: 'number_fee',
      amountCents: -500,
      description: 'Phone number +14155550100, 2030-03',
      idempotencyRef: 'number_fee:l1:2030-03',
      referenceId: 'l1',
      referenceType: 'line',
      actorKeyId: 'k1',
      lineId: 'l1',
      at: now,
    });
    // A line whose number is gone is named by its id.
    expect(numberFeePosting({ id: 'l2', phone_number: null, number_type: 'local', ...posting }, march, now).description).toBe(
      'Phone number l2, 2030-03',
    );
  });
});
