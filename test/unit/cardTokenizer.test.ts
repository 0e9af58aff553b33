import fc from 'fast-check';
import { CardDeclinedError, cardBrand, luhnValid, SimulatedCardTokenizer } from '../../src/adapters/payments/cardTokenizer';

/** Appends the Luhn check digit to a digit string. */
function withCheckDigit(body: string): string {
  for (let d = 0; d <= 9; d += 1) if (luhnValid(body + d)) return body + d;
  throw new Error('unreachable');
}

describe('simulated card processor', () => {
  const now = new Date('2026-11-23T00:00:00Z');
  const processor = new SimulatedCardTokenizer();

  it('Luhn: exactly one check digit completes any body; changing one digit breaks it', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{11,18}$/), fc.nat(9), (body, replacement) => {
        const card = withCheckDigit(body);
        expect([...Array(10).keys()].filter((d) => luhnValid(body + d))).toHaveLength(1);
        const position = body.length - 1;
        const altered = card.slice(0, position) + String(replacement) + card.slice(position + 1);
        expect(luhnValid(altered)).toBe(altered === card);
      }),
    );
  });

  it('tokenises good cards without keeping the number', async () => {
    const card = await processor.tokenize({ number: '4242 4242 4242 4242', expMonth: 12, expYear: 2030 }, now);
    expect(card).toMatchObject({ brand: 'visa', last4: '4242' });
    // A random UUID names the card; it may hold a few 4s and 2s, never the number's 16 digits.
    expect(card.token).toMatch(/^simcard_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(card.token).not.toContain('4242424242424242');
    expect(cardBrand('5555555555554444')).toBe('mastercard');
  });

  it.each([
    ['4000000000000002', 12, 2030, 'generic_decline'],
    ['4000000000009995', 12, 2030, 'insufficient_funds'],
    ['4242424242424241', 12, 2030, 'invalid_number'],
    ['4242424242424242', 10, 2026, 'expired_card'],
    ['4242424242424242', 13, 2030, 'expired_card'],
  ])('declines %s (%i/%i) as %s', async (number, expMonth, expYear, reason) => {
    await expect(processor.tokenize({ number, expMonth, expYear }, now)).rejects.toEqual(new CardDeclinedError(reason));
  });

  it('accepts a card in its expiry month', async () => {
    await expect(processor.tokenize({ number: '4242424242424242', expMonth: 11, expYear: 2026 }, now)).resolves.toMatchObject({
      last4: '4242',
    });
  });
});
