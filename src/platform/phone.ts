import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { parsePhoneNumberFromString as parseWithTypes } from 'libphonenumber-js/max';

/**
 * Phone numbers arrive in many forms and are stored in one: E.164. Anything that does not
 * parse as a possible number is refused rather than guessed at.
 */
export function toE164(input: string): string | undefined {
  const parsed = parsePhoneNumberFromString(input.trim(), { extract: false });
  if (!parsed || !parsed.isPossible()) return undefined;
  return parsed.number;
}

/**
 * The country and the numbering plan's type of an E.164 number (libphonenumber's full metadata):
 * e.g. `{country: 'US', type: 'TOLL_FREE'}` for +1 8xx. Undefined parts when the number says nothing.
 */
export function numberKind(e164: string): { country?: string; type?: string } {
  const parsed = parseWithTypes(e164);
  return { country: parsed?.country, type: parsed?.getType() };
}
