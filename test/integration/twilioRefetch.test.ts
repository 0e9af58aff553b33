import crypto from 'node:crypto';
import { startEchoAudioHandler } from '../support/echoAudioHandler';
import { customer } from '../support/customer';
import { eventually, webhookLine } from '../support/harness';
import { type SentCallback } from '../support/twilioStub';
import { until } from '../support/waits';
import { workflowReport } from '../support/workflowReport';
import { useTwilioLiveSuite } from '../support/twilioHarness';

/**
 * Twilio requests the same TwiML URL again with the same parameters, signed the same, whenever a call
 * runs that URL again: a failed transfer's `<Redirect>` back to `connect?resume=1` (after every failed
 * transfer of the call), the audio hold's `<Pause>` + `<Redirect>` loop (every 60 s), a Calls update
 * `Url` sent again after a lost answer. Twilio's voice request parameters carry no timestamp or nonce
 * (twilio.com/docs/usage/webhooks/voice-webhooks: CallSid, AccountSid, From, To, CallStatus, ApiVersion,
 * Direction, …), so such a request is byte-identical and must be answered; a forged one is still
 * refused, and one for no live call changes nothing. Status callbacks carry `SequenceNumber` (Twilio's
 * status callback parameters): a retry of one is acknowledged and taken once.
 */
describe('Twilio re-fetches of the same TwiML (contract stub)', () => {
  const { ctx, stub, stubCallTo } = useTwilioLiveSuite({ firstNumber: 5558100, media: true });
  const { lines, calls } = customer(ctx, { key: () => ctx.tenant.keys.live, line: () => webhookLine({ webhook_url: ctx.receiver.url }) });
  const path = (url: string) => new URL(url).pathname;
  const fetchesOf = (callSid: string, urlPath: string) =>
    stub.callbacks.filter((c) => c.params.CallSid === callSid && path(c.url) === urlPath);
  const webhookEvents = (callId: string, event: string) =>
    ctx.receiver.requests.filter((r) => r.body.call_id === callId && r.body.event === event);

  it('two failed transfers in one call: both hand the call back to the agent through the same connect URL, and it goes on', async () => {
    ctx.receiver.replyTo('Are you still there?', 'Yes, I am here.');
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550401');
    const twilioCall = await stubCallTo('+14155550401');
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);

    for (const [destination, outcome] of [
      ['+14155552601', 'busy'],
      ['+14155552602', 'no-answer'],
    ] as const) {
      const pending = calls.transfer(call.id, { to_number: destination });
      await eventually(async () => (twilioCall.twiml.includes(destination) ? true : undefined), 20_000, `the Dial to ${destination}`);
      await stub.endTransfer(twilioCall.sid, outcome);
      expect((await pending).body).toMatchObject({ transferred: false, failure_reason: 'not_answered' });
    }
    // Both failures redirected to the same URL, fetched with the same parameters: the second is answered like the first.
    const resumes = fetchesOf(twilioCall.sid, '/carrier/twilio/calls/connect').filter((c) => c.url.endsWith('resume=1'));
    expect(resumes).toHaveLength(2);
    expect(resumes[1].url).toBe(resumes[0].url);
    expect(resumes[1].params).toEqual(resumes[0].params);
    expect(resumes.map((c) => c.status)).toEqual([200, 200]);
    expect(resumes[1].body).toContain('<ConversationRelay');

    expect(twilioCall.status).toBe('in-progress');
    expect((await calls.get(call.id)).status).toBe('in_progress');
    await stub.callerSays(twilioCall.sid, 'Are you still there?');
    await eventually(async () => (twilioCall.relay?.said.includes('Yes, I am here.') ? true : undefined), 20_000, 'the agent’s reply');
    expect(webhookEvents(call.id, 'call_started')).toHaveLength(1);
    await calls.hangUp(call.id);
    expect((await calls.untilStatus(call.id, ['completed'])).end_cause).toBe('api_hangup');
  });

  it('an audio call still waiting for its stream: the hold’s redirect, fetched twice the same, holds it both times', async () => {
    const handler = await startEchoAudioHandler();
    try {
      const line = await lines.create({ mode: 'audio', webhook_url: undefined, audio_handler_url: handler.url });
      const call = await calls.dial(line.id, '+14155550402');
      const twilioCall = await stubCallTo('+14155550402');
      // Twilio is slow to take the worker's move to the stream: the call waits in the hold's loop meanwhile.
      const move = stub.stallNextUpdate(twilioCall.sid);
      await stub.answer(twilioCall.sid);
      await calls.untilStatus(call.id, ['in_progress']);
      await move.stalled;
      const held: SentCallback[] = [await stub.pauseEnds(twilioCall.sid), await stub.pauseEnds(twilioCall.sid)];
      expect(held[1].url).toBe(held[0].url);
      expect(held[1].params).toEqual(held[0].params);
      expect(held.map((c) => c.status)).toEqual([200, 200]);
      expect(held[1].body).toContain('<Pause length="60"/>');
      expect(twilioCall.status).toBe('in-progress');
      expect((await calls.get(call.id)).status).toBe('in_progress');

      move.release();
      // On a timeout, what the stub's call went through and what the call's workflow did say where it stopped.
      await until(() => twilioCall.media !== undefined, 'the stream', {
        timeoutMs: 20_000,
        intervalMs: 100,
        detail: () => `${twilioCall.status}, TwiML ${twilioCall.twiml}, updates ${JSON.stringify(twilioCall.updates)}`,
      }).catch(async (err: Error) => {
        throw new Error(`${err.message}\n  ${await workflowReport(ctx.h.temporal, call.id, 'call workflow')}`, { cause: err });
      });
      const frames = Array.from({ length: 5 }, (_, i) => Buffer.alloc(160, i + 1));
      await stub.talk(twilioCall.sid, frames);
      await eventually(async () => (twilioCall.media!.received.length === 5 ? true : undefined), 20_000, 'the echo');
      await calls.hangUp(call.id);
      await calls.untilStatus(call.id, ['completed']);
    } finally {
      await handler.close();
    }
  });

  it('an inbound call whose answer was lost: the retried redirect re-fetches connect, which is served, and the call is answered once', async () => {
    const line = await lines.create();
    // The workflow's answer (Calls update Url=connect) reaches Twilio, but its answer is lost: the activity sends it again.
    stub.loseNextUpdateAnswer();
    const twilioCall = await stub.incomingCall('+14155550403', line.phone_number);
    const row = await calls.untilInboundRow(line.id);
    await eventually(async () => (twilioCall.updates.length === 2 ? true : undefined), 20_000, 'the retried answer');
    expect(twilioCall.updates[1].Url).toBe(twilioCall.updates[0].Url);
    const connects = await eventually(
      async () => {
        const found = fetchesOf(twilioCall.sid, '/carrier/twilio/calls/connect');
        return found.length === 2 ? found : undefined;
      },
      20_000,
      'the second fetch of connect',
    );
    expect(connects[1].params).toEqual(connects[0].params);
    expect(connects.map((c) => c.status)).toEqual([200, 200]);
    await eventually(async () => (twilioCall.relay ? true : undefined), 20_000, 'the ConversationRelay session');
    expect(twilioCall.status).toBe('in-progress');
    expect((await calls.untilStatus(row.id, ['in_progress'])).status).toBe('in_progress');
    await eventually(async () => (webhookEvents(row.id, 'call_started').length > 0 ? true : undefined), 20_000, 'call_started');
    expect(webhookEvents(row.id, 'call_started')).toHaveLength(1);

    // The same request signed with another auth token, or altered after signing, is still refused and changes nothing.
    const genuine = connects[0];
    const forgedToken = await stub.post(genuine.url, genuine.params, stub.sign(genuine.url, genuine.params, 'f'.repeat(32)));
    const altered = await stub.post(
      genuine.url,
      { ...genuine.params, AnsweredBy: 'machine_start' },
      stub.sign(genuine.url, genuine.params),
    );
    expect([forgedToken.status, altered.status]).toEqual([403, 403]);
    expect((await calls.get(row.id)).answered_by).toBeNull();
    await stub.remoteHangUp(twilioCall.sid);
    await calls.untilStatus(row.id, ['completed']);
  });

  it('a request for no live call (ended, or another call’s CallSid) is answered with a hang-up and changes nothing', async () => {
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550404');
    const twilioCall = await stubCallTo('+14155550404');
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    const [answer] = fetchesOf(twilioCall.sid, '/carrier/twilio/calls/connect');

    // Another Twilio call fetching this call's connect URL (a stray leg) is not this call.
    const stray = { ...answer.params, CallSid: `CA${crypto.randomBytes(16).toString('hex')}` };
    const strayAnswer = await stub.post(answer.url, stray);
    expect([strayAnswer.status, strayAnswer.body]).toEqual([200, expect.stringContaining('<Hangup/>')]);
    expect((await calls.get(call.id)).status).toBe('in_progress');

    await calls.hangUp(call.id);
    const ended = await calls.untilStatus(call.id, ['completed']);
    // The same answer request again, after the end: a hang-up, and the call stays as it ended.
    const late = await stub.post(answer.url, answer.params);
    expect([late.status, late.body]).toEqual([200, expect.stringContaining('<Hangup/>')]);
    expect(await calls.get(call.id)).toMatchObject({ status: 'completed', end_cause: ended.end_cause, ended_at: ended.ended_at });
    expect(webhookEvents(call.id, 'call_started')).toHaveLength(1);
  });

  it('a status callback Twilio sends again (same CallSid, CallStatus and SequenceNumber) is acknowledged and taken once', async () => {
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550405');
    const twilioCall = await stubCallTo('+14155550405');
    await stub.ring(twilioCall.sid);
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    await stub.remoteHangUp(twilioCall.sid);
    await calls.untilStatus(call.id, ['completed']);
    // The call's end is announced after it settles: wait for it, then send Twilio's callbacks again.
    await eventually(async () => (webhookEvents(call.id, 'call_ended').length > 0 ? true : undefined), 20_000, 'call_ended');
    const statuses = fetchesOf(twilioCall.sid, '/carrier/twilio/calls/status');
    expect(statuses.map((c) => c.params.CallStatus)).toEqual(['ringing', 'completed']);
    expect(new Set(statuses.map((c) => c.params.SequenceNumber)).size).toBe(2);
    for (const callback of statuses) expect((await stub.post(callback.url, callback.params)).status).toBe(204);
    expect(await calls.get(call.id)).toMatchObject({ status: 'completed', end_cause: 'caller_hangup' });
    expect(webhookEvents(call.id, 'call_ended')).toHaveLength(1);
  });
});
