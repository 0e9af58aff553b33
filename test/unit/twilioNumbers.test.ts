import { CarrierRejectedError, NumberUnavailableError } from '../../src/adapters/carrier/port';
import type { TwilioCarrier, TwilioCarrierOptions } from '../../src/adapters/carrier/twilio/twilioCarrier';
import { startTwilioStub, twilioCarrierOn, type TwilioStub } from '../support/twilioStub';

/**
 * Choosing numbers on Twilio (issue 26 item 7), against the contract stub: the search by country,
 * type and area code (AvailablePhoneNumbers/{Country}/{Local|TollFree|Mobile}), what matched nothing,
 * and an owned number imported (its IncomingPhoneNumber pointed at Switchboard) and detached.
 */
describe('Twilio numbers: search, purchase and import', () => {
  let stub: TwilioStub;
  const publicBaseUrl = 'https://switchboard.example/base';
  const twilioOn = (options: Partial<TwilioCarrierOptions> = {}) => twilioCarrierOn(stub, { publicBaseUrl, ...options });
  let carrier: TwilioCarrier;
  beforeAll(async () => {
    stub = await startTwilioStub({ firstNumber: 5558100 });
    carrier = twilioOn();
  });
  afterAll(() => stub.close());

  const searches = (since: number) =>
    stub.requests.slice(since).filter((r) => r.method === 'GET' && r.path.includes('/AvailablePhoneNumbers/'));
  const refusalOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (err: unknown) => err,
    );

  it('searches Local in the area code asked (AreaCode, voice and SMS) and buys that number', async () => {
    const since = stub.requests.length;
    const bought = await carrier.provisionNumber({ idempotencyKey: 'line:sf', country: 'US', numberType: 'local', areaCode: '415' });
    expect(bought.phoneNumber).toMatch(/^\+1415\d{7}$/);
    const [search] = searches(since);
    expect(search.path).toBe(`/2010-04-01/Accounts/${stub.accountSid}/AvailablePhoneNumbers/US/Local.json`);
    expect(search.params).toMatchObject({ AreaCode: '415', VoiceEnabled: 'true', SmsEnabled: 'true', PageSize: '1' });
  });

  it('searches TollFree for a toll-free number, and Mobile with a Contains prefix outside the US and Canada', async () => {
    const since = stub.requests.length;
    const tollFree = await carrier.provisionNumber({ idempotencyKey: 'line:tf', country: 'US', numberType: 'toll_free', areaCode: '888' });
    expect(tollFree.phoneNumber).toMatch(/^\+1888\d{7}$/);
    const mobile = await carrier.provisionNumber({ idempotencyKey: 'line:gb', country: 'GB', numberType: 'mobile', areaCode: '7400' });
    expect(mobile.phoneNumber).toMatch(/^\+447400\d{7}$/);
    const [toll, gb] = searches(since);
    expect(toll.path).toMatch(/\/AvailablePhoneNumbers\/US\/TollFree\.json$/);
    expect(gb.path).toMatch(/\/AvailablePhoneNumbers\/GB\/Mobile\.json$/);
    expect(gb.params).toMatchObject({ Contains: '+447400' });
    expect(gb.params.AreaCode).toBeUndefined();
  });

  it('names what matched nothing: a type Twilio does not sell there, a country it does not serve, an area code with none left', async () => {
    const before = stub.numbers.size;
    const mobileUs = await refusalOf(carrier.provisionNumber({ idempotencyKey: 'line:m', country: 'US', numberType: 'mobile' }));
    expect(mobileUs).toBeInstanceOf(NumberUnavailableError);
    expect(mobileUs).toMatchObject({ criterion: 'number_type', refusal: { provider: 'twilio' } });
    expect(await refusalOf(carrier.provisionNumber({ idempotencyKey: 'line:kp', country: 'KP' }))).toMatchObject({ criterion: 'country' });
    const soldOut = await refusalOf(carrier.provisionNumber({ idempotencyKey: 'line:564', country: 'US', areaCode: '564' }));
    expect(soldOut).toMatchObject({ name: 'NumberUnavailableError', criterion: 'area_code' });
    expect(stub.numbers.size).toBe(before);
  });

  it('searches again when the number was bought by someone else meanwhile (21422 is not a refusal)', async () => {
    stub.sellBeforeNextPurchase();
    const lost = await refusalOf(carrier.provisionNumber({ idempotencyKey: 'line:race', country: 'US', areaCode: '212' }));
    expect(lost).toBeInstanceOf(Error);
    expect(lost).not.toBeInstanceOf(CarrierRejectedError);
    const retried = await carrier.provisionNumber({ idempotencyKey: 'line:race', country: 'US', areaCode: '212' });
    expect(retried.phoneNumber).toMatch(/^\+1212/);
  });

  it('imports an owned number: its webhooks point at Switchboard, nothing is bought; a detach clears them and the account keeps it', async () => {
    const owned = stub.own('+14155550177');
    const since = stub.requests.length;
    const imported = await carrier.provisionNumber({ idempotencyKey: 'line:own', country: 'US', importNumber: owned.phoneNumber });
    expect(imported).toEqual({ phoneNumber: owned.phoneNumber, carrierRef: owned.sid });
    expect(stub.numbers.get(owned.sid)).toMatchObject({
      friendlyName: "the operator's +14155550177",
      voiceUrl: `${publicBaseUrl}/carrier/twilio/voice`,
      smsUrl: `${publicBaseUrl}/carrier/twilio/messages`,
      statusCallback: `${publicBaseUrl}/carrier/twilio/calls/status`,
    });
    expect(searches(since)).toEqual([]);
    expect(stub.requests.slice(since).filter((r) => r.method === 'POST' && r.path.endsWith('/IncomingPhoneNumbers.json'))).toEqual([]);
    // Again (a retried activity): the same number.
    expect(await carrier.provisionNumber({ idempotencyKey: 'line:own', country: 'US', importNumber: owned.phoneNumber })).toEqual(imported);

    await carrier.releaseNumber({ phoneNumber: owned.phoneNumber, keepInAccount: true });
    expect(stub.numbers.get(owned.sid)).toMatchObject({ phoneNumber: owned.phoneNumber, voiceUrl: undefined, smsUrl: undefined });
    expect(stub.numbers.get(owned.sid)?.statusCallback).toBeUndefined();
  });

  it('refuses to import a number the account does not own', async () => {
    const refused = await refusalOf(carrier.provisionNumber({ idempotencyKey: 'line:nope', country: 'US', importNumber: '+14155550178' }));
    expect(refused).toMatchObject({ name: 'NumberUnavailableError', criterion: 'phone_number' });
  });

  it('an imported number the Messaging Service refuses is detached, never released', async () => {
    const serviceSid = stub.addMessagingService();
    const elsewhere = stub.addMessagingService();
    const owned = stub.own('+14155550179');
    stub.messagingServices.get(elsewhere)!.add(owned.sid); // Twilio's 21712: one service at a time
    const texting = twilioOn({ messagingServiceSid: serviceSid });
    const refused = await refusalOf(
      texting.provisionNumber({ idempotencyKey: 'line:svc', country: 'US', importNumber: owned.phoneNumber }),
    );
    expect(refused).toBeInstanceOf(CarrierRejectedError);
    expect(stub.numbers.get(owned.sid)).toMatchObject({ voiceUrl: undefined, smsUrl: undefined });
  });

  it('with test credentials: only the magic number, so another area code, type or country, or an import, is unavailable', async () => {
    const testCarrier = twilioOn({ mode: 'test' });
    const since = stub.requests.length;
    for (const [request, criterion] of [
      [{ areaCode: '415' }, 'area_code'],
      [{ numberType: 'toll_free' as const }, 'number_type'],
      [{ country: 'GB' }, 'country'],
      [{ importNumber: '+14155550177' }, 'phone_number'],
    ] as const) {
      const refused = await refusalOf(testCarrier.provisionNumber({ idempotencyKey: 'line:t', country: 'US', ...request }));
      expect(refused).toMatchObject({ name: 'NumberUnavailableError', criterion });
    }
    expect(stub.requests).toHaveLength(since);
  });
});
