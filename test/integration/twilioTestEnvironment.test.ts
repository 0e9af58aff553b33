import crypto from 'node:crypto';
import { customer, type Line } from '../support/customer';
import { createTenant, eventually, webhookLine } from '../support/harness';
import { reachRefusals, startLoggingApi, type LoggingApi } from '../support/loggingApi';
import { startTwilioStub, twilioSignature, type TwilioStub } from '../support/twilioStub';
import { openTwilioSocket, twilioSocketSignature } from '../support/twilioStubSockets';
import { TWILIO_TEST_NUMBER } from '../../src/adapters/carrier/twilio/twilioCarrier';
import type { Config } from '../../src/platform/config';
import { useSuite } from '../support/suite';

/**
 * The test environment on Twilio's test credentials (the stub plays the test account): a test key
 * buys only Twilio's test number, never searches inventory, and the live environment stays on its
 * own carrier (the simulator here).
 */
describe('Twilio carrier (test environment, test credentials)', () => {
  let stub: TwilioStub;
  const twilio: Config['twilio'] = {};
  beforeAll(async () => {
    // Test credentials: only POST IncomingPhoneNumbers, Messages and Calls; anything else is 403 (20008).
    stub = await startTwilioStub({ testCredentials: true });
    twilio.test = { accountSid: stub.accountSid, authToken: stub.authToken };
    twilio.apiBaseUrl = stub.url;
  });
  afterAll(async () => stub?.close());

  const ctx = useSuite({ worker: true, overrides: { carrier: { test: 'twilio', live: 'simulator' }, twilio } });
  const { h, tenant } = ctx;
  const { lines, messages, consent } = customer(ctx, { line: () => webhookLine() });

  it('a test line gets the test number without an inventory search; its SMS goes out from it; a live line stays off Twilio', async () => {
    const line = await lines.create();
    expect(line.phone_number).toBe(TWILIO_TEST_NUMBER);
    expect(stub.requests.filter((r) => r.path.includes('AvailablePhoneNumbers'))).toEqual([]);
    expect([...stub.numbers.values()].map((n) => n.phoneNumber)).toEqual([TWILIO_TEST_NUMBER]);

    const to = '+14155550120';
    expect((await consent.record(line.id, to, 'explicit_outbound', 'api')).status).toBe(201);
    const sent = await messages.send({ line_id: line.id, to, text: 'Test traffic' });
    expect(sent.status).toBe(201);
    await eventually(
      async () => [...stub.messages.values()].find((m) => m.to === to && m.from === TWILIO_TEST_NUMBER),
      20_000,
      'the message',
    );

    const liveLine = await lines.create({}, tenant.keys.live);
    expect(liveLine.phone_number).not.toBe(TWILIO_TEST_NUMBER);
    expect(stub.numbers.size).toBe(1);

    // A send whose answer is lost is sent again by the activity's retry: test credentials cannot list what the
    // first attempt created (403), and a test message reaches no phone and costs nothing.
    stub.loseNextCreateAnswer('Messages');
    const again = await messages.send({ line_id: line.id, to, text: 'Sent twice, harmlessly' });
    const carrierId = await eventually(
      async () => (await h.db('messages').where({ id: again.body.id }).first())?.carrier_message_id ?? undefined,
    );
    expect([...stub.messages.values()].filter((m) => m.body === 'Sent twice, harmlessly').map((m) => m.sid)).toEqual([
      expect.any(String),
      carrierId,
    ]);
    expect(stub.requests.filter((r) => r.method !== 'POST')).toEqual([]);

    // Twilio's one test number is every tenant's test number: another workspace's test line is active with it too (L19).
    const other = await createTenant(h.db);
    const theirs = await customer(ctx, { key: () => other.keys.test, line: () => webhookLine() }).lines.create();
    expect(theirs).toMatchObject({ status: 'active', phone_number: TWILIO_TEST_NUMBER });
    expect(await h.db('lines').where({ phone_number: TWILIO_TEST_NUMBER, status: 'active' }).pluck('id')).toEqual(
      expect.arrayContaining([line.id, theirs.id]),
    );

    expect((await lines.release(line.id)).status).toBe(200);
    await eventually(async () => ((await h.db('lines').where({ id: line.id }).first())?.status === 'released' ? true : undefined));
  });

  describe('a callback signed by the test account acts on nothing of the live environment (security review M11)', () => {
    let api: LoggingApi;
    beforeAll(async () => {
      api = await startLoggingApi(ctx.h, { ownPublicUrl: true });
    });
    afterAll(async () => api?.close());
    const live = customer(ctx, { key: () => ctx.tenant.keys.live, line: () => webhookLine() });

    /** A callback as Twilio's test account signs it: whoever holds TWILIO_TEST_AUTH_TOKEN can send this. */
    const asTestAccount = async (path: string, params: Record<string, string>) => {
      const url = `${api.url}${path}`;
      const signed = { AccountSid: stub.accountSid, ApiVersion: '2010-04-01', ...params };
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilioSignature(stub.authToken, url, signed),
        },
        body: new URLSearchParams(signed).toString(),
      });
      return { status: response.status, body: await response.text() };
    };
    const sid = (prefix: string) => `${prefix}${crypto.randomBytes(16).toString('hex')}`;

    it('no inbound SMS (START/STOP), inbound call, failed receipt, call status, connect, transfer or dial outcome, nor a relay session', async () => {
      const liveLine: Line = await live.lines.create();
      const from = '+14155550171';
      const optOuts = () => ctx.h.db('opt_outs').where({ workspace_id: tenant.workspaceId, phone_number: from });
      for (const keyword of ['START', 'STOP']) {
        const sms = await asTestAccount('/carrier/twilio/messages', {
          MessageSid: sid('SM'),
          From: from,
          To: liveLine.phone_number,
          Body: keyword,
        });
        expect(sms.status).toBe(404);
      }
      expect(await optOuts()).toEqual([]);
      expect(await ctx.h.db('messages').where({ line_id: liveLine.id, direction: 'inbound' })).toEqual([]);

      const rang = await asTestAccount('/carrier/twilio/voice', {
        CallSid: sid('CA'),
        CallStatus: 'ringing',
        Direction: 'inbound',
        From: from,
        To: liveLine.phone_number,
      });
      expect(rang.body).toContain('<Reject');
      expect(await ctx.h.db('calls').where({ line_id: liveLine.id, direction: 'inbound' })).toEqual([]);
      expect(reachRefusals(api, { line_id: liveLine.id, environment: 'live' })).toHaveLength(3);

      // A live SMS reported `failed` would release its hold: the text would be free.
      const to = '+14155550172';
      expect((await live.consent.record(liveLine.id, to, 'explicit_outbound', 'api')).status).toBe(201);
      const sent = await live.messages.send({ line_id: liveLine.id, to, text: 'Live text' });
      await live.messages.untilStatus(liveLine.id, to, sent.body.id, 'delivered');
      const failed = await asTestAccount(`/carrier/twilio/messages/status?message_id=${sent.body.id}`, {
        MessageSid: sid('SM'),
        MessageStatus: 'failed',
        ErrorCode: '30008',
      });
      expect(failed.status).toBe(404);
      expect((await live.messages.get(liveLine.id, to, sent.body.id))?.status).toBe('delivered');
      expect(reachRefusals(api, { message_id: sent.body.id, environment: 'live' })).toHaveLength(1);

      // A live call in progress (on the simulator): ended, answered, transferred or dialled by nobody but its carrier.
      const callId = (await live.calls.dial(liveLine.id)).id;
      await live.calls.untilStatus(callId, ['in_progress']);
      const callSid = sid('CA');
      const forged = [
        await asTestAccount(`/carrier/twilio/calls/status?call_id=${callId}`, {
          CallSid: callSid,
          CallStatus: 'completed',
          CallDuration: '3',
        }),
        await asTestAccount(`/carrier/twilio/calls/connect?call_id=${callId}`, { CallSid: callSid, CallStatus: 'in-progress' }),
        await asTestAccount(`/carrier/twilio/calls/transfer?call_id=${callId}&transfer_id=${crypto.randomUUID()}`, {
          CallSid: sid('CA'),
          ParentCallSid: callSid,
          CallStatus: 'in-progress',
        }),
        await asTestAccount(`/carrier/twilio/calls/dialed?call_id=${callId}`, { CallSid: callSid, DialCallStatus: 'no-answer' }),
      ];
      expect(forged.map((f) => f.status)).toEqual([204, 200, 204, 200]);
      expect(forged[1].body).toContain('<Hangup');
      expect(forged[1].body).not.toContain('ConversationRelay');
      expect(reachRefusals(api, { call_id: callId, environment: 'live' }).length).toBeGreaterThanOrEqual(3);
      // The relay socket of the live call opens for no one: the test account got no URL for it (connect hung up above),
      // and one it signs itself is refused.
      const relay = `${api.url.replace('http', 'ws')}/carrier/twilio/relay/${callId}`;
      for (const url of [relay, `${relay}/${crypto.randomBytes(24).toString('base64url')}`]) {
        const opened = await openTwilioSocket(url, twilioSocketSignature(stub.authToken, url)).then(
          (ws) => {
            ws.close(1000);
            return 'opened';
          },
          (err: Error) => err.message,
        );
        expect(opened).toBe('upgrade refused with 403');
      }

      expect(await live.calls.get(callId)).toMatchObject({ status: 'in_progress' });
      expect((await live.calls.hangUp(callId)).body.call).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });
    });
  });
});
