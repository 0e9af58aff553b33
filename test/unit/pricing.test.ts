import fc from 'fast-check';
import {
  billableSeconds,
  callChargeCents,
  DEFAULT_ZONE_TABLE,
  InvalidNumberError,
  type LineMode,
  oneMinuteReserveCents,
  ratePerMinuteCents,
  SMS_INBOUND_CENTS,
  SMS_OUTBOUND_ZONE_A_CENTS_PER_SEGMENT,
  smsChargeCents,
  smsSegments,
  type Zone,
  ZONE_A_RATE_CENTS_PER_MINUTE,
  ZONE_A_REGIONS,
  ZONE_B_COUNTRIES,
  ZONE_MULTIPLIER,
  zoneOf,
} from '../../src/domain/billing/pricing';

const MODES: LineMode[] = ['webhook', 'hosted', 'audio'];
const ZONES: Zone[] = ['A', 'B', 'C'];
const TEN_DAYS_MS = 10 * 24 * 60 * 60 * 1000;

/** Durations biased towards second and minute boundaries, where rounding bugs live. */
const durationMs = fc.oneof(
  fc.integer({ min: 0, max: TEN_DAYS_MS }),
  fc.integer({ min: 0, max: 5000 }),
  fc.tuple(fc.integer({ min: 0, max: TEN_DAYS_MS / 60_000 }), fc.integer({ min: -1, max: 1 })).map(([m, d]) => Math.max(0, m * 60_000 + d)),
  fc.tuple(fc.integer({ min: 0, max: TEN_DAYS_MS / 1000 }), fc.integer({ min: -1, max: 1 })).map(([s, d]) => Math.max(0, s * 1000 + d)),
);
const mode = fc.constantFrom(...MODES);
const zone = fc.constantFrom(...ZONES);

describe('zones', () => {
  it.each([
    ['+14155550123', 'A'], // US
    ['+14165550123', 'A'], // CA
    ['+17875550123', 'A'], // PR: US territory, billed as the US
    ['+447911123456', 'B'], // +44 7911 is a Guernsey (GG) range: same plan as GB, Zone B
    ['+447400123456', 'B'], // GB
    ['+33612345678', 'B'], // FR
    ['+5511912345678', 'C'], // BR
    ['+18765550123', 'C'], // JM: NANP, but a foreign country
    ['+80012345678', 'C'], // non-geographic (no region)
  ])('%s is zone %s', (number, expected) => {
    expect(zoneOf(number)).toBe(expected);
  });

  it('takes a custom table', () => {
    const table = { a: DEFAULT_ZONE_TABLE.a, b: [...DEFAULT_ZONE_TABLE.b, 'BR'] };
    expect(zoneOf('+5511912345678', table)).toBe('B');
    expect(zoneOf('+33612345678', { a: ['US'], b: [] })).toBe('C');
    expect(zoneOf('+17875550123', { a: ['US', 'CA'], b: [] })).toBe('C');
  });

  it('has US/Canada in zone A and the documented zone B table', () => {
    expect(ZONE_A_REGIONS).toEqual(expect.arrayContaining(['US', 'CA', 'PR']));
    expect(ZONE_B_COUNTRIES).toEqual(expect.arrayContaining(['GB', 'IE', 'FR', 'DE', 'AU', 'NZ', 'JP']));
    expect(ZONE_A_REGIONS.filter((r) => ZONE_B_COUNTRIES.includes(r))).toEqual([]);
  });

  it.each(['', 'abc', '+1', '+12', '14155550123', '+1 415 555 0123', '+441234', '+999123456', '+0123456789'])(
    'rejects %j with InvalidNumberError',
    (number) => {
      expect(() => zoneOf(number)).toThrow(InvalidNumberError);
    },
  );
});

describe('voice rates', () => {
  it('follows the spec: 13 webhook / 26 hosted in zone A, x2 zone B, x3 zone C', () => {
    expect(ZONE_MULTIPLIER).toEqual({ A: 1, B: 2, C: 3 });
    expect(ZONE_A_RATE_CENTS_PER_MINUTE).toEqual({ webhook: 13, hosted: 26, audio: 9, agent: 13 });
    expect(ZONES.map((z) => ratePerMinuteCents('webhook', z))).toEqual([13, 26, 39]);
    expect(ZONES.map((z) => ratePerMinuteCents('hosted', z))).toEqual([26, 52, 78]);
    expect(ZONES.map((z) => ratePerMinuteCents('audio', z))).toEqual([9, 18, 27]);
  });

  it('prices an agent line as webhook mode (it transcribes and speaks the same way): 13 cents a minute in zone A', () => {
    expect(ZONES.map((z) => ratePerMinuteCents('agent', z))).toEqual([13, 26, 39]);
    expect(oneMinuteReserveCents('agent', 'A')).toBe(13);
    // Billed per second, rounded up to the cent: 61 s at 13 cents a minute.
    expect(callChargeCents('agent', 'A', 61_000)).toBe(14);
  });

  it('reserves one minute at the rate for insufficient_credits', () => {
    for (const m of MODES) for (const z of ZONES) expect(oneMinuteReserveCents(m, z)).toBe(ratePerMinuteCents(m, z));
    expect(oneMinuteReserveCents('webhook', 'A')).toBe(13);
    expect(oneMinuteReserveCents('hosted', 'A')).toBe(26);
    expect(oneMinuteReserveCents('hosted', 'C')).toBe(78);
  });
});

describe('billable seconds', () => {
  it('rounds a started second up', () => {
    expect(billableSeconds(0)).toBe(0);
    expect(billableSeconds(1)).toBe(1);
    expect(billableSeconds(999)).toBe(1);
    expect(billableSeconds(1000)).toBe(1);
    expect(billableSeconds(1001)).toBe(2);
    expect(billableSeconds(61_000)).toBe(61);
  });

  it.each([-1, 1.5, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER + 1])('rejects %p', (ms) => {
    expect(() => billableSeconds(ms)).toThrow(RangeError);
  });
});

describe('call charges', () => {
  it('rounds once per call: 61 s zone A webhook = ceil(13 * 61 / 60) = 14 cents', () => {
    expect(callChargeCents('webhook', 'A', 61_000)).toBe(14);
  });

  it('charges exactly the rate for 60 s, ceil(rate/60) for 1 ms, nothing for 0 ms', () => {
    for (const m of MODES) {
      for (const z of ZONES) {
        const rate = ratePerMinuteCents(m, z);
        expect(callChargeCents(m, z, 60_000)).toBe(rate);
        expect(callChargeCents(m, z, 1)).toBe(Math.ceil(rate / 60));
        expect(callChargeCents(m, z, 0)).toBe(0);
      }
    }
    expect(callChargeCents('webhook', 'A', 1)).toBe(1);
  });

  it('rejects bad durations', () => {
    expect(() => callChargeCents('webhook', 'A', -1)).toThrow(RangeError);
    expect(() => callChargeCents('webhook', 'A', 0.5)).toThrow(RangeError);
    expect(() => callChargeCents('webhook', 'A', Number.MAX_SAFE_INTEGER + 2)).toThrow(RangeError);
  });

  it('stays exact up to the largest safe duration', () => {
    const ms = Number.MAX_SAFE_INTEGER;
    const expected = (78n * ((BigInt(ms) + 999n) / 1000n) + 59n) / 60n;
    expect(BigInt(callChargeCents('hosted', 'C', ms))).toBe(expected);
  });

  it('equals ceil(rate * ceilSeconds / 60) computed in BigInt, and is a safe integer', () => {
    fc.assert(
      fc.property(mode, zone, durationMs, (m, z, ms) => {
        const rate = BigInt(ZONE_A_RATE_CENTS_PER_MINUTE[m] * ZONE_MULTIPLIER[z]);
        const secs = (BigInt(ms) + 999n) / 1000n;
        const expected = (rate * secs + 59n) / 60n;
        const charge = callChargeCents(m, z, ms);
        expect(Number.isSafeInteger(charge)).toBe(true);
        expect(BigInt(charge)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('is monotonic non-decreasing in duration', () => {
    fc.assert(
      fc.property(mode, zone, durationMs, durationMs, (m, z, a, b) => {
        const [short, long] = a <= b ? [a, b] : [b, a];
        expect(callChargeCents(m, z, short)).toBeLessThanOrEqual(callChargeCents(m, z, long));
      }),
      { numRuns: 1000 },
    );
  });

  it('is covered by one-minute holds: charge <= reserve * started minutes', () => {
    fc.assert(
      fc.property(mode, zone, durationMs, (m, z, ms) => {
        const secs = billableSeconds(ms);
        const startedMinutes = Math.ceil(secs / 60);
        expect(callChargeCents(m, z, ms)).toBeLessThanOrEqual(oneMinuteReserveCents(m, z) * startedMinutes);
      }),
      { numRuns: 1000 },
    );
  });

  it('never costs more in one piece than split in two', () => {
    fc.assert(
      fc.property(mode, zone, durationMs, durationMs, (m, z, a, b) => {
        expect(callChargeCents(m, z, a + b)).toBeLessThanOrEqual(callChargeCents(m, z, a) + callChargeCents(m, z, b));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('SMS', () => {
  it('counts GSM-7 segments: 160 in one, then 153 per segment', () => {
    expect(smsSegments('')).toBe(1);
    expect(smsSegments('a'.repeat(160))).toBe(1);
    expect(smsSegments('a'.repeat(161))).toBe(2);
    expect(smsSegments('a'.repeat(306))).toBe(2);
    expect(smsSegments('a'.repeat(307))).toBe(3);
    expect(smsSegments('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./09:;<=>?¡AZÄÖÑÜ§¿azäöñüà'.repeat(2))).toBe(1);
  });

  it('counts extension characters as 2 septets', () => {
    expect(smsSegments('€')).toBe(1);
    expect(smsSegments('a'.repeat(158) + '€')).toBe(1); // 160 septets
    expect(smsSegments('a'.repeat(159) + '€')).toBe(2); // 161 septets
    expect(smsSegments('{}[]~\\|^€'.repeat(8) + '{}[]~\\|^')).toBe(1); // 160 septets
    expect(smsSegments('{}[]~\\|^€'.repeat(9))).toBe(2); // 162 septets
    // An ESC pair is never split: 152 + 2 does not fit in 153, so the euro opens segment 2.
    expect(smsSegments('a'.repeat(152) + '€' + 'a'.repeat(152))).toBe(3);
    expect(smsSegments('a'.repeat(151) + '€' + 'a'.repeat(153))).toBe(2);
  });

  it('counts UCS-2 segments in UTF-16 code units: 70 in one, then 67 per segment', () => {
    expect(smsSegments('ж'.repeat(70))).toBe(1);
    expect(smsSegments('ж'.repeat(71))).toBe(2);
    expect(smsSegments('ж'.repeat(134))).toBe(2);
    expect(smsSegments('ж'.repeat(135))).toBe(3);
    // One non-GSM character switches the whole message to UCS-2.
    expect(smsSegments('a'.repeat(70) + 'ж')).toBe(2);
    expect(smsSegments('a'.repeat(69) + 'ж')).toBe(1);
  });

  it('counts an emoji as 2 UTF-16 units and never splits it', () => {
    expect('😀'.length).toBe(2);
    expect(smsSegments('😀'.repeat(35))).toBe(1);
    expect(smsSegments('😀'.repeat(36))).toBe(2);
    expect(smsSegments('ж'.repeat(69) + '😀')).toBe(2);
    expect(smsSegments('ж'.repeat(66) + '😀' + 'ж'.repeat(66))).toBe(3);
    expect(smsSegments('ж'.repeat(65) + '😀' + 'ж'.repeat(67))).toBe(2);
  });

  it('charges 1 cent per segment times the zone multiplier; inbound is free', () => {
    expect(SMS_OUTBOUND_ZONE_A_CENTS_PER_SEGMENT).toBe(1);
    expect(SMS_INBOUND_CENTS).toBe(0);
    expect(ZONES.map((z) => smsChargeCents(z, 'hello'))).toEqual([1, 2, 3]);
    expect(ZONES.map((z) => smsChargeCents(z, 'a'.repeat(161)))).toEqual([2, 4, 6]);
  });

  it('segment count is at least ceil(units / perSegment) and charges are integers', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), zone, (text, z) => {
        const segments = smsSegments(text);
        expect(Number.isSafeInteger(segments) && segments >= 1).toBe(true);
        expect(smsChargeCents(z, text)).toBe(segments * ZONE_MULTIPLIER[z]);
        if (segments > 1) expect(segments).toBeGreaterThanOrEqual(Math.ceil(text.length / 153));
      }),
    );
  });
});
