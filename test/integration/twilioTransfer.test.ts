import crypto from 'node:crypto';
import { customer } from '../support/customer';
import { eventually, webhookLine } from '../support/harness';
import { useTwilioLiveSuite } from '../support/twilioHarness';

/**
 * Call transfer and answering-machine detection on Twilio (live environment), against the
 * contract stub (test/support/twilioStub.ts): MachineDetection on Calls create and `AnsweredBy` on
 * the answer; a transfer as a Calls update to `<Dial><Number>`, its answer from the Number's status
 * callback and its end from the Dial's action.
 */
describe('Twilio transfer and machine detection (contract stub)', () => {
  const { ctx, stub, stubCallTo } = useTwilioLiveSuite({ firstNumber: 5557100 });
  const { h } = ctx;
  const { lines, calls } = customer(ctx, { key: () => ctx.tenant.keys.live, line: () => webhookLine({ webhook_url: ctx.receiver.url }) });
  const transfer = (id: string, to: string) =>
    h.request('POST', `/api/v1/calls/${id}/transfer`, { key: ctx.tenant.keys.live, body: { to_number: to } });
  const attrOf = (twiml: string, element: string, name: string) =>
    new RegExp(`<${element}\\b[^>]*\\b${name}="([^"]*)"`).exec(twiml)![1].replace(/&amp;/g, '&');
  const event = (callId: string, type: string) =>
    eventually(async () => ctx.receiver.requests.find((r) => r.body.event === type && r.body.call_id === callId), 20_000, type);

  it('machine detection: Calls create asks for it, and the AnsweredBy of the answer is the call’s answered_by', async () => {
    const line = await lines.create();
    const placed = await h.request('POST', '/api/v1/calls', {
      key: ctx.tenant.keys.live,
      body: { line_id: line.id, to_number: '+14155550301', machine_detection: 'detect' },
    });
    expect(placed.status).toBe(201);
    const id = placed.body.call.id as string;
    const twilioCall = await stubCallTo('+14155550301');
    expect(twilioCall.machineDetection).toBe('Enable');
    await stub.answer(twilioCall.sid, 'machine_end_beep');
    expect((await calls.untilStatus(id, ['in_progress'])).answered_by).toBe('machine');
    expect((await event(id, 'call_started')).body.answered_by).toBe('machine');
    await calls.hangUp(id);
  });

  it('a campaign’s voicemail: DetectMessageEnd with async AMD; nothing is said until the verdict at the greeting’s end, then the message, once', async () => {
    const VOICEMAIL = 'This is the clinic: please call us back about tomorrow.';
    const line = await lines.create();
    const created = await h.request('POST', '/api/v1/campaigns', {
      key: ctx.tenant.keys.live,
      body: {
        line_ids: [line.id],
        contacts: [{ to_number: '+14155550309' }],
        answering_machine: { action: 'voicemail', voicemail_message: VOICEMAIL },
      },
    });
    expect(created.status).toBe(201);
    const twilioCall = await stubCallTo('+14155550309');
    expect(twilioCall.machineDetection).toBe('DetectMessageEnd');
    const create = stub.requests.find((r) => r.path.endsWith('/Calls.json') && r.method === 'POST' && r.params.To === '+14155550309')!;
    expect(create.params).toMatchObject({ AsyncAmd: 'true', AsyncAmdStatusCallbackMethod: 'POST' });
    expect(twilioCall.asyncAmdStatusCallback).toMatch(/\/carrier\/twilio\/calls\/amd\?call_id=/);
    const callId = new URL(twilioCall.asyncAmdStatusCallback!).searchParams.get('call_id')!;

    // Answered: Twilio fetches the Url at once, without AnsweredBy, and the session opens while the greeting plays.
    await stub.answer(twilioCall.sid);
    const relay = await eventually(async () => twilioCall.relay, 20_000, 'the ConversationRelay session');
    expect(relay.said).toEqual([]);

    // The greeting ended with its beep: the verdict, sent twice as Twilio may; the second is a repeat.
    expect((await stub.amdStatus(twilioCall.sid, 'machine_end_beep')).status).toBe(204);
    expect((await stub.amdStatus(twilioCall.sid, 'machine_end_beep')).status).toBe(204);
    await eventually(async () => (relay.said.length > 0 ? true : undefined), 20_000, 'the voicemail message');
    expect(relay.said).toEqual([VOICEMAIL]);
    await stub.finishSpeech(twilioCall.sid);
    const call = await calls.untilStatus(callId, ['completed']);
    expect(call).toMatchObject({ answered_by: 'machine', end_cause: 'answering_machine' });
    expect(call.transcript).toEqual([expect.objectContaining({ role: 'assistant', text: VOICEMAIL })]);
    const campaignId = created.body.campaign.id as string;
    const result = await eventually(async () => {
      const res = await h.request('GET', `/api/v1/campaigns/${campaignId}/results`, { key: ctx.tenant.keys.live });
      return res.body.results?.[0]?.status === 'done' ? res.body.results[0] : undefined;
    });
    expect(result).toMatchObject({ outcome: 'voicemail', attempts: 1, call_ids: [callId] });
  });

  it('a campaign’s voicemail answered by a fax (AnsweredBy=fax): hung up at once, nothing said, outcome machine', async () => {
    const line = await lines.create();
    const created = await h.request('POST', '/api/v1/campaigns', {
      key: ctx.tenant.keys.live,
      body: {
        line_ids: [line.id],
        contacts: [{ to_number: '+14155550319' }],
        answering_machine: { action: 'voicemail', voicemail_message: 'Please call the clinic back.' },
      },
    });
    expect(created.status).toBe(201);
    const twilioCall = await stubCallTo('+14155550319');
    const callId = new URL(twilioCall.asyncAmdStatusCallback!).searchParams.get('call_id')!;
    await stub.answer(twilioCall.sid);
    const relay = await eventually(async () => twilioCall.relay, 20_000, 'the ConversationRelay session');
    // A fax's verdict: no greeting end follows it.
    expect((await stub.amdStatus(twilioCall.sid, 'fax')).status).toBe(204);
    const call = await calls.untilStatus(callId, ['completed']);
    expect(call).toMatchObject({ answered_by: 'machine', end_cause: 'answering_machine', transcript: null });
    expect(relay.said).toEqual([]);
    const campaignId = created.body.campaign.id as string;
    const result = await eventually(async () => {
      const res = await h.request('GET', `/api/v1/campaigns/${campaignId}/results`, { key: ctx.tenant.keys.live });
      return res.body.results?.[0]?.status === 'done' ? res.body.results[0] : undefined;
    });
    expect(result).toMatchObject({ outcome: 'machine', attempts: 1, call_ids: [callId] });
  });

  it('a transfer: the call runs <Dial> from the line’s number; answered, it is transferred and ends when the destination hangs up', async () => {
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550302');
    const twilioCall = await stubCallTo('+14155550302');
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);

    const pending = transfer(call.id, '+14155552692');
    await eventually(async () => (twilioCall.twiml.includes('<Dial') ? true : undefined), 20_000, 'the Dial');
    expect(twilioCall.twiml).toContain(`callerId="${line.phone_number}"`);
    expect(twilioCall.twiml).toMatch(/<Number [^>]*statusCallbackEvent="answered"[^>]*>\+14155552692<\/Number>/);
    await stub.answerTransfer(twilioCall.sid);
    const result = await pending;
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ transferred: true, to_number: '+14155552692', failure_reason: null });
    expect((await calls.get(call.id)).transferred_to).toBe('+14155552692');
    await event(call.id, 'call_transferred');
    // The update is recorded for every worker: a retry of this transfer anywhere dials nothing more.
    const recorded = await ctx.h
      .db('carrier_create_attempts')
      .where({ kind: 'transfer' })
      .andWhereLike('carrier_id', `${twilioCall.sid}:%`);
    expect(recorded).toMatchObject([{ running_until: null }]);

    await stub.endTransfer(twilioCall.sid);
    const ended = await calls.untilStatus(call.id, ['completed']);
    expect(ended.end_cause).toBe('transferred');
    expect(twilioCall.status).toBe('completed');
  });

  it('a transfer whose update answer was lost is not sent again: the bridged destination stays, and the call is transferred', async () => {
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550304');
    const twilioCall = await stubCallTo('+14155550304');
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    // Twilio takes the <Dial> but the answer never reaches the worker: the activity is retried.
    stub.loseNextUpdateAnswer(twilioCall.sid);
    const pending = transfer(call.id, '+14155552694');
    await eventually(async () => (twilioCall.twiml.includes('<Dial') ? true : undefined), 20_000, 'the Dial');
    const leg = twilioCall.dialLeg!;
    expect(leg).toMatchObject({ parentCallSid: twilioCall.sid, to: '+14155552694' });
    // The retry has looked at Twilio (or sent the update again) before the destination answers.
    const dials = () => twilioCall.updates.filter((update) => String(update.Twiml ?? '').includes('<Dial')).length;
    const lookedForLeg = () => stub.requests.some((r) => r.method === 'GET' && r.params.ParentCallSid === twilioCall.sid);
    await eventually(async () => (lookedForLeg() || dials() > 1 ? true : undefined), 20_000, 'the retried transfer');
    await stub.answerTransfer(twilioCall.sid);
    // The transfer answers once its activity, retry included, is done.
    expect((await pending).body).toMatchObject({ transferred: true, to_number: '+14155552694' });
    expect(dials()).toBe(1);
    expect([twilioCall.dialLeg, leg.status]).toEqual([leg, 'in-progress']);
    const transferId = new URL(attrOf(twilioCall.twiml, 'Dial', 'action')).searchParams.get('transfer_id')!;
    expect(await ctx.h.db('carrier_create_attempts').where({ kind: 'transfer', key: transferId })).toMatchObject([
      { carrier_id: `${twilioCall.sid}:${transferId}`, running_until: null },
    ]);
    await stub.endTransfer(twilioCall.sid);
    expect((await calls.untilStatus(call.id, ['completed'])).end_cause).toBe('transferred');
  });

  it('a transfer’s own callbacks complete its record, so a retry after a lost answer sends nothing; forged ones do not', async () => {
    const transferId = crypto.randomUUID();
    const parent = `CA${crypto.randomBytes(16).toString('hex')}`;
    await ctx.h.db('carrier_create_attempts').insert({ kind: 'transfer', key: transferId });
    const url = `${h.apiUrl}/carrier/twilio/calls/transfer?call_id=${crypto.randomUUID()}&transfer_id=${transferId}`;
    const answered = {
      AccountSid: stub.accountSid,
      ApiVersion: '2010-04-01',
      CallSid: `CA${crypto.randomBytes(16).toString('hex')}`,
      ParentCallSid: parent,
      CallStatus: 'in-progress',
      Direction: 'outbound-dial',
      CallbackSource: 'call-progress-events',
      SequenceNumber: '0',
    };
    const record = async () => (await ctx.h.db('carrier_create_attempts').where({ kind: 'transfer', key: transferId }).first()).carrier_id;
    expect((await stub.post(url, answered, stub.sign(url, answered, 'c'.repeat(32)))).status).toBe(403);
    expect(await record()).toBeNull();
    expect((await stub.post(url, answered)).status).toBe(204);
    expect(await record()).toBe(`${parent}:${transferId}`);
  });

  it('a transfer nobody answers: the Dial’s action hands the call back, listening, to the agent', async () => {
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550303');
    const twilioCall = await stubCallTo('+14155550303');
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    const pending = transfer(call.id, '+14155552693');
    await eventually(async () => (twilioCall.twiml.includes('<Dial') ? true : undefined), 20_000, 'the Dial');
    await stub.endTransfer(twilioCall.sid, 'busy');
    expect((await pending).body).toMatchObject({ transferred: false, failure_reason: 'not_answered' });
    expect(twilioCall.twiml).toContain('<ConversationRelay');
    expect((await calls.get(call.id)).status).toBe('in_progress');

    // A forged Dial action changes nothing.
    const action = `${h.apiUrl}/carrier/twilio/calls/dialed?call_id=${call.id}`;
    const forged = { AccountSid: stub.accountSid, CallSid: twilioCall.sid, CallStatus: 'in-progress', DialCallStatus: 'completed' };
    expect((await stub.post(action, forged, stub.sign(action, forged, 'b'.repeat(32)))).status).toBe(403);
    expect((await calls.get(call.id)).status).toBe('in_progress');
    expect((await transfer(call.id, '+1 415 CALL ME')).status).toBe(422);
    await calls.hangUp(call.id);
    expect((await calls.untilStatus(call.id, ['completed'])).end_cause).toBe('api_hangup');
    const ended = await transfer(call.id, '+14155552693');
    expect([ended.status, ended.body.error.code]).toEqual([409, 'call_not_active']);
    expect(twilioCall.updates.filter((update) => String(update.Twiml ?? '').includes('<Dial'))).toHaveLength(1);
  });
});
