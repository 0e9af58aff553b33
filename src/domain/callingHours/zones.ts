import { numberKind } from '../../platform/phone';
import data from './data/callingZones.json';

/**
 * Where a number's subscriber may be, from Google libphonenumber's published maps (vendored in
 * data/callingZones.json with its source and version; `npm run -s data:calling-zones` regenerates it).
 */
const ZONES: Record<string, readonly string[]> = data.zones;
const US_STATE_OF_AREA_CODE: Record<string, string> = data.us_state_of_area_code;
/** The longest prefix in the map: no key is longer than this. */
const LONGEST_PREFIX = Math.max(...Object.keys(ZONES).map((prefix) => prefix.length));

export interface NumberPlace {
  /** The IANA time zones the number may be in (longest matching prefix); empty when the map knows none or the number is a service's (toll-free). */
  zones: readonly string[];
  /** The US state of a North American area code (USPS code, e.g. `TX`), null elsewhere (Canada, the Caribbean, other countries). */
  usState: string | null;
  /** The number's country (ISO 3166, libphonenumber's region), null when it has none (non-geographic services). */
  country: string | null;
}

/** libphonenumber's number types that name a service, not a subscriber's place. */
const SERVICE_NUMBER_TYPES = new Set(['TOLL_FREE', 'SHARED_COST', 'UAN']);

/** The zones, country and US state of an E.164 number (`+14155550123`). */
export function placeOfNumber(e164: string): NumberPlace {
  const digits = e164.replace(/^\+/, '');
  let zones: readonly string[] = [];
  for (let length = Math.min(LONGEST_PREFIX, digits.length); length > 0; length -= 1) {
    const found = ZONES[digits.slice(0, length)];
    if (found) {
      zones = found;
      break;
    }
  }
  // libphonenumber names non-geographic numbers (international networks, satellite services) "Etc/Unknown";
  // service numbers (toll-free, shared-cost, universal access) ring wherever their owner routes them: no place either.
  const kind = numberKind(e164);
  zones = kind.type && SERVICE_NUMBER_TYPES.has(kind.type) ? [] : zones.filter((zone) => zone !== 'Etc/Unknown');
  const usState = digits.startsWith('1') && digits.length === 11 ? (US_STATE_OF_AREA_CODE[digits.slice(1, 4)] ?? null) : null;
  return { zones, usState, country: kind.country ?? null };
}
