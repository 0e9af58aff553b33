import { areaCodeProblem, chooseNumber, numberUnavailableMessage } from '../../src/domain/lines/numberChoice';

describe('choosing a line number (issue 26)', () => {
  it('defaults to a local US number with no area code', () => {
    expect(chooseNumber({})).toEqual({ ok: true, choice: { source: 'purchased', country: 'US', numberType: 'local', areaCode: null } });
  });

  it('takes a country, a number type and an area code that libphonenumber knows', () => {
    expect(chooseNumber({ country: 'CA', area_code: '416' })).toMatchObject({ ok: true, choice: { country: 'CA', areaCode: '416' } });
    expect(chooseNumber({ number_type: 'toll_free', area_code: '800' })).toMatchObject({ ok: true, choice: { numberType: 'toll_free' } });
    expect(chooseNumber({ country: 'GB', area_code: '20' })).toMatchObject({ ok: true });
    expect(chooseNumber({ country: 'GB', number_type: 'mobile', area_code: '7400' })).toMatchObject({ ok: true });
    expect(chooseNumber({ country: 'IT', area_code: '06' })).toMatchObject({ ok: true });
    expect(chooseNumber({ country: 'DE', number_type: 'mobile', area_code: '151' })).toMatchObject({ ok: true });
  });

  it.each([
    [{ area_code: '416' }, 'area_code', 'Not an area code of US'],
    [{ country: 'CA', area_code: '212' }, 'area_code', 'Not an area code of CA'],
    [{ area_code: '155' }, 'area_code', 'three-digit area code'],
    [{ area_code: '41' }, 'area_code', 'three-digit area code'],
    [{ area_code: '800' }, 'area_code', 'Not an area code of local numbers in US'],
    [{ number_type: 'toll_free', area_code: '415' }, 'area_code', 'Not an area code of toll-free numbers in US'],
    [{ country: 'GB', area_code: '7400' }, 'area_code', 'Not an area code of local numbers in GB'],
    [{ country: 'GB', area_code: '99' }, 'area_code', 'Not an area code of GB'],
    [{ country: 'XX' }, 'country', 'ISO 3166-1 alpha-2'],
    [{ country: 'us' }, 'country', 'ISO 3166-1 alpha-2'],
    [{ number_type: 'premium' }, 'number_type', 'local, toll_free, mobile'],
  ])('refuses %j on %s', (request, field, message) => {
    const outcome = chooseNumber(request);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.problems).toEqual([{ field, message: expect.stringContaining(message) }]);
  });

  it('imports a valid E.164 number, typed and placed by libphonenumber, and nothing else with it', () => {
    expect(chooseNumber({ phone_number: '+14155550123' })).toEqual({
      ok: true,
      choice: { source: 'imported', phoneNumber: '+14155550123', country: 'US', numberType: 'local' },
    });
    expect(chooseNumber({ phone_number: '+18005550199' })).toMatchObject({ ok: true, choice: { numberType: 'toll_free' } });
    expect(chooseNumber({ phone_number: '+447400900123' })).toMatchObject({ ok: true, choice: { country: 'GB', numberType: 'mobile' } });
    for (const phone_number of ['4155550123', '+1415555012', '+1 415 555 0123', '', '+15551234567'])
      expect(chooseNumber({ phone_number })).toMatchObject({ ok: false, problems: [{ field: 'phone_number' }] });
    expect(chooseNumber({ phone_number: '+14155550123', area_code: '415', country: 'US' })).toMatchObject({
      ok: false,
      problems: [{ field: 'area_code' }, { field: 'country' }],
    });
  });

  it('checks a NANP area code against the country that has it (416 is Toronto, not the US)', () => {
    expect(areaCodeProblem('US', '416', 'local')).toBe('Not an area code of US');
    expect(areaCodeProblem('CA', '416', 'local')).toBeUndefined();
    expect(areaCodeProblem('PR', '787', 'local')).toBeUndefined();
  });

  it('tells the customer what matched nothing in its own words, and one answer for every failed import', () => {
    const bought = { source: 'purchased' as const, country: 'US', numberType: 'toll_free' as const, areaCode: '833' };
    expect(numberUnavailableMessage(bought, 'area_code')).toBe(
      'No toll-free numbers are available in area code 833 (US); try another area code or none',
    );
    expect(numberUnavailableMessage({ ...bought, numberType: 'mobile' }, 'number_type')).toBe(
      'The carrier does not offer mobile numbers in US',
    );
    const imported = { source: 'imported' as const, phoneNumber: '+14155550123', country: 'US', numberType: 'local' as const };
    expect(numberUnavailableMessage(imported, 'phone_number')).toBe(numberUnavailableMessage(imported, 'country'));
  });
});
