import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CarrierRejectedError } from '../../src/adapters/carrier/port';
import type { TwilioRelayCommand } from '../../src/adapters/carrier/twilio/callbacks/relayCommands';
import { TWILIO_TEST_NUMBER, TwilioCarrier } from '../../src/adapters/carrier/twilio/twilioCarrier';
import { memoryCreateAttempts } from '../support/memoryCreateAttempts';
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
      attempts: memoryCreateAttempts(),
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
      attempts: memoryCreateAttempts(),
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
    // While the first attempt waits for Twilio, another (a retry on another worker) is told to retry later.
    const [first, concurrent] = await Promise.allSettled([carrier.placeCall(request), carrier.placeCall(request)]);
    expect(concurrent).toMatchObject({ status: 'rejected', reason: { name: 'CreateInFlightError' } });
    if (first.status !== 'fulfilled') throw first.reason;
    expect(await carrier.placeCall(request)).toEqual(first.value);
    const call = stub.calls.get(first.value.carrierCallId)!;
    expect(call.url).toBe(`${publicBaseUrl}/carrier/twilio/calls/connect?call_id=${request.callId}`);
    expect(call.statusCallback).toBe(`${publicBaseUrl}/carrier/twilio/calls/status?call_id=${request.callId}`);
    expect(call.statusCallbackEvents).toEqual(['ringing', 'completed']);
    expect(stub.requests.filter((r) => r.path.endsWith('/Calls.json'))).toHaveLength(1);

    await carrier.hangUp({ carrierCallId: first.value.carrierCallId });
    await stub.settled(first.value.carrierCallId);
    expect(call.status).toBe('completed');
    expect(call.updates[0]).toMatchObject({
      Status: 'completed',
      StatusCallback: `${publicBaseUrl}/carrier/twilio/calls/status?ended_by=switchboard`,
    });
    // Hanging up an ended call succeeds.
    await expect(carrier.hangUp({ carrierCallId: first.value.carrierCallId })).resolves.toBeUndefined();
  });

  it('answers a recorded call: one recording, reported to our recording callback, however often the answer is retried', async () => {
    const placed = await carrier.placeCall({
      callId: 'c0ffee00-0000-4000-8000-000000000007',
      from: '+15555550100',
      to: '+15555550181',
      eventsUrl: 'unused',
    });
    const call = stub.calls.get(placed.carrierCallId)!;
    call.status = 'in-progress';
    const answer = { carrierCallId: call.sid, callId: 'c0ffee00-0000-4000-8000-000000000007', record: true };
    await carrier.answerCall(answer);
    await carrier.answerCall(answer);
    expect(call.apiRecordings).toEqual([
      expect.objectContaining({
        statusCallback: `${publicBaseUrl}/carrier/twilio/calls/recording?call_id=${answer.callId}`,
        statusCallbackEvents: ['completed'],
        channels: 1,
      }),
    ]);
  });

  describe('Twilio has no idempotency key: a create whose answer was lost is found, not sent again', () => {
    const worker = (attempts: ReturnType<typeof memoryCreateAttempts>) =>
      new TwilioCarrier({
        account: { accountSid: stub.accountSid, authToken: stub.authToken },
        publicBaseUrl,
        mode: 'live',
        apiBaseUrl: stub.url,
        relay,
        attempts,
      });

    /** A worker whose requests never reach Twilio. */
    const unreachableWorker = (attempts: ReturnType<typeof memoryCreateAttempts>) =>
      new TwilioCarrier({
        account: { accountSid: stub.accountSid, authToken: stub.authToken },
        publicBaseUrl,
        mode: 'live',
        apiBaseUrl: 'http://127.0.0.1:9',
        relay,
        attempts,
      });

    it('a call: the retry on another worker adopts the call the first attempt created', async () => {
      const attempts = memoryCreateAttempts();
      const request = { callId: 'c0ffee00-0000-4000-8000-000000000002', from: '+15555550100', to: '+15555550188', eventsUrl: 'unused' };
      // An earlier call of the same line to the same number, by another call id: never adopted.
      const earlier = await worker(attempts).placeCall({ ...request, callId: 'c0ffee00-0000-4000-8000-000000000003' });
      stub.loseNextCreateAnswer('Calls');
      await expect(worker(attempts).placeCall(request)).rejects.toThrow(/Twilio error trying to place a call/);
      const creates = () => stub.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json')).length;
      const before = creates();
      const retried = await worker(attempts).placeCall(request);
      expect(creates()).toBe(before);
      expect(retried.carrierCallId).not.toBe(earlier.carrierCallId);
      expect(stub.calls.get(retried.carrierCallId)).toMatchObject({ from: request.from, to: request.to });
      expect(await worker(attempts).placeCall(request)).toEqual(retried);
    });

    it('a call whose first attempt never reached Twilio is placed by the retry', async () => {
      const attempts = memoryCreateAttempts();
      const request = { callId: 'c0ffee00-0000-4000-8000-000000000004', from: '+15555550100', to: '+15555550187', eventsUrl: 'unused' };
      const unreachable = unreachableWorker(attempts);
      await expect(unreachable.placeCall(request)).rejects.toThrow(/Twilio error/);
      const placed = await worker(attempts).placeCall(request);
      expect(stub.calls.get(placed.carrierCallId)).toMatchObject({ to: request.to });
    });

    /** An answered call of a line at Twilio, and a transfer of it to `to`. */
    const answeredCallTransfer = async (attempts: ReturnType<typeof memoryCreateAttempts>, callId: string, to: string) => {
      const placed = await worker(attempts).placeCall({ callId, from: '+15555550100', to: '+15555550185', eventsUrl: 'unused' });
      const call = stub.calls.get(placed.carrierCallId)!;
      call.status = 'in-progress';
      return { call, request: { carrierCallId: call.sid, callId, transferId: `transfer-of-${callId}`, to, from: '+15555550100' } };
    };

    it('a transfer whose answer was lost is not sent again: the retry finds the leg its <Dial> dialled', async () => {
      const attempts = memoryCreateAttempts();
      const { call, request } = await answeredCallTransfer(attempts, 'c0ffee00-0000-4000-8000-000000000005', '+15555550184');
      stub.loseNextUpdateAnswer(call.sid);
      await expect(worker(attempts).transferCall(request)).rejects.toThrow(/Twilio error trying to transfer/);
      const leg = call.dialLeg!;
      expect(leg).toMatchObject({ parentCallSid: call.sid, to: request.to, status: 'ringing' });
      await worker(attempts).transferCall(request);
      await worker(attempts).transferCall(request);
      expect(call.updates.filter((update) => String(update.Twiml).includes('<Dial'))).toHaveLength(1);
      expect([call.dialLeg, leg.status]).toEqual([leg, 'ringing']);
    });

    it('a transfer whose first attempt never reached Twilio is sent by the retry', async () => {
      const attempts = memoryCreateAttempts();
      const { call, request } = await answeredCallTransfer(attempts, 'c0ffee00-0000-4000-8000-000000000006', '+15555550182');
      const unreachable = unreachableWorker(attempts);
      await expect(unreachable.transferCall(request)).rejects.toThrow(/Twilio error/);
      await worker(attempts).transferCall(request);
      expect(call.updates.filter((update) => String(update.Twiml).includes('<Dial'))).toHaveLength(1);
      expect(call.dialLeg).toMatchObject({ to: request.to });
    });

    it('a message: the retry adopts the message with the same text the first attempt created', async () => {
      const attempts = memoryCreateAttempts();
      const request = { messageId: 'm-lost', from: '+15555550100', to: '+15555550186', text: 'Your order is ready', statusUrl: 'unused' };
      await worker(attempts).sendSms({ ...request, messageId: 'm-other', text: 'Another text' });
      stub.loseNextCreateAnswer('Messages');
      await expect(worker(attempts).sendSms(request)).rejects.toThrow(/Twilio error trying to send a message/);
      const sent = [...stub.messages.values()].filter((m) => m.to === request.to && m.body === request.text);
      expect(sent).toHaveLength(1);
      const retried = await worker(attempts).sendSms(request);
      expect(retried.carrierMessageId).toBe(sent[0].sid);
      expect([...stub.messages.values()].filter((m) => m.to === request.to && m.body === request.text)).toHaveLength(1);
    });
  });

  it("speaks, presses digits and stops through the call's ConversationRelay session, the voice mapped to Twilio's", async () => {
    await carrier.speak({ carrierCallId: 'CA1', speakId: 'speak-1', text: 'Hello & welcome', voice: 'nova' });
    await carrier.sendDigits({ carrierCallId: 'CA1', digits: '12w#' });
    await carrier.stopSpeaking({ carrierCallId: 'CA1' });
    expect(relayed).toEqual([
      [
        'CA1',
        {
          kind: 'speak',
          speakId: 'speak-1',
          text: 'Hello & welcome',
          voice: { voice: 'Polly.Amy-Neural', language: 'en-GB', multilingual: true },
        },
      ],
      ['CA1', { kind: 'digits', digits: '12w#' }],
      ['CA1', { kind: 'stop' }],
    ]);
  });

  it('sends an SMS with a status callback naming our message, once per message id', async () => {
    const request = { messageId: 'm-1', from: '+15555550100', to: '+15555550197', text: 'hi', statusUrl: 'unused' };
    const first = await carrier.sendSms(request);
    expect(await carrier.sendSms(request)).toEqual(first);
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
      attempts: memoryCreateAttempts(),
    });
    await expect(
      wrong.sendSms({ messageId: 'm-3', from: '+15555550100', to: '+15555550197', text: 'x', statusUrl: 'u' }),
    ).rejects.toBeInstanceOf(CarrierRejectedError);
  });
});
