import { parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * Phone numbers arrive in many forms and are stored in one: E.164. Anything that does not
 * parse as a possible number is refused rather than guessed at.
 */
export function toE164(input: string): string | undefined {
  const parsed = parsePhoneNumberFromString(input.trim(), { extract: false });
  if (!parsed || !parsed.isPossible()) return undefined;
  return parsed.number;
}
