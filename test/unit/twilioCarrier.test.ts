import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MediaSocketServer } from '../../src/adapters/carrier/mediaSocketServer';
import { CarrierRejectedError } from '../../src/adapters/carrier/port';
import type { TwilioRelayCommand } from '../../src/adapters/carrier/twilio/callbacks/relayCommands';
import { TWILIO_TEST_NUMBER, TwilioCarrier, type TwilioCarrierOptions } from '../../src/adapters/carrier/twilio/twilioCarrier';
import { freePort } from '../../src/platform/net/freePort';
import { memoryCreateAttempts } from '../support/memoryCreateAttempts';
import { startTwilioStub, twilioCarrierOn, type TwilioStub } from '../support/twilioStub';

/** The Twilio adapter's REST side against the contract stub: what it asks Twilio, and how it reads the answers. */
describe('Twilio carrier adapter (REST, against the contract stub)', () => {
  let stub: TwilioStub;
  let receiver: http.Server;
  let publicBaseUrl: string;
  let carrier: TwilioCarrier;
  /** What the adapter sent to calls' ConversationRelay sessions. */
  const relayed: Array<[string, TwilioRelayCommand]> = [];
  const relay = { send: async (callSid: string, command: TwilioRelayCommand) => void relayed.push([callSid, command]) };

  /** The adapter on the stub's account, live, with its own create record unless given one; `options` overrides. */
  const twilioOn = (options: Partial<TwilioCarrierOptions> = {}) => twilioCarrierOn(stub, { publicBaseUrl, relay, ...options });

  /** A call the adapter placed, which the callee has answered. */
  const answeredCall = async (callId: string, to: string) => {
    const placed = await carrier.placeCall({ callId, from: '+15555550100', to, eventsUrl: 'unused' });
    const call = stub.calls.get(placed.carrierCallId)!;
    call.status = 'in-progress';
    return call;
  };

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
    carrier = twilioOn();
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

  describe('US messaging: the Messaging Service (issue 26 item 4)', () => {
    let serviceSid: string;
    let texting: TwilioCarrier;
    beforeAll(() => {
      serviceSid = stub.addMessagingService();
      texting = twilioOn({ messagingServiceSid: serviceSid });
    });
    const joins = () => stub.requests.filter((r) => r.method === 'POST' && r.path === `/v1/Services/${serviceSid}/PhoneNumbers`);

    it('a bought number joins the Messaging Service right after purchase; a retry finds it joined and adds nothing', async () => {
      const bought = await texting.provisionNumber({ idempotencyKey: 'line:texting', country: 'US' });
      expect(stub.messagingServices.get(serviceSid)).toEqual(new Set([bought.carrierRef]));
      expect(joins().map((r) => r.params)).toEqual([{ PhoneNumberSid: bought.carrierRef }]);
      // The retry of a provisioning whose answer was lost: the number (found by its FriendlyName) is in the service already.
      expect(await texting.provisionNumber({ idempotencyKey: 'line:texting', country: 'US' })).toEqual(bought);
      expect(joins()).toHaveLength(2);
      expect(stub.requests.filter((r) => r.path === `/v1/Services/${serviceSid}/PhoneNumbers/${bought.carrierRef}`)).toHaveLength(1);
      expect(stub.messagingServices.get(serviceSid)).toEqual(new Set([bought.carrierRef]));
    });

    it('sends SMS through the service, from the line’s number', async () => {
      const sent = await texting.sendSms({ messageId: 'm-service', from: '+15555550100', to: '+15555550196', text: 'hi', statusUrl: 'u' });
      expect(stub.messages.get(sent.carrierMessageId)).toMatchObject({ from: '+15555550100', messagingServiceSid: serviceSid });
    });

    it('a number the service will not take is given back, and the refusal names Twilio’s code', async () => {
      const elsewhere = twilioOn({ messagingServiceSid: `MG${'f'.repeat(32)}` });
      const before = new Set(stub.numbers.keys());
      const refused = await elsewhere.provisionNumber({ idempotencyKey: 'line:no-service', country: 'US' }).catch((err: Error) => err);
      expect(refused).toBeInstanceOf(CarrierRejectedError);
      expect((refused as CarrierRejectedError).refusal).toEqual({ provider: 'twilio', code: '20404' });
      expect(new Set(stub.numbers.keys())).toEqual(before);
    });
  });

  describe('numbers outside the US: Address and Bundle (issue 26, non-US requirements)', () => {
    const germany = (regulation?: { addressSids?: Record<string, string>; bundleSids?: Record<string, string> }) =>
      twilioOn(regulation ? { regulation } : {});
    const address = `AD${'1'.repeat(32)}`;
    const bundle = `BU${'2'.repeat(32)}`;

    it('without them Twilio refuses the purchase (21631, 21649) and the refusal names Twilio’s code and the setting', async () => {
      const noAddress = await germany()
        .provisionNumber({ idempotencyKey: 'line:de-1', country: 'DE' })
        .catch((err: Error) => err);
      expect(noAddress).toBeInstanceOf(CarrierRejectedError);
      expect((noAddress as CarrierRejectedError).refusal).toEqual({ provider: 'twilio', code: '21631' });
      expect((noAddress as Error).message).toBe(
        'Twilio refused to buy a number: 400 (21631) Phone Number Requires an Address (numbers in DE need it: set TWILIO_LIVE_ADDRESS_SIDS=DE:… on the worker, docs/carriers.md)',
      );
      const noBundle = await germany({ addressSids: { DE: address } })
        .provisionNumber({ idempotencyKey: 'line:de-2', country: 'DE' })
        .catch((err: Error) => err);
      expect((noBundle as CarrierRejectedError).refusal).toEqual({ provider: 'twilio', code: '21649' });
      expect((noBundle as Error).message).toMatch(/set TWILIO_LIVE_BUNDLE_SIDS=DE:… on the worker/);
      expect([...stub.numbers.values()].filter((n) => n.phoneNumber.startsWith('+49'))).toEqual([]);
    });

    it('with the country’s Address and Bundle configured, the number is bought with them', async () => {
      const bought = await germany({ addressSids: { DE: address }, bundleSids: { DE: bundle } }).provisionNumber({
        idempotencyKey: 'line:de-3',
        country: 'DE',
      });
      expect(bought.phoneNumber).toMatch(/^\+4930/);
      const purchase = stub.requests.find(
        (r) => r.method === 'POST' && r.path.endsWith('/IncomingPhoneNumbers.json') && r.params.FriendlyName === 'line:de-3',
      );
      expect(purchase?.params).toMatchObject({ AddressSid: address, BundleSid: bundle });
    });
  });

  it('with test credentials buys only the test number and never searches inventory', async () => {
    const testCarrier = twilioOn({ mode: 'test' });
    const sent = stub.requests.length;
    const bought = await testCarrier.provisionNumber({ idempotencyKey: 'line:test', country: 'US' });
    expect(bought.phoneNumber).toBe(TWILIO_TEST_NUMBER);
    // No search, no list, no Messaging Service: test credentials may only POST IncomingPhoneNumbers, Messages and Calls.
    expect(stub.requests.slice(sent).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /2010-04-01/Accounts/${stub.accountSid}/IncomingPhoneNumbers.json`,
    ]);
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
    const call = await answeredCall('c0ffee00-0000-4000-8000-000000000007', '+15555550181');
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
    const worker = (attempts: ReturnType<typeof memoryCreateAttempts>) => twilioOn({ attempts });

    /** A worker whose requests never reach Twilio. */
    const unreachableWorker = (attempts: ReturnType<typeof memoryCreateAttempts>) =>
      twilioOn({ apiBaseUrl: 'http://127.0.0.1:9', attempts });

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

    it('a message: the retry adopts the message the first attempt created, even with its body rewritten by Smart Encoding', async () => {
      const attempts = memoryCreateAttempts();
      const serviceSid = stub.addMessagingService({ smartEncoding: true });
      const through = twilioOn({ attempts, messagingServiceSid: serviceSid });
      const request = { messageId: 'm-lost', from: '+15555550100', to: '+15555550186', text: 'Your order’s ready', statusUrl: 'unused' };
      await through.sendSms({ ...request, messageId: 'm-other', text: 'Another text' });
      stub.loseNextCreateAnswer('Messages');
      await expect(through.sendSms(request)).rejects.toThrow(/Twilio error trying to send a message/);
      const sent = [...stub.messages.values()].filter((m) => m.to === request.to && m.body === "Your order's ready");
      expect(sent).toHaveLength(1);
      const retried = await through.sendSms(request);
      expect(retried.carrierMessageId).toBe(sent[0].sid);
      expect([...stub.messages.values()].filter((m) => m.to === request.to)).toHaveLength(2);
    });

    it('a message: nothing created after the earlier attempts ended is adopted; the retry sends', async () => {
      const attempts = memoryCreateAttempts();
      const request = { messageId: 'm-unsent', from: '+15555550100', to: '+15555550185', text: 'Hello', statusUrl: 'unused' };
      const unreachable = twilioOn({ apiBaseUrl: 'http://127.0.0.1:9', attempts });
      await expect(unreachable.sendSms(request)).rejects.toThrow(/Twilio error/);
      // Sent to the same person from the same number by someone else, a minute after that attempt ended (clock skew is 5 s).
      const later = await worker(memoryCreateAttempts()).sendSms({ ...request, messageId: 'm-elsewhere' });
      stub.messages.get(later.carrierMessageId)!.dateCreated = new Date(Date.now() + 60_000);
      const retried = await worker(attempts).sendSms(request);
      expect(retried.carrierMessageId).not.toBe(later.carrierMessageId);
      expect([...stub.messages.values()].filter((m) => m.to === request.to)).toHaveLength(2);
    });

    it('with test credentials (a 403 on every list) a retry after a lost answer sends again instead of looking', async () => {
      const testStub = await startTwilioStub({ testCredentials: true });
      try {
        const testWorker = new TwilioCarrier({
          account: { accountSid: testStub.accountSid, authToken: testStub.authToken },
          publicBaseUrl,
          mode: 'test',
          apiBaseUrl: testStub.url,
          relay,
          attempts: memoryCreateAttempts(),
        });
        const request = { messageId: 'm-test', from: TWILIO_TEST_NUMBER, to: '+15555550184', text: 'Test', statusUrl: 'unused' };
        testStub.loseNextCreateAnswer('Messages');
        await expect(testWorker.sendSms(request)).rejects.toThrow(/Twilio error trying to send a message/);
        const retried = await testWorker.sendSms(request);
        expect(testStub.messages.has(retried.carrierMessageId)).toBe(true);
        const call = { callId: 'c0ffee00-0000-4000-8000-000000000005', from: TWILIO_TEST_NUMBER, to: '+15555550184', eventsUrl: 'unused' };
        testStub.loseNextCreateAnswer('Calls');
        await expect(testWorker.placeCall(call)).rejects.toThrow(/Twilio error trying to place a call/);
        await testWorker.placeCall(call);
        expect(testStub.requests.filter((r) => r.method !== 'POST')).toEqual([]);
        expect(testStub.requests.map((r) => r.path.split('/').pop())).toEqual([
          'Messages.json',
          'Messages.json',
          'Calls.json',
          'Calls.json',
        ]);
      } finally {
        await testStub.close();
      }
    });
  });

  it('moves an audio call to its stream even when Twilio takes the move after the client gave up waiting for its answer', async () => {
    const port = await freePort();
    const media = new MediaSocketServer(`ws://127.0.0.1:${port}/twilio/media`, port, '127.0.0.1');
    const slow = twilioOn({ media, timeoutMs: 2_000 });
    const call = await answeredCall('c0ffee00-0000-4000-8000-000000000008', '+15555550182');
    const move = stub.stallNextUpdate(call.sid);
    const opening = slow.openMediaStream({ carrierCallId: call.sid });
    await move.abandoned;
    // Twilio carries out the move it was asked for, late: the stream arrives on the URL the attempt still holds.
    move.release();
    const stream = await opening;
    expect(call.updates).toHaveLength(1);
    expect(call.media?.url).toBe(/<Stream url="([^"]*)"/.exec(String(call.updates[0].Twiml))?.[1]);
    await stream.close();
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
