import crypto from 'node:crypto';
import { decodeClientState } from '../../src/adapters/carrier/callbacks/telnyx/clientState';
import { startLoggingApi, type LoggingApi } from '../support/loggingApi';
import { customer } from '../support/customer';
import { eventually, webhookLine, type Harness } from '../support/harness';
import { useTelnyxLiveSuite } from '../support/telnyxHarness';
import type { StubCall } from '../support/telnyxStub';
import { useTwilioLiveSuite } from '../support/twilioHarness';

/**
 * What a customer sees when the carrier refuses (issue 26, "Bad input"), through the public API against
 * the providers' contract stubs refusing as the providers document: the spec's code where one fits,
 * otherwise 502 `carrier_error` naming the provider and its code, with nothing half-written; after the
 * API's wait, the line's `provisioning_error` says the same. Twilio errors are `{code, message, more_info,
 * status}`; Telnyx errors `{errors: [{code, title, detail}]}`.
 */

const carrierError = (provider: string, code: string, action: string) => ({
  error: {
    code: 'carrier_error',
    message: `The carrier refused to ${action} (${provider === 'twilio' ? 'Twilio' : 'Telnyx'}: error ${code})`,
    details: [
      { field: 'provider', message: provider },
      { field: 'provider_code', message: code },
    ],
  },
});

/** The lines `key` lists. */
const listed = async (h: Harness, key: string): Promise<unknown[]> => (await h.request('GET', '/api/v1/lines', { key })).body.lines;

describe('a carrier refusal on Twilio (live environment, contract stub)', () => {
  const { ctx, stub } = useTwilioLiveSuite({ firstNumber: 5556100, messagingService: true });
  const { lines } = customer(ctx, { key: () => ctx.tenant.keys.live });

  it('a number Twilio will not sell without an address (21631) is 502 carrier_error naming Twilio and 21631, and nothing is left', async () => {
    // Germany's numbers need TWILIO_LIVE_ADDRESS_SIDS, which this deployment lacks: Twilio answers the purchase 400 21631.
    const refused = await lines.post({ country: 'DE' });
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual(carrierError('twilio', '21631', 'provide a number for this line'));
    const purchase = stub.requests.find((r) => r.method === 'POST' && r.path.endsWith('/IncomingPhoneNumbers.json'));
    expect(purchase?.params.PhoneNumber).toMatch(/^\+4930/);
    expect([...stub.numbers.values()].filter((n) => n.phoneNumber.startsWith('+4930'))).toEqual([]);
    expect(await ctx.h.db('lines').where({ workspace_id: ctx.tenant.workspaceId })).toEqual([]);
    expect(await listed(ctx.h, ctx.tenant.keys.live)).toEqual([]);
    // Nothing half-made: the user's first live line is still the free one (no card on file, else 402).
    const first = await lines.post({});
    expect(first.status).toBe(201);
    expect(first.body.line.grace_ends_at).not.toBeNull();
  });

  describe('callbacks Switchboard does not understand, or cannot verify', () => {
    /** A second API on the harness's configuration whose log lines are kept. */
    let api: LoggingApi;
    beforeAll(async () => {
      api = await startLoggingApi(ctx.h);
    });
    afterAll(async () => api?.close());

    /** Posts a form to `path` on the logging API, signed as Twilio signs it over the public URL (or with `signature`). */
    const post = (path: string, params: Record<string, string>, signature?: string) => {
      const publicUrl = `${ctx.h.config.publicBaseUrl}${path}`;
      return fetch(`${api.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature ?? stub.sign(publicUrl, params) },
        body: new URLSearchParams(params).toString(),
      });
    };
    const logged = (msg: string) => api.logs.filter((l) => l.msg === msg);

    it('a status Twilio does not document is acknowledged, changes nothing, and is logged with what it carried', async () => {
      const callSid = `CA${crypto.randomBytes(16).toString('hex')}`;
      const callStatus = { AccountSid: stub.accountSid, CallSid: callSid, CallStatus: 'on-hold', SequenceNumber: '0' };
      expect((await post('/carrier/twilio/calls/status', callStatus)).status).toBe(204);
      const messageSid = `SM${crypto.randomBytes(16).toString('hex')}`;
      const receipt = { AccountSid: stub.accountSid, MessageSid: messageSid, MessageStatus: 'rerouted' };
      const messageId = crypto.randomUUID();
      expect((await post(`/carrier/twilio/messages/status?message_id=${messageId}`, receipt)).status).toBe(204);
      expect(logged('twilio callback not understood')).toEqual([
        expect.objectContaining({ path: '/carrier/twilio/calls/status', callSid, status: 'on-hold' }),
        expect.objectContaining({
          path: '/carrier/twilio/messages/status',
          messageSid,
          status: 'rerouted',
          parameters: ['AccountSid', 'MessageSid', 'MessageStatus'],
        }),
      ]);
      expect(await ctx.h.db('calls').where({ carrier_call_id: callSid })).toEqual([]);
      expect(await ctx.h.db('messages').where({ id: messageId })).toEqual([]);
    });

    it('a callback that fails verification is 403, changes nothing, and is logged with the reason', async () => {
      const callSid = `CA${crypto.randomBytes(16).toString('hex')}`;
      const forged = { AccountSid: stub.accountSid, CallSid: callSid, CallStatus: 'completed', SequenceNumber: '1' };
      const publicUrl = `${ctx.h.config.publicBaseUrl}/carrier/twilio/calls/status`;
      expect((await post('/carrier/twilio/calls/status', forged, stub.sign(publicUrl, forged, 'f'.repeat(32)))).status).toBe(403);
      expect((await post('/carrier/twilio/calls/status', forged, '')).status).toBe(403);
      expect(logged('twilio callback refused').filter((l) => l.callSid === callSid)).toEqual([
        expect.objectContaining({ reason: 'signature_mismatch' }),
        expect.objectContaining({ reason: 'missing_signature' }),
      ]);
    });
  });
});

describe('a carrier refusal on Twilio known only after the 201 (a slow carrier)', () => {
  const { ctx, stub } = useTwilioLiveSuite({ firstNumber: 5556600, messagingService: true, overrides: { lineProvisionWaitMs: 300 } });
  const { lines } = customer(ctx, { key: () => ctx.tenant.keys.live });

  it('releases the line with provisioning_error naming Twilio and 21631', async () => {
    // The first purchase finds its number sold (21422): the activity searches again a second later, past the API's wait.
    stub.sellBeforeNextPurchase();
    const created = await lines.post({ country: 'DE' });
    expect(created.status).toBe(201);
    expect(created.body.line).toMatchObject({ status: 'provisioning', provisioning_error: null });
    const released = await lines.untilReleased(created.body.line.id);
    expect(released).toMatchObject({
      phone_number: null,
      provisioning_error: {
        code: 'carrier_error',
        field: null,
        message: 'The carrier refused to provide a number for this line (Twilio: error 21631)',
        provider: 'twilio',
        provider_code: '21631',
      },
    });
  });
});

describe('a carrier refusal on Telnyx (live environment, contract stub)', () => {
  const { ctx, stub } = useTelnyxLiveSuite({ campaignId: 'stub-campaign' });
  const { lines, calls } = customer(ctx, { key: () => ctx.tenant.keys.live, line: () => webhookLine() });

  /** Telnyx's refusals, as its error catalogue words them (developers.telnyx.com/development/api-fundamentals/api-errors, …/api/errors/90018). */
  const NOT_PERMITTED = {
    code: '10010',
    title: 'Authorization failed',
    detail: 'You do not have permission to perform the requested action on the specified resource or resources.',
  };
  const CALL_ENDED = {
    code: '90018',
    title: 'Call has already ended',
    detail: "This call is no longer active and can't receive commands.",
  };

  it('a number order waiting on regulatory requirements (requirements_met: false) is 502 carrier_error naming Telnyx, and nothing is left', async () => {
    stub.scriptOrders('requirements');
    const refused = await lines.post();
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual(carrierError('telnyx', 'requirements_met_false', 'provide a number for this line'));
    expect(await ctx.h.db('lines').where({ workspace_id: ctx.tenant.workspaceId })).toEqual([]);
    expect(await listed(ctx.h, ctx.tenant.keys.live)).toEqual([]);
  });

  /** An outbound call on a new line, answered at Telnyx and in progress. */
  const answeredCall = async (): Promise<{ id: string; call: StubCall }> => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id as string;
    const call = await eventually(async () =>
      [...stub.calls.values()].find((c) => decodeClientState(c.commands.find((x) => x.action === 'dial')?.body.client_state).c === id),
    );
    await stub.answer(call.id);
    await calls.untilStatus(id, ['in_progress']);
    return { id, call };
  };

  it('a key press Telnyx refuses is 502 carrier_error naming its code and the call goes on; refused as ended it is 409 call_not_active', async () => {
    const { id, call } = await answeredCall();
    stub.refuseNext(`/calls/${call.id}/actions/send_dtmf`, 403, NOT_PERMITTED);
    const refused = await calls.press(id, { digits: '1' });
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual(carrierError('telnyx', '10010', 'play the digits'));
    expect((await calls.get(id)).status).toBe('in_progress');
    expect((await calls.press(id, { digits: '2' })).body).toMatchObject({ pressed: true, digits: '2' });

    stub.refuseNext(`/calls/${call.id}/actions/send_dtmf`, 422, CALL_ENDED);
    const ended = await calls.press(id, { digits: '3' });
    expect(ended.status).toBe(409);
    expect(ended.body.error.code).toBe('call_not_active');
    expect(call.tones).toEqual(['2']);
  });

  it('a transfer Telnyx refuses is 502 carrier_error and the call is back with the agent; refused as ended it answers call_ended', async () => {
    const { id, call } = await answeredCall();
    stub.refuseNext(`/calls/${call.id}/actions/transfer`, 403, NOT_PERMITTED);
    const refused = await calls.transfer(id, { to_number: '+14155550188' });
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual(carrierError('telnyx', '10010', 'transfer the call'));
    expect(await calls.get(id)).toMatchObject({ status: 'in_progress', transferred_to: null });
    expect(stub.transferLeg(call.id)).toBeUndefined();

    stub.refuseNext(`/calls/${call.id}/actions/transfer`, 422, CALL_ENDED);
    const ended = await calls.transfer(id, { to_number: '+14155550188' });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ transferred: false, failure_reason: 'call_ended' });
  });

  it('a speech Telnyx refuses is 502 carrier_error naming its code, and the call goes on', async () => {
    const { id, call } = await answeredCall();
    stub.refuseNext(`/calls/${call.id}/actions/speak`, 403, NOT_PERMITTED);
    const refused = await calls.speak(id, { text: 'Your table is ready.' });
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual(carrierError('telnyx', '10010', 'speak on the call'));
    expect(call.speeches).toEqual([]);
    // Before issue 26 a refused speech ended the call: it is still up, and still takes commands.
    expect((await calls.press(id, { digits: '1' })).body).toMatchObject({ pressed: true });
    expect((await calls.get(id)).status).toBe('in_progress');
  });
});
