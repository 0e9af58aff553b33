import { possibleNumber } from '../../platform/phoneParse';
import type { LineMode } from '../lines/rules';

/**
 * Prices for voice and SMS. Pure: no I/O, no clock, no randomness, no node:* imports, so
 * Temporal workflow code may import it (the `LineMode` import is type-only and erased).
 *
 * Money is integer cents everywhere. No value here is ever a fractional amount of money:
 * the only division is the final, exact integer ceiling in `callChargeCents`.
 */

export type { LineMode };
export type Zone = 'A' | 'B' | 'C';

export const ZONES: readonly Zone[] = ['A', 'B', 'C'];

export interface ZoneTable {
  /** ISO 3166-1 alpha-2 regions billed at Zone A prices. */
  readonly a: readonly string[];
  /** ISO 3166-1 alpha-2 regions billed at Zone B prices. Everything else is Zone C. */
  readonly b: readonly string[];
}

/**
 * Zone A: the spec's "US/Canada". US territories that share the North American Numbering Plan
 * (Puerto Rico, US Virgin Islands, Guam, Northern Mariana Islands, American Samoa) are the US
 * for billing and so are Zone A. The independent NANP countries (Jamaica, Bahamas, Dominican
 * Republic, ...) share +1 but are foreign destinations: Zone C.
 */
export const ZONE_A_REGIONS: readonly string[] = ['US', 'CA', 'PR', 'VI', 'GU', 'MP', 'AS'];

/**
 * Zone B: western Europe, the UK, Australia/New Zealand, Japan, Singapore and Israel.
 * Territories that share one of these countries' numbering plans are listed with it, because
 * libphonenumber reports them as their own region and a caller cannot tell them apart by the
 * number's prefix:
 * - GG, JE, IM (Guernsey, Jersey, Isle of Man) share +44 with GB; e.g. +447911... is a
 *   Guernsey mobile range;
 * - AX (Åland) shares +358 with FI; SJ (Svalbard) shares +47 with NO; VA (Vatican) shares
 *   +39 with IT; CC, CX (Cocos, Christmas Islands) share +61 with AU.
 */
export const ZONE_B_COUNTRIES: readonly string[] = [
  // United Kingdom, Ireland and the Crown Dependencies
  'GB',
  'GG',
  'JE',
  'IM',
  'IE',
  // Western Europe
  'FR',
  'DE',
  'NL',
  'BE',
  'LU',
  'ES',
  'PT',
  'IT',
  'VA',
  'AT',
  'CH',
  // Nordics
  'DK',
  'SE',
  'NO',
  'SJ',
  'FI',
  'AX',
  'IS',
  // Asia-Pacific and the Middle East
  'AU',
  'CC',
  'CX',
  'NZ',
  'JP',
  'SG',
  'IL',
];

export const DEFAULT_ZONE_TABLE: ZoneTable = { a: ZONE_A_REGIONS, b: ZONE_B_COUNTRIES };

export class InvalidNumberError extends Error {
  constructor(readonly number: string) {
    super(`not a valid E.164 phone number: ${JSON.stringify(number)}`);
    this.name = 'InvalidNumberError';
  }
}

const E164_SHAPE = /^\+[0-9]+$/;

/**
 * The billing zone of an E.164 number ("+" and digits only). Throws `InvalidNumberError` when the
 * string is not E.164 or libphonenumber cannot parse it or it has an impossible length for its
 * country code. Numbers without a region (non-geographic codes such as +800, +882) are Zone C.
 */
export function zoneOf(e164: string, table: ZoneTable = DEFAULT_ZONE_TABLE): Zone {
  // "+" and digits, then the API's own rule of a possible number (src/platform/phoneParse.ts, at most 15 digits).
  const parsed = typeof e164 === 'string' && E164_SHAPE.test(e164) ? possibleNumber(e164) : undefined;
  if (!parsed) throw new InvalidNumberError(e164);
  const region = parsed.country;
  if (region === undefined) return 'C';
  if (table.a.includes(region)) return 'A';
  if (table.b.includes(region)) return 'B';
  return 'C';
}

/**
 * The billing zone of an inbound call's caller id. A withheld or malformed caller id (recorded as
 * `anonymous`) has no zone of its own and is billed at the highest rate, Zone C.
 */
export function callerZone(callerId: string, table: ZoneTable = DEFAULT_ZONE_TABLE): Zone {
  try {
    return zoneOf(callerId, table);
  } catch {
    return 'C';
  }
}

/** Spec: Zone B is 2 times and Zone C is 3 times the Zone A price. */
export const ZONE_MULTIPLIER: Readonly<Record<Zone, number>> = { A: 1, B: 2, C: 3 };

/**
 * Zone A voice price in cents per minute (billed per second, see `callChargeCents`).
 * webhook 13 and hosted 26 are the spec. audio 9 is our decision: an audio line only relays raw
 * call audio to the customer's handler (no speech recognition, no speech synthesis, no model on
 * our side), so it costs us less than webhook mode, which transcribes and speaks for the agent.
 */
export const ZONE_A_RATE_CENTS_PER_MINUTE: Readonly<Record<LineMode, number>> = { webhook: 13, hosted: 26, audio: 9, agent: 13 };

export function ratePerMinuteCents(mode: LineMode, zone: Zone): number {
  const base = ZONE_A_RATE_CENTS_PER_MINUTE[mode];
  const multiplier = ZONE_MULTIPLIER[zone];
  if (base === undefined) throw new RangeError(`unknown line mode: ${String(mode)}`);
  if (multiplier === undefined) throw new RangeError(`unknown zone: ${String(zone)}`);
  return base * multiplier;
}

/**
 * Spec: `insufficient_credits` (402) when the balance is below the one-minute voice reserve, i.e.
 * one minute at the line's rate in the destination's zone.
 */
export function oneMinuteReserveCents(mode: LineMode, zone: Zone): number {
  return ratePerMinuteCents(mode, zone);
}

/**
 * Whole seconds billed for a call of `durationMs` milliseconds, rounded up: a started second is a
 * billed second (1 ms → 1, 1000 ms → 1, 1001 ms → 2, 0 ms → 0). Durations are non-negative safe
 * integers of milliseconds; anything else is a RangeError.
 */
export function billableSeconds(durationMs: number): number {
  if (!Number.isSafeInteger(durationMs) || durationMs < 0) {
    throw new RangeError(`durationMs must be a non-negative safe integer, got ${String(durationMs)}`);
  }
  return ceilDiv(durationMs, 1000);
}

/**
 * The charge in cents for a call: ceil(ratePerMinute × billableSeconds / 60), rounded ONCE per
 * call up to the next whole cent, never per minute or per second. Computed in integer arithmetic
 * (the exact equivalent of `Math.floor((rate * secs + 59) / 60)` without a fractional
 * intermediate).
 *
 * Example: a 61 s Zone A webhook call = ceil(13 × 61 / 60) = ceil(13.2166…) = 14 cents
 * (not 26, as per-minute rounding would give). Exactly 60 s costs the per-minute rate; 1 ms
 * costs ceil(rate / 60), i.e. 1 cent for Zone A webhook.
 */
export function callChargeCents(mode: LineMode, zone: Zone, durationMs: number): number {
  const rate = ratePerMinuteCents(mode, zone);
  const secs = billableSeconds(durationMs);
  const centSeconds = rate * secs;
  if (!Number.isSafeInteger(centSeconds + 59)) throw new RangeError(`call of ${durationMs} ms is too long to price`);
  return ceilDiv(centSeconds, 60);
}

/** ceil(n / d) for a non-negative safe integer n and positive integer d, without float division. */
function ceilDiv(n: number, d: number): number {
  const remainder = n % d;
  const quotient = (n - remainder) / d;
  return remainder === 0 ? quotient : quotient + 1;
}

// ---------------------------------------------------------------------------------------------
// SMS

/** Our decision: outbound SMS costs 1 cent per segment in Zone A, times the zone multiplier. */
export const SMS_OUTBOUND_ZONE_A_CENTS_PER_SEGMENT = 1;
/** Our decision: inbound SMS is free. */
export const SMS_INBOUND_CENTS = 0;

/** GSM 03.38 basic character set (one septet each). Index 27 (ESC) is left out: it is not text. */
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' + '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
/** GSM 03.38 extension table: ESC + character, two septets each. */
const GSM7_EXTENSION = new Set('\f^{}\\[~]|€');

const GSM7_SINGLE = 160;
const GSM7_PER_SEGMENT = 153;
const UCS2_SINGLE = 70;
const UCS2_PER_SEGMENT = 67;

/**
 * Number of SMS segments `text` is sent as.
 * - GSM-7 when every character is in the basic or extension table: up to 160 septets is one
 *   message; longer text is split into segments of 153 septets (7 go to the concatenation
 *   header). Extension characters (`{}[]~\|^€` and form feed) take 2 septets.
 * - Otherwise UCS-2: up to 70 UTF-16 code units is one message, else segments of 67. Characters
 *   outside the BMP (e.g. emoji) are 2 code units.
 * A character is never split between segments (an ESC pair or a surrogate pair stays together,
 * as handsets and carriers do), so a segment may hold one unit less than its maximum.
 * Empty text is still one message.
 */
export function smsSegments(text: string): number {
  const chars = Array.from(text);
  const gsm = chars.every((c) => GSM7_BASIC.has(c) || GSM7_EXTENSION.has(c));
  const sizes = gsm ? chars.map((c) => (GSM7_EXTENSION.has(c) ? 2 : 1)) : chars.map((c) => c.length);
  const single = gsm ? GSM7_SINGLE : UCS2_SINGLE;
  const perSegment = gsm ? GSM7_PER_SEGMENT : UCS2_PER_SEGMENT;
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= single) return 1;
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > perSegment) {
      segments += 1;
      used = 0;
    }
    used += size;
  }
  return segments;
}

/** Charge in cents for sending `text` outbound to a number in `zone`. Inbound SMS: `SMS_INBOUND_CENTS`. */
export function smsChargeCents(zone: Zone, text: string): number {
  const multiplier = ZONE_MULTIPLIER[zone];
  if (multiplier === undefined) throw new RangeError(`unknown zone: ${String(zone)}`);
  return smsSegments(text) * SMS_OUTBOUND_ZONE_A_CENTS_PER_SEGMENT * multiplier;
}
