import { CarrierRejectedError } from '../../src/adapters/carrier/port';
import type { TelnyxCarrier } from '../../src/adapters/carrier/telnyx/telnyxCarrier';
import { startTelnyxStub, telnyxCarrierOn, type TelnyxStub } from '../support/telnyxStub';

/** The Telnyx adapter on its own against the contract stub: idempotency, release, refusals. */
describe('TelnyxCarrier', () => {
  let stub: TelnyxStub;
  let carrier: TelnyxCarrier;
  beforeAll(async () => {
    stub = await startTelnyxStub();
    // Webhooks go to the stub's own sink here: the adapter's answers are what is tested.
    stub.setConnectionWebhookUrl(`${stub.url}/sink`);
    carrier = telnyxCarrierOn(stub);
  });
  afterAll(async () => stub.close());
  const orders = () => stub.requests.filter((r) => r.method === 'POST' && r.path === '/v2/number_orders');

  it('provisions once per idempotency key, and releases by deleting the number (twice is fine)', async () => {
    const first = await carrier.provisionNumber({ idempotencyKey: 'line:a', country: 'US' });
    const again = await carrier.provisionNumber({ idempotencyKey: 'line:a', country: 'US' });
    expect(again.phoneNumber).toBe(first.phoneNumber);
    expect(orders()).toHaveLength(1);
    const other = await carrier.provisionNumber({ idempotencyKey: 'line:b', country: 'US' });
    expect(other.phoneNumber).not.toBe(first.phoneNumber);
    await carrier.releaseNumber({ phoneNumber: first.phoneNumber });
    expect(stub.numbers.map((n) => n.phone_number)).toEqual([other.phoneNumber]);
    await carrier.releaseNumber({ phoneNumber: first.phoneNumber });
    expect(stub.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });

  it('a country without numbers is a refusal, not a retry', async () => {
    await expect(carrier.provisionNumber({ idempotencyKey: 'line:c', country: 'ZZ' })).rejects.toBeInstanceOf(CarrierRejectedError);
  });

  it('dials once per call id; hang-up and stop succeed on an ended call, speak is refused there', async () => {
    const request = {
      callId: '7d1c7d1e-4c1b-4f7e-9a51-3f1f0f3b6a10',
      from: '+14155550100',
      to: '+14155550101',
      eventsUrl: 'http://x/carrier/events',
    };
    const { carrierCallId } = await carrier.placeCall(request);
    expect((await carrier.placeCall(request)).carrierCallId).toBe(carrierCallId);
    expect(stub.calls.size).toBe(1);
    await expect(carrier.speak({ carrierCallId, speakId: 's1', text: 'Hi' })).rejects.toBeInstanceOf(CarrierRejectedError);
    await stub.answer(carrierCallId);
    await carrier.speak({ carrierCallId, speakId: 's1', text: 'Hi', voice: 'nova' });
    expect(stub.calls.get(carrierCallId)!.speeches[0]).toMatchObject({ text: 'Hi', voice: 'Azure.en-GB-AdaMultilingualNeural' });
    await carrier.hangUp({ carrierCallId });
    await carrier.hangUp({ carrierCallId });
    await carrier.stopSpeaking({ carrierCallId });
    await expect(carrier.speak({ carrierCallId, speakId: 's2', text: 'Hi' })).rejects.toBeInstanceOf(CarrierRejectedError);
  });

  it('a wrong API key is a refusal; audio lines are not available', async () => {
    const wrong = telnyxCarrierOn(stub, { apiKey: 'KEY-wrong' });
    await expect(
      wrong.sendSms({ messageId: 'm', from: '+14155550100', to: '+14155550101', text: 'x', statusUrl: '' }),
    ).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(carrier.openMediaStream({ carrierCallId: 'v3:none' })).rejects.toBeInstanceOf(CarrierRejectedError);
  });
});
