import { getCountries, getCountryCallingCode, Metadata } from 'libphonenumber-js';
import { parsePhoneNumberFromString as parseWithTypes } from 'libphonenumber-js/max';
import { E164_MAX_DIGITS, possibleNumber } from './phoneParse';

/**
 * Phone numbers arrive in many forms and are stored in one: E.164. Anything that does not
 * parse as a possible number is refused rather than guessed at.
 */
export function toE164(input: string): string | undefined {
  return possibleNumber(input.trim())?.number;
}

/**
 * The country and the numbering plan's type of an E.164 number (libphonenumber's full metadata):
 * e.g. `{country: 'US', type: 'TOLL_FREE'}` for +1 8xx. Undefined parts when the number says nothing.
 */
export function numberKind(e164: string): { country?: string; type?: string } {
  const parsed = parseWithTypes(e164);
  return { country: parsed?.country, type: parsed?.getType() };
}

/**
 * The E.164 numbers `toE164` accepts unchanged in shape, as a JSON Schema pattern: `+`, a country
 * calling code, then a national number of a length every country sharing that code allows
 * (libphonenumber's metadata, the library `toE164` asks), at most `E164_MAX_DIGITS` in all. The OpenAPI document states it for every
 * phone number a request carries, and the API validates with it (api/openapi/fields.ts).
 */
export const E164_PATTERN = (() => {
  const metadata = new Metadata();
  const lengthsByCode = new Map<string, number[][]>();
  for (const country of getCountries()) {
    metadata.selectNumberingPlan(country);
    const code = getCountryCallingCode(country);
    lengthsByCode.set(code, [...(lengthsByCode.get(code) ?? []), metadata.numberingPlan?.possibleLengths() ?? []]);
  }
  const alternatives = [...lengthsByCode]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([code, lengthSets]) => {
      const shared = lengthSets[0]
        .filter((length) => lengthSets.every((lengths) => lengths.includes(length)) && code.length + length <= E164_MAX_DIGITS)
        .sort((a, b) => a - b);
      return shared.length > 0 ? [`${code}(?:${lengthRanges(shared)})`] : [];
    });
  return `^\\+(?:${alternatives.join('|')})$`;
})();

/** `[0-9]{7}|[0-9]{9,10}` for lengths 7, 9, 10. */
function lengthRanges(lengths: number[]): string {
  const ranges: Array<[number, number]> = [];
  for (const length of lengths) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === length - 1) last[1] = length;
    else ranges.push([length, length]);
  }
  return ranges.map(([from, to]) => (from === to ? `[0-9]{${from}}` : `[0-9]{${from},${to}}`)).join('|');
}
