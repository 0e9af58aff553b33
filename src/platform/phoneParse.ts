import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js';

/**
 * ITU-T E.164 allows at most 15 digits, country code included. libphonenumber's metadata allows longer national
 * numbers for a few codes (Japan: up to 17 digits after +81), which no carrier dials as E.164: they are not numbers here.
 */
export const E164_MAX_DIGITS = 15;

/** How many parsed numbers a process keeps (a few MB at most). */
const PARSED_NUMBERS_KEPT = 5_000;
const parsedNumbers = new Map<string, PhoneNumber | undefined>();

/**
 * `text` parsed as a possible phone number of at most `E164_MAX_DIGITS` (undefined when it is not one). A parse costs 10–25 µs, and one request
 * asks about the same number more than once (an SMS: its destination's E.164 form in phone.ts `toE164`, then its
 * billing zone in domain/billing/pricing.ts), so the latest answers are kept. A parse depends only on the text and the
 * metadata bundled with the library, so a kept answer never goes stale; the oldest is dropped past PARSED_NUMBERS_KEPT.
 * Callers must not change what they get.
 */
export function possibleNumber(text: string): PhoneNumber | undefined {
  if (parsedNumbers.has(text)) return parsedNumbers.get(text);
  const parsed = parsePhoneNumberFromString(text, { extract: false });
  const possible = parsed?.isPossible() && parsed.number.length <= E164_MAX_DIGITS + 1 ? parsed : undefined;
  if (parsedNumbers.size >= PARSED_NUMBERS_KEPT) parsedNumbers.delete(parsedNumbers.keys().next().value!);
  parsedNumbers.set(text, possible);
  return possible;
}
