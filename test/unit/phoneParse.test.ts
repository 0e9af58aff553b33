import { possibleNumber } from '../../src/platform/phoneParse';
import { toE164 } from '../../src/platform/phone';
import { zoneOf } from '../../src/domain/billing/pricing';

/** Parsed numbers are kept per process (src/platform/phoneParse.ts): same answers, a bounded number of them. */
describe('parsed phone numbers', () => {
  test('a number asked about again is the same answer, and one that is not possible stays undefined', () => {
    const first = possibleNumber('+14155550123');
    expect(first?.number).toBe('+14155550123');
    expect(possibleNumber('+14155550123')).toBe(first);
    expect(possibleNumber('+1415')).toBeUndefined();
    expect(possibleNumber('+1415')).toBeUndefined();
    // The callers' answers are those of a fresh parse.
    expect(toE164(' +44 20 7946 0958 ')).toBe('+442079460958');
    expect(zoneOf('+442079460958')).toBe(zoneOf('+442079460958'));
    expect(() => zoneOf('+1415')).toThrow();
  });

  test('the oldest answers are dropped past 5,000 kept', () => {
    const first = possibleNumber('+12025550100');
    for (let i = 0; i < 5_000; i += 1) possibleNumber(`+1212555${String(i).padStart(4, '0')}`);
    const again = possibleNumber('+12025550100');
    expect(again).not.toBe(first);
    expect(again?.number).toBe(first?.number);
  });
});
