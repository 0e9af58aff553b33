import { NumberUnavailableError } from '../../src/adapters/carrier/port';
import type { TelnyxCarrier } from '../../src/adapters/carrier/telnyx/telnyxCarrier';
import { useTelnyxAdapter, type TelnyxStub } from '../support/telnyxStub';

const CAMPAIGN = '4b300178-131c-d902-d54e-72d90ba1620k';

/**
 * Choosing numbers on Telnyx (issue 26 item 7), against the contract stub: the search by
 * `filter[country_code]`, `filter[phone_number_type]` and `filter[national_destination_code]`, what
 * matched nothing, and an owned number imported (its connection and messaging profile set) and detached.
 */
describe('Telnyx numbers: search, order and import', () => {
  const suite = useTelnyxAdapter({ campaignId: CAMPAIGN });
  let stub: TelnyxStub;
  let carrier: TelnyxCarrier;
  beforeAll(() => ({ stub, carrier } = suite));

  const searchesSince = (since: number) =>
    stub.requests.slice(since).filter((r) => r.method === 'GET' && r.path === '/v2/available_phone_numbers');
  const refusalOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (err: unknown) => err,
    );

  it('searches the country, type and national destination code asked, and orders that number', async () => {
    const local = await carrier.provisionNumber({ idempotencyKey: 'line:sf', country: 'US', numberType: 'local', areaCode: '415' });
    expect(local.phoneNumber).toMatch(/^\+1415555\d{4}$/);
    const tollFree = await carrier.provisionNumber({ idempotencyKey: 'line:tf', country: 'US', numberType: 'toll_free', areaCode: '888' });
    expect(tollFree.phoneNumber).toMatch(/^\+1888/);
    const since = stub.requests.length;
    const mobile = await carrier.provisionNumber({ idempotencyKey: 'line:gb', country: 'GB', numberType: 'mobile' });
    expect(mobile.phoneNumber).toMatch(/^\+447400/);
    const [search] = searchesSince(since);
    expect(search).toBeDefined();
    expect(stub.orders.find((o) => o.customer_reference === 'line:gb')?.phone_numbers?.[0].phone_number).toBe(mobile.phoneNumber);
    // A toll-free number takes no 10DLC campaign; the US local one does.
    expect(stub.campaigns.has(local.phoneNumber)).toBe(true);
    expect(stub.campaigns.has(tollFree.phoneNumber)).toBe(false);
  });

  it('sends the criteria as Telnyx names them', async () => {
    const since = stub.requests.length;
    await carrier.provisionNumber({ idempotencyKey: 'line:nyc', country: 'US', numberType: 'local', areaCode: '212' });
    const [search] = searchesSince(since);
    const query = new URL(`http://stub${search.query}`).searchParams;
    expect(query.get('filter[country_code]')).toBe('US');
    expect(query.get('filter[phone_number_type]')).toBe('local');
    expect(query.get('filter[national_destination_code]')).toBe('212');
  });

  it('names what matched nothing, and orders nothing', async () => {
    const before = stub.orders.length;
    const cases = [
      [{ country: 'US', areaCode: '564' }, 'area_code'],
      [{ country: 'US', numberType: 'mobile' as const }, 'number_type'],
      [{ country: 'FR' }, 'country'],
    ] as const;
    for (const [request, criterion] of cases) {
      const refused = await refusalOf(carrier.provisionNumber({ idempotencyKey: `line:none-${criterion}`, ...request }));
      expect(refused).toBeInstanceOf(NumberUnavailableError);
      expect(refused).toMatchObject({ criterion, refusal: { provider: 'telnyx' } });
    }
    expect(stub.orders).toHaveLength(before);
  });

  it('imports an owned number onto the connection, the messaging profile and the campaign; a detach takes it off and the account keeps it', async () => {
    const owned = stub.own('+14155550177');
    const ordersBefore = stub.orders.length;
    const imported = await carrier.provisionNumber({ idempotencyKey: 'line:own', country: 'US', importNumber: owned.phone_number });
    expect(imported).toEqual({ phoneNumber: owned.phone_number, carrierRef: owned.id });
    expect(owned).toMatchObject({ connection_id: 'conn-1', messaging_profile_id: 'profile-1' });
    expect(stub.campaigns.get(owned.phone_number)).toMatchObject({ campaignId: CAMPAIGN });
    expect(stub.orders).toHaveLength(ordersBefore);
    // A retried activity: the same, nothing more.
    expect(await carrier.provisionNumber({ idempotencyKey: 'line:own', country: 'US', importNumber: owned.phone_number })).toEqual(
      imported,
    );

    await carrier.releaseNumber({ phoneNumber: owned.phone_number, keepInAccount: true });
    expect(stub.numbers).toContain(owned);
    expect(owned).toMatchObject({ connection_id: '', messaging_profile_id: '' });
    expect(stub.requests.filter((r) => r.method === 'DELETE' && r.path === `/v2/phone_numbers/${owned.id}`)).toEqual([]);
  });

  it('refuses to import a number the account does not own', async () => {
    const refused = await refusalOf(carrier.provisionNumber({ idempotencyKey: 'line:nope', country: 'US', importNumber: '+14155550178' }));
    expect(refused).toMatchObject({ name: 'NumberUnavailableError', criterion: 'phone_number' });
  });
});
