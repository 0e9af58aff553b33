import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CarrierRejectedError } from '../../src/adapters/carrier/port';
import type { TwilioRelayCommand } from '../../src/adapters/carrier/twilio/callbacks/relayCommands';
import { TWILIO_TEST_NUMBER, TwilioCarrier } from '../../src/adapters/carrier/twilio/twilioCarrier';
import { startTwilioStub, type TwilioStub } from '../support/twilioStub';

/** The Twilio adapter's REST side against the contract stub: what it asks Twilio, and how it reads the answers. */
describe('Twilio carrier adapter (REST, against the contract stub)', () => {
  let stub: TwilioStub;
  let receiver: http.Server;
  let publicBaseUrl: string;
  let carrier: TwilioCarrier;
  /** What the adapter sent to calls' ConversationRelay sessions. */
  const relayed: Array<[string, TwilioRelayCommand]> = [];
  const relay = { send: async (callSid: string, command: TwilioRelayCommand) => void relayed.push([callSid, command]) };

  beforeAll(async () => {
    stub = await startTwilioStub();
    // Stands in for the API: accepts every callback with empty TwiML.
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?><Response/>');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    publicBaseUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/base`;
    carrier = new TwilioCarrier({
      account: { accountSid: stub.accountSid, authToken: stub.authToken },
      publicBaseUrl,
      mode: 'live',
      apiBaseUrl: stub.url,
      relay,
    });
  });
  afterAll(async () => {
    await stub.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('buys a searched number with our voice, SMS and status URLs, idempotently, and releases it', async () => {
    const first = await carrier.provisionNumber({ idempotencyKey: 'line:1', country: 'US' });
    const again = await carrier.provisionNumber({ idempotencyKey: 'line:1', country: 'US' });
    expect(again).toEqual(first);
    expect(first.carrierRef).toMatch(/^PN[0-9a-f]{32}$/);
    const number = stub.numbers.get(first.carrierRef)!;
    expect(number).toMatchObject({
      phoneNumber: first.phoneNumber,
      friendlyName: 'line:1',
      voiceUrl: `${publicBaseUrl}/carrier/twilio/voice`,
      smsUrl: `${publicBaseUrl}/carrier/twilio/messages`,
      statusCallback: `${publicBaseUrl}/carrier/twilio/calls/status`,
    });
    expect(stub.requests.filter((r) => r.path.endsWith('/AvailablePhoneNumbers/US/Local.json'))).toHaveLength(1);

    await carrier.releaseNumber({ phoneNumber: first.phoneNumber });
    expect(stub.numbers.has(first.carrierRef)).toBe(false);
    await expect(carrier.releaseNumber({ phoneNumber: first.phoneNumber })).resolves.toBeUndefined();
  });

  it('with test credentials buys only the test number and never searches inventory', async () => {
    const testCarrier = new TwilioCarrier({
      account: { accountSid: stub.accountSid, authToken: stub.authToken },
      publicBaseUrl,
      mode: 'test',
      apiBaseUrl: stub.url,
      relay,
    });
    const searches = stub.requests.filter((r) => r.path.includes('AvailablePhoneNumbers')).length;
    const bought = await testCarrier.provisionNumber({ idempotencyKey: 'line:test', country: 'US' });
    expect(bought.phoneNumber).toBe(TWILIO_TEST_NUMBER);
    expect(stub.requests.filter((r) => r.path.includes('AvailablePhoneNumbers'))).toHaveLength(searches);
    // Test credentials cannot delete: releasing asks nothing of Twilio.
    const before = stub.requests.length;
    await testCarrier.releaseNumber({ phoneNumber: TWILIO_TEST_NUMBER });
    expect(stub.requests).toHaveLength(before);
  });

  it('places a call with our Url and status callback, once per call id, and hangs it up', async () => {
    const request = { callId: 'c0ffee00-0000-4000-8000-000000000001', from: '+15555550100', to: '+15555550199', eventsUrl: 'unused' };
    const [first, second] = await Promise.all([carrier.placeCall(request), carrier.placeCall(request)]);
    expect(second).toEqual(first);
    const call = stub.calls.get(first.carrierCallId)!;
    expect(call.url).toBe(`${publicBaseUrl}/carrier/twilio/calls/connect?call_id=${request.callId}`);
    expect(call.statusCallback).toBe(`${publicBaseUrl}/carrier/twilio/calls/status?call_id=${request.callId}`);
    expect(call.statusCallbackEvents).toEqual(['ringing', 'completed']);
    expect(stub.requests.filter((r) => r.path.endsWith('/Calls.json'))).toHaveLength(1);

    await carrier.hangUp({ carrierCallId: first.carrierCallId });
    await stub.settled(first.carrierCallId);
    expect(call.status).toBe('completed');
    expect(call.updates[0]).toMatchObject({
      Status: 'completed',
      StatusCallback: `${publicBaseUrl}/carrier/twilio/calls/status?ended_by=switchboard`,
    });
    // Hanging up an ended call succeeds.
    await expect(carrier.hangUp({ carrierCallId: first.carrierCallId })).resolves.toBeUndefined();
  });

  it("speaks, presses digits and stops through the call's ConversationRelay session, the voice mapped to Twilio's", async () => {
    await carrier.speak({ carrierCallId: 'CA1', speakId: 'speak-1', text: 'Hello & welcome', voice: 'nova' });
    await carrier.sendDigits({ carrierCallId: 'CA1', digits: '12w#' });
    await carrier.stopSpeaking({ carrierCallId: 'CA1' });
    expect(relayed).toEqual([
      ['CA1', { kind: 'speak', speakId: 'speak-1', text: 'Hello & welcome', voice: { voice: 'Polly.Amy-Neural', language: 'en-GB' } }],
      ['CA1', { kind: 'digits', digits: '12w#' }],
      ['CA1', { kind: 'stop' }],
    ]);
  });

  it('sends an SMS with a status callback naming our message, once per message id', async () => {
    const request = { messageId: 'm-1', from: '+15555550100', to: '+15555550197', text: 'hi', statusUrl: 'unused' };
    const [first, second] = await Promise.all([carrier.sendSms(request), carrier.sendSms(request)]);
    expect(second).toEqual(first);
    expect(stub.messages.get(first.carrierMessageId)).toMatchObject({
      body: 'hi',
      statusCallback: `${publicBaseUrl}/carrier/twilio/messages/status?message_id=m-1`,
    });
  });

  it("maps Twilio's 4xx to a refusal and an unknown account to one as well", async () => {
    await expect(carrier.sendSms({ messageId: 'm-2', from: '+15555550100', to: 'nope', text: 'x', statusUrl: 'u' })).rejects.toThrow(
      /Twilio refused to send a message: 400 \(21211\)/,
    );
    const wrong = new TwilioCarrier({
      account: { accountSid: stub.accountSid, authToken: 'wrong' },
      publicBaseUrl,
      mode: 'live',
      apiBaseUrl: stub.url,
      relay,
    });
    await expect(
      wrong.sendSms({ messageId: 'm-3', from: '+15555550100', to: '+15555550197', text: 'x', statusUrl: 'u' }),
    ).rejects.toBeInstanceOf(CarrierRejectedError);
  });
});
