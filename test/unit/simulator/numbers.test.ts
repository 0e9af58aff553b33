import { NumberSimulatorState } from '../../../simulator/carrier/numbers';

describe('simulator number pool', () => {
  it('draws line numbers from many area codes, never 650, in 555-2000…9999', () => {
    const numbers = new NumberSimulatorState();
    const drawn = Array.from({ length: 3000 }, (_, i) => numbers.provision(`key-${i}`, 'US').phone_number);
    for (const number of drawn) expect(number).toMatch(/^\+1(?!650)\d{3}555[2-9]\d{3}$/);
    // Every test file's simulator draws on its own into one shared database: the pool must be wide.
    expect(new Set(drawn.map((number) => number.slice(2, 5))).size).toBeGreaterThan(200);
    expect(new Set(drawn).size).toBe(drawn.length);
  });
});
