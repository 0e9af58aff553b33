import crypto from 'node:crypto';
import { createCallActivities } from '../../activities/calls';
import { carrierCallbackHeaders, computeCarrierSignature } from '../../src/adapters/carrier/callbacks/signature';
import { SimulatorCarrier } from '../../src/adapters/carrier/simulatorCarrier';
import { generateSecretsKey, parseSecretsKey } from '../../src/platform/crypto/secretBox';
import { egressPolicyFor } from '../../src/platform/net/egress';
import { createTenant, eventually, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import type { ScriptedAnswer } from '../support/receiver';
import { simulator } from '../support/simulatorControl';
import { decryptedHistory } from '../../dev/temporalHistory';
import { useSuite } from '../support/suite';
import { untilWorkflowSettled } from '../support/waits';
import { signalledCarrierEvents } from '../support/callWorkflow';

/** The webhook-mode conversation: caller speech → `message` → `{text}` spoken; barge-in. */
describe('webhook conversation loop', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant, receiver } = ctx;
  /** What the receiver answers to each caller sentence: text (as `{text}`) or a full answer (NDJSON). */
  const replies = new Map<string, string | ScriptedAnswer>();
  const answerMessages = (req: { body: Record<string, unknown> }): ScriptedAnswer | undefined => {
    if (req.body.event !== 'message') return undefined;
    const reply = replies.get(String(req.body.text));
    if (reply === undefined) return { status: 200, body: '{}' };
    return typeof reply === 'string' ? { status: 200, body: JSON.stringify({ text: reply }) } : reply;
  };
  beforeAll(() => receiver.respondWith(answerMessages));
  beforeEach(async () => {
    await sim.calls.setWordsPerSecond(40);
  });

  const { lines, calls, consent, webhooks } = customer(ctx, { line: () => webhookLine({ webhook_url: receiver.url }) });
  const sim = simulator(ctx);
  const speech = sim.calls.speech;
  /** A call on a new line, once the callee has answered. */
  async function connect(lineOverrides: Record<string, unknown> = {}) {
    const line = await lines.create(lineOverrides);
    if (lineOverrides.language) await lines.update(line.id, { language: lineOverrides.language });
    const placed = await calls.place(line.id);
    expect(placed.status).toBe(201);
    const id = placed.body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    return { line, id };
  }
  const messages = () => receiver.requests.filter((r) => r.body.event === 'message');

  it('speaks the begin message, sends each caller sentence as a message, and speaks the reply', async () => {
    const { id } = await connect({ begin_message: 'Hello, Luigi’s, how can I help?' });
    await eventually(async () => ((await speech(id))[0]?.state === 'done' ? true : undefined));
    replies.set('I need a table for two', 'Sure, for what time?');
    expect((await sim.calls.say(id, 'I need a table for two', 'en')).status).toBe(202);
    await eventually(async () => ((await speech(id)).length === 2 ? true : undefined));
    const [message] = messages();
    expect(message.body).toMatchObject({
      event: 'message',
      call_id: id,
      text: 'I need a table for two',
      detected_language: 'en',
      timestamp: expect.any(Number),
    });
    expect(message.body.context).toEqual([
      { role: 'assistant', text: 'Hello, Luigi’s, how can I help?', timestamp: expect.any(Number) },
      { role: 'user', text: 'I need a table for two', timestamp: message.body.timestamp },
    ]);
    expect((await speech(id)).map((s) => s.text)).toEqual(['Hello, Luigi’s, how can I help?', 'Sure, for what time?']);
    // The transcript is written right after the reply is handed to the carrier.
    const call = await calls.untilTranscript(id, 3);
    expect(call.transcript!.map((t) => [t.role, t.text])).toEqual([
      ['assistant', 'Hello, Luigi’s, how can I help?'],
      ['user', 'I need a table for two'],
      ['assistant', 'Sure, for what time?'],
    ]);
    await calls.hangUp(id);
  });

  it('a caller talking over the agent cuts it off; interrupted carries what was heard, timed before the next message', async () => {
    const { id } = await connect();
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    replies.set('Tell me everything', long);
    replies.set('Stop, stop', long);
    await sim.calls.say(id, 'Tell me everything');
    // The caller talks over a reply already under way: some of it has been heard.
    await eventually(async () => ((await speech(id))[0]?.played_text ? true : undefined));
    await sim.calls.bargeIn(id, 'Stop, stop');
    await eventually(async () =>
      messages().length === 2 && receiver.requests.some((r) => r.body.event === 'interrupted') ? true : undefined,
    );
    const interrupted = receiver.requests.find((r) => r.body.event === 'interrupted')!;
    const heard = String(interrupted.body.partial_response_text);
    expect(heard.length).toBeGreaterThan(0);
    expect(long.startsWith(heard)).toBe(true);
    expect(heard.length).toBeLessThan(long.length);
    expect(Number(interrupted.body.timestamp)).toBeLessThan(Number(messages()[1].body.timestamp));
    expect((await speech(id))[0].state).toBe('stopped');

    // A second interruption in the same call is its own event.
    await eventually(async () => ((await speech(id))[1]?.state === 'speaking' ? true : undefined));
    await sim.calls.bargeIn(id, 'Enough');
    await eventually(async () => (receiver.requests.filter((r) => r.body.event === 'interrupted').length === 2 ? true : undefined));
    const ids = receiver.requests.filter((r) => r.body.event === 'interrupted').map((r) => r.body.event_id);
    expect(new Set(ids).size).toBe(2);
    await calls.hangUp(id);
  });

  /** The carrier events signalled to the call's workflow, as their payloads. */
  const signalledEvents = (id: string) => signalledCarrierEvents(h.temporal, id);

  it('a reply played to the end costs no signal: its playback report rides on the next sentence, and that turn is not interrupted', async () => {
    // Slow enough that the turn has marked its reply before the carrier reports it played.
    await sim.calls.setWordsPerSecond(5);
    const { id } = await connect();
    replies.set('What time do you open?', 'At noon.');
    replies.set('Thanks', 'You are welcome.');
    await sim.calls.say(id, 'What time do you open?');
    await eventually(async () => ((await speech(id))[0]?.state === 'done' ? true : undefined));
    const replySpeakId = `${id}:speak-1`;
    // Recorded by the API, not signalled.
    const recorded = await eventually(async () => {
      const rows = await h.db('call_deferred_playback').where({ call_id: id }).select('report');
      return rows.some((row: { report: { speak_id?: string; done?: boolean } }) => row.report.speak_id === replySpeakId && row.report.done)
        ? rows
        : undefined;
    });
    expect(recorded.length).toBeGreaterThan(0);
    expect((await signalledEvents(id)).some((event) => event.type === 'call.playback' && event.speak_id === replySpeakId)).toBe(false);

    await sim.calls.say(id, 'Thanks');
    await eventually(async () => ((await speech(id))[1]?.state === 'done' ? true : undefined));
    expect(messages().map((m) => m.body.text)).toEqual(['What time do you open?', 'Thanks']);
    // The reply had played to the end before the caller spoke: no interrupted, nothing stopped.
    expect(receiver.requests.some((r) => r.body.event === 'interrupted')).toBe(false);
    expect((await speech(id)).map((s) => s.state)).toEqual(['done', 'done']);
    // The sentence's signal carried the report, ahead of itself, and the API forgot it.
    const thanks = (await signalledEvents(id)).find((event) => event.type === 'call.utterance' && event.text === 'Thanks')!;
    expect(thanks.deferred).toEqual(expect.arrayContaining([expect.objectContaining({ speak_id: replySpeakId, done: true })]));
    const left = await h.db('call_deferred_playback').where({ call_id: id }).select('report');
    expect(left.some((row: { report: { speak_id?: string } }) => row.report.speak_id === replySpeakId)).toBe(false);
    await calls.hangUp(id);
  });

  it('a reply whose playback report arrives after the next sentence is not taken for a barge-in', async () => {
    const { id } = await connect();
    replies.set('Are you open on Sunday?', 'Yes.');
    replies.set('Great', 'See you then.');
    const replySpeakId = `${id}:speak-1`;
    // The carrier's `done` report of the first reply is held back, as a slow network would, so the
    // caller's next sentence reaches the API first.
    type Deliver = (call: unknown, event: { type: string; speak_id?: string; done?: boolean }, ...rest: unknown[]) => Promise<string>;
    // The simulator's per-call event sender (simulator/carrier/callEvents.ts) posts each event through `deliver`.
    const carrierCalls = (h.simulator.state.calls as unknown as { events: { deliver: Deliver } }).events;
    const deliver = carrierCalls.deliver;
    const late: Array<Promise<unknown>> = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    carrierCalls.deliver = function (this: unknown, call, event, ...rest) {
      if (event.type === 'call.playback' && event.speak_id === replySpeakId && event.done) {
        late.push(released.then(() => deliver.call(this, call, event, ...rest)));
        return Promise.resolve('delivered');
      }
      return deliver.call(this, call, event, ...rest);
    };
    try {
      await sim.calls.say(id, 'Are you open on Sunday?');
      await eventually(async () => ((await speech(id))[0]?.state === 'done' ? true : undefined));
      await sim.calls.say(id, 'Great');
      // The turn has closed the deferral and, the reply not reported done, stops it and waits on its
      // playback (a stopSpeaking after the sentence's signal): now the report lands.
      await eventually(async () => {
        const events = (await decryptedHistory(h.temporal, id)).events ?? [];
        const said = events.findIndex((e) =>
          (e.workflowExecutionSignaledEventAttributes?.input?.payloads ?? []).some((p) => {
            const event = JSON.parse(Buffer.from(p.data ?? []).toString('utf8')) as Record<string, unknown>;
            return event.type === 'call.utterance' && event.text === 'Great';
          }),
        );
        const stopping = events.slice(said + 1).some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'stopSpeaking');
        return said >= 0 && stopping ? true : undefined;
      });
      release();
      await Promise.all(late);
      await eventually(async () => (messages().length === 2 ? true : undefined));
    } finally {
      carrierCalls.deliver = deliver;
      release();
    }
    expect(messages().map((m) => m.body.text)).toEqual(['Are you open on Sunday?', 'Great']);
    // The reply had played to the end: no interrupted event, and nothing was stopped.
    expect(receiver.requests.some((r) => r.body.event === 'interrupted')).toBe(false);
    expect((await speech(id))[0].state).toBe('done');
    // The late report found the deferral closed: signalled at once, not left recorded.
    expect((await signalledEvents(id)).some((e) => e.type === 'call.playback' && e.speak_id === replySpeakId && e.done === true)).toBe(
      true,
    );
    const left = await h.db('call_deferred_playback').where({ call_id: id }).select('report');
    expect(left.some((row: { report: { speak_id?: string } }) => row.report.speak_id === replySpeakId)).toBe(false);
    await calls.hangUp(id);
  });

  it('a signal that fails keeps the recorded playback reports for the next one', async () => {
    const callId = crypto.randomUUID();
    const report = { type: 'call.playback', at: Date.now(), speak_id: `${callId}:speak-1`, played_text: 'Hi', done: true };
    await h.db('call_deferred_playback').insert({ call_id: callId, report: JSON.stringify(report) });
    const body = JSON.stringify({ type: 'call.utterance', call_id: callId, carrier_call_id: 'CA0', text: 'Hello', at: Date.now() });
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await h.request('POST', '/carrier/events', {
      rawBody: body,
      headers: {
        'x-carrier-timestamp': String(timestamp),
        'x-carrier-signature': computeCarrierSignature(h.config.carrierWebhookSecret!, timestamp, body),
      },
    });
    // No workflow for this call: the signal fails, and the report stays.
    expect(res.status).toBe(404);
    expect(await h.db('call_deferred_playback').where({ call_id: callId }).select('report')).toEqual([{ report }]);
  });

  it('a sentence the carrier delivers again (a callback retried after a timeout) is one turn: one message, one reply, one pair of entries', async () => {
    const { id } = await connect();
    const { carrier_call_id } = await h.db('calls').where({ id }).first('carrier_call_id');
    replies.set('Is the terrace open?', 'It is, until ten.');
    replies.set('Thanks', 'You are welcome.');
    const sentence = JSON.stringify({
      type: 'call.utterance',
      call_id: id,
      carrier_call_id,
      text: 'Is the terrace open?',
      language: 'en',
      at: Date.now(),
    });
    // Each try is signed afresh (a later timestamp), as the simulator and real carriers do: only the body repeats.
    let tries = 0;
    const deliver = () =>
      h.request('POST', '/carrier/events', {
        rawBody: sentence,
        headers: carrierCallbackHeaders({
          secret: h.config.carrierWebhookSecret!,
          rawBody: sentence,
          now: new Date(Date.now() + 1000 * tries++),
        }),
      });
    // A retry while the first try is still being answered, and one after the turn was taken.
    expect((await Promise.all([deliver(), deliver()])).map((res) => res.status)).toEqual([200, 200]);
    await eventually(async () => ((await speech(id)).some((s) => s.text === 'It is, until ten.' && s.state === 'done') ? true : undefined));
    expect((await deliver()).status).toBe(200);
    // The call goes on: the next sentence is the next turn.
    expect((await sim.calls.say(id, 'Thanks', 'en')).status).toBe(202);
    const call = await calls.untilTranscript(id, 4);
    expect(call.transcript!.map((t) => [t.role, t.text])).toEqual([
      ['user', 'Is the terrace open?'],
      ['assistant', 'It is, until ten.'],
      ['user', 'Thanks'],
      ['assistant', 'You are welcome.'],
    ]);
    const ofThisCall = messages().filter((m) => m.body.call_id === id);
    expect(ofThisCall.map((m) => m.body.text)).toEqual(['Is the terrace open?', 'Thanks']);
    expect((await speech(id)).map((s) => s.text)).toEqual(['It is, until ten.', 'You are welcome.']);
    await calls.hangUp(id);
  });

  it('a pinned-language line sends no detected_language; a failing receiver means silence', async () => {
    const { id } = await connect({ language: 'he' });
    receiver.script();
    const before = receiver.requests.length;
    receiver.respondWith((req) => (req.body.event === 'message' ? { status: 500, body: 'boom' } : undefined));
    await sim.calls.say(id, 'Shalom', 'he');
    await eventually(async () => (messages().length === 1 ? true : undefined));
    expect(messages()[0].body.detected_language).toBeUndefined();
    const failed = await eventually(async () => {
      const found = await webhooks.deliveries('?event_type=message&status=failed');
      return found.body.total >= 1 ? found : undefined;
    });
    expect(failed.body.total).toBe(1);
    // The call's workflow has taken the failed turn to its end: had it spoken, it would have by now.
    await untilWorkflowSettled(h.temporal.workflow.getHandle(id));
    expect(await speech(id)).toEqual([]);
    expect(receiver.requests.length).toBeGreaterThan(before);
    receiver.respondWith(answerMessages);
    await calls.hangUp(id);
  });

  it('a compliance-enabled line plays the default disclosure first and records it', async () => {
    await h.request('POST', '/api/v1/disclosures', {
      key: tenant.keys.test,
      body: { message: 'This call is handled by an AI assistant.' },
    });
    const line = await lines.create({ compliance_enabled: true, begin_message: 'Hi!' });
    await consent.record(line.id, '+14155552671', 'explicit_outbound');
    const id = (await calls.place(line.id, '+14155552671')).body.call.id;
    await eventually(async () => ((await speech(id)).length === 2 ? true : undefined));
    expect((await speech(id)).map((s) => s.text)).toEqual(['This call is handled by an AI assistant.', 'Hi!']);
    const events = await h.request('GET', '/api/v1/compliance/audit?event_type=disclosure_played', { key: tenant.keys.test });
    expect(events.body.events).toMatchObject([{ call_id: id, line_id: line.id, phone_number: '+14155552671' }]);
    await calls.hangUp(id);
  });

  it('a line without compliance_enabled plays no disclosure', async () => {
    await h.request('POST', '/api/v1/disclosures', { key: tenant.keys.test, body: { message: 'AI here.' } });
    const { id } = await connect({ begin_message: 'Hi!' });
    await eventually(async () => ((await speech(id)).length === 1 ? true : undefined));
    expect((await speech(id)).map((s) => s.text)).toEqual(['Hi!']);
    await calls.hangUp(id);
  });

  it('speaks an NDJSON reply chunk by chunk as each line arrives', async () => {
    const { id } = await connect();
    replies.set('Book it', {
      status: 200,
      stream: [
        { afterMs: 0, line: { text: 'One moment.' } },
        { afterMs: 1500, line: { text: 'Your table is booked.' } },
        { afterMs: 0, line: { done: true } },
        { afterMs: 0, line: { text: 'never spoken' } },
      ],
    });
    await sim.calls.say(id, 'Book it');
    // The first chunk is being spoken while the second line has not been written yet.
    await eventually(async () => ((await speech(id)).length === 1 ? true : undefined), 1200);
    await eventually(async () => ((await speech(id)).length === 2 ? true : undefined));
    expect((await speech(id)).map((s) => s.text)).toEqual(['One moment.', 'Your table is booked.']);
    const call = await calls.untilTranscript(id, 2);
    expect(call.transcript![1]).toMatchObject({ role: 'assistant', text: 'One moment. Your table is booked.' });
    await calls.hangUp(id);
  });

  it('takes a turn in one local activity; a re-run of that turn (a crashed worker) never sends the message again', async () => {
    const { line, id } = await connect();
    replies.set('Just once', 'Said once.');
    await sim.calls.say(id, 'Just once');
    await eventually(async () => ((await speech(id)).length === 1 ? true : undefined));
    // The `{text}` reply was spoken by the turn itself, under the call's next speak id.
    expect((await speech(id)).map((s) => [s.speak_id, s.text])).toEqual([[`${id}:speak-1`, 'Said once.']]);
    const call = await calls.untilTranscript(id, 2);
    expect(call.transcript!.map((t) => [t.role, t.text])).toEqual([
      ['user', 'Just once'],
      ['assistant', 'Said once.'],
    ]);
    // In the history: a local-activity marker, and none of the older path's activity tasks.
    const history = await h.temporal.workflow.getHandle(id).fetchHistory();
    const scheduled = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(scheduled).not.toEqual(expect.arrayContaining(['recordMessageEvent']));
    expect(scheduled).not.toEqual(expect.arrayContaining(['attemptDelivery']));
    expect((history.events ?? []).some((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toBe(true);

    // The same turn run again, as a new worker would after the first crashed mid-attempt.
    const activities = createCallActivities({
      db: h.db,
      carrier: new SimulatorCarrier(h.config.simulatorUrl, h.simulator.credentials.carrierApiKey),
      carrierEventsUrl: `${h.config.publicBaseUrl}/carrier/events`,
      temporal: () => h.temporal,
      taskQueue: h.config.taskQueue,
      secretsKey: () => parseSecretsKey(h.config.secretsKey!),
      egress: egressPolicyFor(h.config),
      now: () => new Date(),
    });
    const row = await h.db('calls').where({ id }).first();
    const sent = messages().length;
    const said = { role: 'user' as const, text: 'Just once', timestamp: Number(messages()[sent - 1].body.timestamp) };
    const rerun = await activities.takeMessageTurn(
      {
        callId: id,
        workspaceId: tenant.workspaceId,
        environment: 'test',
        lineId: line.id,
        keyId: null,
        direction: 'outbound',
        from: row.from_number,
        to: row.to_number,
      },
      {
        turn: 1,
        said,
        context: [said],
        detectedLanguage: 'en',
        carrierCallId: row.carrier_call_id,
        speakIdPrefix: `${id}:turn-1`,
        replySpeakId: `${id}:speak-1`,
      },
    );
    expect(rerun).toMatchObject({ delivered: false, transcriptWritten: false });
    expect(messages().length).toBe(sent);
    const deliveries = await webhooks.deliveries('?event_type=message');
    expect(deliveries.body.deliveries.map((d) => d.status)).toEqual(['success']);
    await calls.hangUp(id);
  });

  /** The turn's activities as a worker builds them (optionally with another key ring), for running a turn by hand. */
  const turnActivities = (secretsKey = () => parseSecretsKey(h.config.secretsKey!)) =>
    createCallActivities({
      db: h.db,
      carrier: new SimulatorCarrier(h.config.simulatorUrl, h.simulator.credentials.carrierApiKey),
      carrierEventsUrl: `${h.config.publicBaseUrl}/carrier/events`,
      temporal: () => h.temporal,
      taskQueue: h.config.taskQueue,
      secretsKey,
      egress: egressPolicyFor(h.config),
      now: () => new Date(),
    });
  /** A turn of the call `id` on `lineId` run by hand, as the workflow would hand it over. */
  async function turnByHand(id: string, lineId: string, turn: number, text: string, overrides: { workspaceId?: string } = {}) {
    const row = await h.db('calls').where({ id }).first();
    const said = { role: 'user' as const, text, timestamp: Date.now() };
    return {
      facts: {
        callId: id,
        workspaceId: overrides.workspaceId ?? tenant.workspaceId,
        environment: 'test' as const,
        lineId,
        keyId: null,
        direction: 'outbound' as const,
        from: row.from_number,
        to: row.to_number,
      },
      turn: {
        turn,
        said,
        context: [said],
        carrierCallId: row.carrier_call_id,
        speakIdPrefix: `${id}:turn-${turn}`,
        replySpeakId: `${id}:speak-${turn}`,
      },
    };
  }

  it('a turn run with the facts of another workspace posts nothing: the line is read within the call’s workspace', async () => {
    const { line, id } = await connect();
    const other = await createTenant(h.db);
    const { facts, turn } = await turnByHand(id, line.id, 41, 'Not yours', { workspaceId: other.workspaceId });
    const outcome = await turnActivities().takeMessageTurn(facts, turn);
    expect(outcome).toMatchObject({ delivered: false });
    expect(messages().some((m) => m.body.text === 'Not yours')).toBe(false);
    const [attempt] = await h.db('webhook_deliveries').where({ call_id: id, event_type: 'message' }).select('status', 'error_message');
    expect(attempt).toEqual({ status: 'failed', error_message: 'line_released' });
    await calls.hangUp(id);
  });

  it('a turn that cannot open the line’s secret gives its claim back: the next run of that turn makes the attempt', async () => {
    const { line, id } = await connect();
    replies.set('Second try', 'Heard you.');
    const { facts, turn } = await turnByHand(id, line.id, 42, 'Second try');
    const foreignKeyRing = () => parseSecretsKey(generateSecretsKey());
    await expect(turnActivities(foreignKeyRing).takeMessageTurn(facts, turn)).rejects.toThrow();
    expect(messages().some((m) => m.body.text === 'Second try')).toBe(false);
    // Recorded, but no attempt is held: a retry is not taken for a lost attempt.
    expect(await h.db('webhook_events').where({ call_id: id, event_type: 'message' }).count('id')).toEqual([{ count: '1' }]);
    expect(await h.db('webhook_deliveries').where({ call_id: id, event_type: 'message' }).count('id')).toEqual([{ count: '0' }]);
    const outcome = await turnActivities().takeMessageTurn(facts, turn);
    expect(outcome).toMatchObject({ delivered: true, replyText: 'Heard you.', transcriptWritten: true });
    expect(messages().filter((m) => m.body.text === 'Second try')).toHaveLength(1);
    await calls.hangUp(id);
  });

  describe('NDJSON budgets (shortened for the test: 1 s per line, 2.5 s in total)', () => {
    const short = useSuite({ worker: true, overrides: { ndjsonLineBudgetMs: 1000, ndjsonTotalBudgetMs: 2500 } });

    const shortCustomer = customer(short, { line: () => webhookLine({ webhook_url: receiver.url }) });
    const shortSim = simulator(short);
    async function connectShort() {
      const line = await shortCustomer.lines.create();
      const id = (await shortCustomer.calls.place(line.id)).body.call.id;
      await shortCustomer.calls.untilStatus(id, ['in_progress']);
      return id;
    }
    const failedMessages = async () => (await shortCustomer.webhooks.deliveries('?event_type=message&status=failed')).body.deliveries;

    it('a line that takes too long ends the reply: what came before it is spoken, the delivery is failed', async () => {
      const id = await connectShort();
      replies.set('Slow please', {
        status: 200,
        stream: [
          { afterMs: 0, line: { text: 'First part.' } },
          { afterMs: 1800, line: { text: 'Too late.' } },
        ],
      });
      await shortSim.calls.say(id, 'Slow please');
      const [failed] = await eventually(async () => ((await failedMessages()).length === 1 ? failedMessages() : undefined));
      expect(failed.error_message).toBe('no ndjson line within 1000 ms');
      expect((await shortSim.calls.speech(id)).map((s) => s.text)).toEqual(['First part.']);
      await shortCustomer.calls.hangUp(id);
    });

    it('a stream over the total budget is cut off even when every line is on time', async () => {
      const id = await connectShort();
      replies.set('Ramble', { status: 200, stream: Array.from({ length: 8 }, (_, i) => ({ afterMs: 600, line: { text: `Part ${i}.` } })) });
      await shortSim.calls.say(id, 'Ramble');
      const [failed] = await eventually(async () => ((await failedMessages()).length === 1 ? failedMessages() : undefined));
      expect(failed.error_message).toBe('ndjson reply over its 2500 ms budget');
      const spoken = (await shortSim.calls.speech(id)).map((s) => s.text);
      expect(spoken.length).toBeGreaterThanOrEqual(3);
      expect(spoken.length).toBeLessThan(8);
      await shortCustomer.calls.hangUp(id);
    });
  });
});
