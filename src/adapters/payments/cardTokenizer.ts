import crypto from 'node:crypto';
import { CardDeclinedChargeError, PaymentRequestRejectedError, type CardEntry, type CardVault, type SavedCard } from './port';

/**
 * The card processor as Switchboard sees it. The default is a simulator that behaves like
 * a processor's test mode: documented test card numbers approve or decline.
 */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
}

export interface TokenizedCard {
  token: string;
  brand: string;
  last4: string;
}

export class CardDeclinedError extends Error {
  constructor(readonly reason: string) {
    super(`card declined: ${reason}`);
    this.name = 'CardDeclinedError';
  }
}

export interface CardTokenizer {
  tokenize(card: CardDetails, now: Date): Promise<TokenizedCard>;
}

/** Test cards that the simulated processor refuses, and why. */
export const DECLINING_TEST_CARDS: Readonly<Record<string, string>> = {
  '4000000000000002': 'generic_decline',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
};

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i += 1) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function cardBrand(number: string): string {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^6(011|5)/.test(number)) return 'discover';
  return 'unknown';
}

export class SimulatedCardTokenizer implements CardTokenizer {
  async tokenize(card: CardDetails, now: Date): Promise<TokenizedCard> {
    const number = card.number.replace(/[\s-]/g, '');
    if (!luhnValid(number)) throw new CardDeclinedError('invalid_number');
    const decline = DECLINING_TEST_CARDS[number];
    if (decline) throw new CardDeclinedError(decline);
    const expiresAfter = Date.UTC(card.expYear, card.expMonth, 1); // first day of the month after expiry
    if (!(card.expMonth >= 1 && card.expMonth <= 12) || expiresAfter <= now.getTime()) throw new CardDeclinedError('expired_card');
    return { token: `simcard_${crypto.randomUUID()}`, brand: cardBrand(number), last4: number.slice(-4) };
  }
}

/** The simulator's card vault: a test card number, tokenised here (it never leaves this process). */
export class SimulatedCardVault implements CardVault {
  readonly accepts = 'card_number';

  async save(entry: CardEntry, now: Date): Promise<SavedCard> {
    if (entry.kind !== 'card_number') throw new PaymentRequestRejectedError('the simulated processor takes a card number');
    try {
      const card = await new SimulatedCardTokenizer().tokenize(entry, now);
      return { ...card, expMonth: entry.expMonth, expYear: entry.expYear };
    } catch (err) {
      if (err instanceof CardDeclinedError) throw new CardDeclinedChargeError(err.reason);
      throw err;
    }
  }
}
