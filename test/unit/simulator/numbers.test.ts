import { NumberSimulatorState, type NumberRecord } from '../../../simulator/carrier/numbers';

const sold = (numbers: NumberSimulatorState, key: string, request: Parameters<NumberSimulatorState['provision']>[1]): NumberRecord => {
  const record = numbers.provision(key, request);
  if ('unmatched' in record) throw new Error(`nothing matched: ${record.unmatched}`);
  return record;
};

describe('simulator number pool', () => {
  it('draws line numbers from many area codes, never 650 or 564, in 555-2000…9999', () => {
    const numbers = new NumberSimulatorState();
    const drawn = Array.from({ length: 3000 }, (_, i) => sold(numbers, `key-${i}`, { country: 'US', number_type: 'local' }).phone_number);
    for (const number of drawn) expect(number).toMatch(/^\+1(?!650|564)\d{3}555[2-9]\d{3}$/);
    // Every test file's simulator draws on its own into one shared database: the pool must be wide.
    expect(new Set(drawn.map((number) => number.slice(2, 5))).size).toBeGreaterThan(200);
    expect(new Set(drawn).size).toBe(drawn.length);
  });

  it('sells in the area code, type and country asked, and names what matched nothing', () => {
    const numbers = new NumberSimulatorState();
    expect(sold(numbers, 'a', { country: 'US', number_type: 'local', area_code: '415' }).phone_number).toMatch(/^\+1415555\d{4}$/);
    expect(sold(numbers, 'b', { country: 'US', number_type: 'toll_free' }).phone_number).toMatch(/^\+18(00|33|44|55|66|77|88)555\d{4}$/);
    expect(sold(numbers, 'c', { country: 'GB', number_type: 'mobile' }).phone_number).toMatch(/^\+447400900\d{3}$/);
    expect(numbers.provision('d', { country: 'US', number_type: 'local', area_code: '564' })).toEqual({ unmatched: 'area_code' });
    expect(numbers.provision('e', { country: 'US', number_type: 'mobile' })).toEqual({ unmatched: 'number_type' });
    expect(numbers.provision('f', { country: 'FR', number_type: 'local' })).toEqual({ unmatched: 'country' });
    // A refusal records nothing: the key may ask again.
    expect(numbers.numbers.has('d')).toBe(false);
  });

  it('sells every number of a range once, then answers that the area code has none left', () => {
    const numbers = new NumberSimulatorState();
    const drawn = Array.from({ length: 1000 }, (_, i) => sold(numbers, `gb-${i}`, { country: 'GB', number_type: 'mobile' }).phone_number);
    expect(new Set(drawn).size).toBe(1000);
    expect(numbers.provision('one-more', { country: 'GB', number_type: 'mobile', area_code: '7400' })).toEqual({ unmatched: 'area_code' });
  });

  it('never sells a number another account holds (withheld), and says so once none is left', () => {
    const numbers = new NumberSimulatorState();
    const range = Array.from({ length: 1000 }, (_, i) => `+447400900${String(i).padStart(3, '0')}`);
    numbers.withhold(range.filter((number) => number !== '+447400900417'));
    // The random draws all hit withheld numbers; the sweep finds the one left.
    expect(sold(numbers, 'left', { country: 'GB', number_type: 'mobile' }).phone_number).toBe('+447400900417');
    expect(numbers.provision('none', { country: 'GB', number_type: 'mobile' })).toEqual({ unmatched: 'country' });
  });

  it('imports an owned number once, keeps it in the account when detached, and refuses a number it does not own', () => {
    const numbers = new NumberSimulatorState();
    numbers.own('+14155550142');
    const imported = sold(numbers, 'line:1', { import_number: '+14155550142' });
    expect(imported).toMatchObject({ phone_number: '+14155550142', origin: 'imported', status: 'active' });
    expect(numbers.owned.get('+14155550142')?.routed_to_switchboard).toBe(true);
    // The same key answers the same number; another key cannot take a routed number.
    expect(sold(numbers, 'line:1', { import_number: '+14155550142' }).requests).toBe(2);
    expect(numbers.provision('line:2', { import_number: '+14155550142' })).toEqual({ unmatched: 'phone_number' });
    expect(numbers.provision('line:3', { import_number: '+14155550199' })).toEqual({ unmatched: 'phone_number' });

    expect(numbers.detach('+14155550142')).toBe(true);
    expect(numbers.owned.get('+14155550142')).toMatchObject({ routed_to_switchboard: false });
    expect(imported.status).toBe('detached');
    // Never sold to anyone else while the account owns it.
    expect(sold(numbers, 'line:4', { import_number: '+14155550142' }).phone_number).toBe('+14155550142');
  });
});
