import crypto from 'node:crypto';
import { CancelledFailure, Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { BillingActivities } from '../../activities/billing';
import type { CallActivities } from '../../activities/calls';
import type { HostedActivities, HostedTurnOutcome } from '../../activities/hosted';
import type { RecordingActivities } from '../../activities/recordings';
import { callChargeCents, ratePerMinuteCents, type Zone } from '../../src/domain/billing/pricing';
import type { LineMode } from '../../src/domain/lines/rules';
import type { callWorkflow } from '../../workflows/calls/workflow';
import {
  carrierEventSignal,
  hangupSignal,
  type CallFacts,
  type CallInput,
  type SignalledCallEvent,
} from '../../workflows/definitions/calls';
import { transferUpdate, waitUpdate } from '../../workflows/definitions/callControl';
import type { CallContinuation } from '../../workflows/calls/state';
import { testDataConverter } from '../support/payloadCodec';
import { until as untilFact } from '../support/waits';

/**
 * The call workflow alone, with fake activities and Temporal's time-skipping test server: the
 * ring timeout, the 15-minute maximum, the minute-by-minute holds, a refused hold mid-call and a
 * hang-up during a reply, each in a second or two of wall time. The fake carrier records every
 * command and answers through the carrier-event signal, as the carrier's callbacks do.
 */

/** How one fake call behaves. */
interface Script {
  /** The callee picks up as soon as it rings. */
  answers: boolean;
  /** The carrier confirms our hang-up with `call.completed` (otherwise the workflow stops waiting after 10 s). */
  confirmsHangUp: boolean;
  /** An agent key's cap: a hold past it is refused. */
  capCents: number;
  /** The workspace's balance: a hold past it is refused for insufficient credits. */
  balanceCents: number;
}

/** Everything one call's fake activities saw, in order. */
class FakeCall {
  readonly commands: string[] = [];
  readonly states: string[] = [];
  readonly published: string[] = [];
  /** Each extension asked for, as its new total, and whether it was granted. */
  readonly holds: Array<{ totalCents: number; ok: boolean }> = [];
  readonly settlements: Array<{ chargeCents: number; seconds?: number }> = [];
  readonly hostedTurns: Array<{ turn: number; cancelled: boolean }> = [];
  /** Transcript entries as appended (`role: text`), in order. */
  readonly transcript: string[] = [];
  /** The carrier's time of the answer. */
  answeredAt: number | undefined;
  constructor(
    readonly callId: string,
    readonly script: Script,
  ) {}
}

describe('callWorkflow with fake activities (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `ts-calls-${crypto.randomUUID()}`;
  const calls = new Map<string, FakeCall>();
  const byCarrierId = (carrierCallId: string) => calls.get(carrierCallId.replace(/^carrier-/, ''))!;

  /**
   * The carrier's clock: the test server's (skipped) time, in whole seconds after the answer, so
   * charges come out exact however long the fakes themselves take.
   */
  async function carrierNow(call: FakeCall): Promise<number> {
    const now = await env.currentTimeMs();
    if (call.answeredAt === undefined) return now;
    return call.answeredAt + Math.floor((now - call.answeredAt) / 1000) * 1000;
  }
  const tell = (call: FakeCall, event: SignalledCallEvent) => env.client.workflow.getHandle(call.callId).signal(carrierEventSignal, event);

  /** The activities these paths use, typed as the real ones. */
  type Fakes = Pick<CallActivities, 'claimCall' | 'placeCall' | 'hangUpCall' | 'speak' | 'stopSpeaking' | 'transferCall'> &
    Pick<CallActivities, 'publishCallEvent' | 'recordCallState' | 'appendTranscript'> &
    Pick<BillingActivities, 'extendReservation' | 'settleReservation'> &
    Pick<HostedActivities, 'takeHostedTurn'> &
    Pick<RecordingActivities, 'wantCallCopy'>;

  const fakes: Fakes = {
    /** The durable copy is not this file's: an ended call asks for it, and nothing is started. */
    async wantCallCopy() {
      return { wanted: false };
    },
    async claimCall() {
      return { claimed: true };
    },
    async placeCall(facts: CallFacts) {
      const call = calls.get(facts.callId)!;
      call.commands.push('placeCall');
      await tell(call, { type: 'call.ringing', at: await carrierNow(call) });
      if (call.script.answers) {
        call.answeredAt = await env.currentTimeMs();
        await tell(call, { type: 'call.answered', at: call.answeredAt });
      }
      return { carrierCallId: `carrier-${facts.callId}` };
    },
    async hangUpCall(carrierCallId: string) {
      const call = byCarrierId(carrierCallId);
      call.commands.push('hangUpCall');
      if (call.script.confirmsHangUp) await tell(call, { type: 'call.completed', at: await carrierNow(call), ended_by: 'switchboard' });
    },
    async speak(carrierCallId: string) {
      byCarrierId(carrierCallId).commands.push('speak');
    },
    async stopSpeaking(carrierCallId: string) {
      byCarrierId(carrierCallId).commands.push('stopSpeaking');
    },
    /** The carrier accepts; the test tells the workflow whether the destination answered (`call.transfer`). */
    async transferCall(request) {
      byCarrierId(request.carrierCallId).commands.push('transferCall');
      return { accepted: true };
    },
    async publishCallEvent(facts, type) {
      calls.get(facts.callId)!.published.push(type);
      return { eventId: null };
    },
    async recordCallState(callId, state) {
      calls.get(callId)!.states.push(state.status);
    },
    async appendTranscript(callId, entries) {
      calls.get(callId)?.transcript.push(...entries.map((entry) => `${entry.role}: ${entry.text}`));
    },
    async extendReservation({ reference, totalCents }) {
      const call = calls.get(reference.replace(/^call:/, ''))!;
      const { capCents, balanceCents } = call.script;
      const ok = totalCents <= capCents && totalCents <= balanceCents;
      call.holds.push({ totalCents, ok });
      if (ok) return { ok: true, holdId: `hold-${call.callId}`, heldCents: totalCents };
      if (totalCents > balanceCents)
        return { ok: false, refusal: { code: 'insufficient_credits', availableCents: balanceCents, requiredCents: totalCents } };
      return { ok: false, refusal: { code: 'agent_cap_exceeded', spentCents: 0, capCents, cycleResetAt: null } };
    },
    async settleReservation({ reference, chargeCents, usage }) {
      calls.get(reference.replace(/^call:/, ''))!.settlements.push({ chargeCents, seconds: usage.seconds });
      return { balanceAfterCents: null, autoChargeRequested: false };
    },
    /** A model that never finishes its reply: it heartbeats until the workflow cancels the turn. */
    async takeHostedTurn(input): Promise<HostedTurnOutcome> {
      const record = { turn: input.turn, cancelled: false };
      calls.get(input.callId)!.hostedTurns.push(record);
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 100);
      try {
        await context.cancelled;
        throw new Error('unreachable: `cancelled` only rejects');
      } catch (err) {
        if (err instanceof CancelledFailure) record.cancelled = true;
        throw err;
      } finally {
        clearInterval(beat);
      }
    },
  };

  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
      client: { dataConverter: testDataConverter() },
    });
    const workflowBundle = { codePath: process.env.WORKFLOW_BUNDLE_PATH! };
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle,
      activities: fakes,
      dataConverter: testDataConverter(),
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  async function place(
    mode: LineMode,
    script: Partial<Script> = {},
    zone: Zone = 'A',
    continued?: (callId: string) => CallContinuation,
    placed: Partial<CallInput> = {},
  ) {
    const callId = crypto.randomUUID();
    const call = new FakeCall(callId, { answers: true, confirmsHangUp: true, capCents: 1_000_000, balanceCents: 1_000_000, ...script });
    calls.set(callId, call);
    const input: CallInput = {
      callId,
      workspaceId: crypto.randomUUID(),
      environment: 'test',
      lineId: crypto.randomUUID(),
      keyId: null,
      direction: 'outbound',
      from: '+14155550100',
      to: '+14155552671',
      mode,
      zone,
      reservePerMinuteCents: ratePerMinuteCents(mode, zone),
      ...placed,
    };
    const args: Parameters<typeof callWorkflow> = continued ? [input, continued(callId)] : [input];
    const handle = await env.client.workflow.start<typeof callWorkflow>('callWorkflow', { taskQueue, workflowId: callId, args });
    return { call, handle };
  }

  /** Polls (in wall time, without skipping the server's) until `ready` holds. */
  const until = (ready: () => boolean, what: string) => untilFact(ready, what, { timeoutMs: 20_000 });

  it('rings out: nobody answers within 30 s, so we hang up, and the call ends unanswered and free', async () => {
    const { call, handle } = await place('webhook', { answers: false });
    expect(await handle.result()).toEqual({ status: 'no_answer', endCause: 'ring_timeout', durationSec: 0, chargeCents: 0 });
    expect(call.commands).toEqual(['placeCall', 'hangUpCall']);
    expect(call.states).toEqual(['ringing', 'no_answer']);
    expect(call.published).toEqual(['call_outgoing']);
    expect(call.holds).toEqual([]);
    expect(call.settlements).toEqual([{ chargeCents: 0, seconds: 0 }]);
  });

  it('is ended by switchboard at 15 minutes and charged for exactly 15 minutes, held one minute at a time', async () => {
    const started = Date.now();
    const { call, handle } = await place('webhook');
    expect(await handle.result()).toEqual({ status: 'completed', endCause: 'max_duration', durationSec: 900, chargeCents: 195 });
    // The API held the first minute; the workflow held minutes 2 to 15, each before it started.
    expect(call.holds).toEqual(Array.from({ length: 14 }, (_, i) => ({ totalCents: 13 * (i + 2), ok: true })));
    expect(call.commands).toEqual(['placeCall', 'hangUpCall']);
    expect(call.states).toEqual(['in_progress', 'completed']);
    expect(call.published).toEqual(['call_outgoing', 'call_started', 'call_ended']);
    expect(call.settlements).toEqual([{ chargeCents: 195, seconds: 900 }]);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('holds one more minute as each starts, and settles the exact per-second charge when the caller hangs up', async () => {
    const { call, handle } = await place('webhook');
    await until(() => call.states.includes('in_progress'), 'the answer');
    // Two and a half minutes of talk: minutes 2 and 3 are held at 1:00 and 2:00.
    await env.sleep(150_000);
    await handle.signal(carrierEventSignal, { type: 'call.completed', at: await carrierNow(call), ended_by: 'caller' });
    // 150 s at 13 cents a minute: 32.5 cents, rounded up once.
    expect(await handle.result()).toEqual({ status: 'completed', endCause: 'caller_hangup', durationSec: 150, chargeCents: 33 });
    expect(call.holds).toEqual([
      { totalCents: 26, ok: true },
      { totalCents: 39, ok: true },
    ]);
    expect(call.commands).toEqual(['placeCall']);
    expect(call.settlements).toEqual([{ chargeCents: 33, seconds: 150 }]);
  });

  it('ends the call at a refused hold (the key cap) and never charges past what was held', async () => {
    // The cap funds two minutes; the carrier never confirms our hang-up, so the call runs on for
    // the 10 s the workflow waits, past what was held.
    const { call, handle } = await place('webhook', { capCents: 26, confirmsHangUp: false });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', endCause: 'insufficient_funds', chargeCents: 26 });
    expect(call.holds).toEqual([
      { totalCents: 26, ok: true },
      { totalCents: 39, ok: false },
    ]);
    // Its length would cost more than the two minutes held; the charge stops at the hold.
    expect(result.durationSec).toBeGreaterThanOrEqual(130);
    expect(callChargeCents('webhook', 'A', result.durationSec * 1000)).toBeGreaterThan(26);
    expect(call.commands).toEqual(['placeCall', 'hangUpCall']);
    expect(call.settlements).toEqual([{ chargeCents: 26, seconds: result.durationSec }]);
    expect(call.published).toEqual(['call_outgoing', 'call_started', 'call_ended']);
  });

  it('a hang-up while the model is replying cancels the reply, hangs up once and settles once', async () => {
    const { call, handle } = await place('hosted');
    await until(() => call.states.includes('in_progress'), 'the answer');
    await env.sleep(30_000);
    await handle.signal(carrierEventSignal, { type: 'call.utterance', at: await carrierNow(call), text: 'What are your hours?' });
    await until(() => call.hostedTurns.length === 1, 'the reply to start');
    await handle.signal(hangupSignal);
    // 30 s at 26 cents a minute (hosted); the test server's clock also moves with real time, so a
    // loaded machine may add a second between the answer and the hang-up.
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', endCause: 'api_hangup' });
    expect([30, 31]).toContain(result.durationSec);
    expect(result.chargeCents).toBe(callChargeCents('hosted', 'A', result.durationSec * 1000));
    expect(call.hostedTurns).toEqual([{ turn: 1, cancelled: true }]);
    expect(call.commands).toEqual(['placeCall', 'hangUpCall']);
    expect(call.states).toEqual(['in_progress', 'completed']);
    expect(call.published).toEqual(['call_outgoing', 'call_started', 'call_ended']);
    expect(call.holds).toEqual([]);
    expect(call.settlements).toEqual([{ chargeCents: result.chargeCents, seconds: result.durationSec }]);
  });

  it('ends the call when the next minute exceeds the balance, and charges the one minute held (per second, capped)', async () => {
    // 20 cents: the first minute (13) is held, the second (26 in all) is not.
    const { call, handle } = await place('webhook', { balanceCents: 20 });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', endCause: 'insufficient_funds', chargeCents: 13 });
    // The hang-up after the refused hold takes a moment on the carrier's clock (a second on a loaded
    // machine), which the charge never follows past the minute held.
    expect([60, 61]).toContain(result.durationSec);
    expect(call.holds).toEqual([{ totalCents: 26, ok: false }]);
    expect(call.commands).toEqual(['placeCall', 'hangUpCall']);
    expect(call.settlements).toEqual([{ chargeCents: 13, seconds: result.durationSec }]);
    expect(call.published).toEqual(['call_outgoing', 'call_started', 'call_ended']);
  });

  it.each([
    ['webhook', 'A', 13, 20],
    ['hosted', 'B', 52, 78],
    ['audio', 'C', 27, 41],
    ['agent', 'A', 13, 20],
  ] as const)('settles a %s call to zone %s at %i cents a minute, per second: 90 s cost %i cents', async (mode, zone, rate, cents) => {
    expect(ratePerMinuteCents(mode, zone)).toBe(rate);
    const { call, handle } = await place(mode, {}, zone);
    await until(() => call.states.includes('in_progress'), 'the answer');
    await env.sleep(90_000);
    await handle.signal(carrierEventSignal, { type: 'call.completed', at: await carrierNow(call), ended_by: 'caller' });
    // ceil(rate × 90 / 60): one rounding per call. Minute 2 was held at 1:00.
    expect(await handle.result()).toEqual({ status: 'completed', endCause: 'caller_hangup', durationSec: 90, chargeCents: cents });
    expect(call.holds).toEqual([{ totalCents: 2 * rate, ok: true }]);
    expect(call.settlements).toEqual([{ chargeCents: cents, seconds: 90 }]);
  });

  it('a transferred call stays held and billed until it ends, and ends as transferred: 90 s cost 20 cents', async () => {
    const { call, handle } = await place('webhook');
    await until(() => call.states.includes('in_progress'), 'the answer');
    await env.sleep(30_000);
    const transfer = handle.executeUpdate(transferUpdate, { args: [{ toNumber: '+14155552688' }] });
    await until(() => call.commands.includes('transferCall'), 'the transfer command');
    await handle.signal(carrierEventSignal, { type: 'call.transfer', at: await carrierNow(call), answered: true });
    expect(await transfer).toMatchObject({ transferred: true, failure_reason: null });
    // Minute 2 is held at 1:00 while the caller talks to the destination.
    await env.sleep(60_000);
    await handle.signal(carrierEventSignal, { type: 'call.completed', at: await carrierNow(call), ended_by: 'caller' });
    expect(await handle.result()).toEqual({ status: 'completed', endCause: 'transferred', durationSec: 90, chargeCents: 20 });
    expect(call.commands).toEqual(['placeCall', 'stopSpeaking', 'transferCall']);
    expect(call.holds).toEqual([{ totalCents: 26, ok: true }]);
    expect(call.published).toEqual(['call_outgoing', 'call_started', 'call_transferred', 'call_ended']);
    expect(call.settlements).toEqual([{ chargeCents: 20, seconds: 90 }]);
  });

  describe('a voicemail message left after the machine’s greeting (end-of-greeting detection)', () => {
    const VOICEMAIL = 'Please call the clinic back.';
    const voicemailCall = () =>
      place('webhook', {}, 'A', undefined, { machineDetection: true, detectGreetingEnd: true, onMachine: { voicemailMessage: VOICEMAIL } });
    const playedToItsEnd = async (call: FakeCall) =>
      tell(call, {
        type: 'call.playback',
        at: await carrierNow(call),
        speak_id: `${call.callId}:speak-1`,
        played_text: VOICEMAIL,
        done: true,
      });

    it('waits for the greeting’s end, however long, and speaks the message then; the call ends as answering_machine', async () => {
      const { call, handle } = await voicemailCall();
      await until(() => call.answeredAt !== undefined, 'the answer');
      await tell(call, { type: 'call.machine_detection', at: await carrierNow(call), answered_by: 'machine' });
      await until(() => call.published.includes('call_started'), 'the call started');
      // waits out 20 s of greeting (server time): nothing is said over it.
      await env.sleep(20_000);
      expect(call.commands).toEqual(['placeCall']);
      await tell(call, { type: 'call.greeting_ended', at: await carrierNow(call) });
      await until(() => call.commands.includes('speak'), 'the message after the beep');
      await playedToItsEnd(call);
      expect(await handle.result()).toMatchObject({ status: 'completed', endCause: 'answering_machine' });
      expect(call.commands).toEqual(['placeCall', 'speak', 'hangUpCall']);
      expect(call.transcript).toEqual([`assistant: ${VOICEMAIL}`]);
    });

    it('a greeting whose end is never reported gets the message 30 s after the machine was detected', async () => {
      const { call, handle } = await voicemailCall();
      await until(() => call.answeredAt !== undefined, 'the answer');
      await tell(call, { type: 'call.machine_detection', at: await carrierNow(call), answered_by: 'machine' });
      await until(() => call.published.includes('call_started'), 'the call started');
      // waits out 25 s of the 30 s bound (server time): the workflow still waits for the beep, nothing is said.
      await env.sleep(25_000);
      expect(call.commands).toEqual(['placeCall']);
      await env.sleep(10_000); // waits out the rest of the 30 s bound (server time): only past it is the message due
      await until(() => call.commands.includes('speak'), 'the message past the bound');
      await playedToItsEnd(call);
      expect(await handle.result()).toMatchObject({ status: 'completed', endCause: 'answering_machine' });
    });

    it('a fax (machine_kind fax) is hung up on at once: no message, no wait for a greeting end, the result says fax', async () => {
      const { call, handle } = await voicemailCall();
      await until(() => call.answeredAt !== undefined, 'the answer');
      await tell(call, { type: 'call.machine_detection', at: await carrierNow(call), answered_by: 'machine', machine_kind: 'fax' });
      expect(await handle.result()).toMatchObject({
        status: 'completed',
        endCause: 'answering_machine',
        durationSec: 0,
        machineKind: 'fax',
      });
      expect(call.commands).toEqual(['placeCall', 'hangUpCall']);
      expect(call.transcript).toEqual([]);
    });

    it('a detection never reported is `unknown` after 35 s: the call goes on as the line decides, no message', async () => {
      const { call, handle } = await voicemailCall();
      await until(() => call.answeredAt !== undefined, 'the answer');
      // waits out 30 s of the 35 s bound (server time): the call has not started, who answered is still awaited.
      await env.sleep(30_000);
      expect(call.published).toEqual(['call_outgoing']);
      await env.sleep(10_000); // waits out the rest of the 35 s bound (server time): only past it does the call go on
      await until(() => call.published.includes('call_started'), 'the call started without a verdict');
      await tell(call, { type: 'call.completed', at: await carrierNow(call), ended_by: 'caller' });
      expect(await handle.result()).toMatchObject({ status: 'completed', endCause: 'caller_hangup' });
      expect(call.commands).toEqual(['placeCall']);
    });
  });

  describe('an agent line (its agent takes every caller sentence through waits)', () => {
    const said = async (call: FakeCall, text: string) =>
      tell(call, { type: 'call.utterance', at: await carrierNow(call), text, language: 'en' });
    const wait = (call: FakeCall, timeoutSeconds = 5) =>
      env.client.workflow.getHandle(call.callId).executeUpdate(waitUpdate, { args: [{ timeoutSeconds }] });

    it('keeps the latest 20 sentences said while no wait was pending, oldest first, every one in the transcript, and takes no turn', async () => {
      const { call, handle } = await place('agent');
      await until(() => call.states.includes('in_progress'), 'the answer');
      for (let i = 1; i <= 22; i += 1) await said(call, `Sentence ${i}`);
      await until(() => call.transcript.length === 22, 'every sentence in the transcript');
      expect(call.transcript).toEqual(Array.from({ length: 22 }, (_, i) => `user: Sentence ${i + 1}`));
      // The two oldest were dropped from the queue (the transcript keeps them).
      for (let i = 3; i <= 22; i += 1) expect(await wait(call)).toMatchObject({ timed_out: false, response_text: `Sentence ${i}` });
      expect(await wait(call, 1)).toMatchObject({ timed_out: true, call_ended: false, response_text: null });
      await handle.signal(hangupSignal);
      expect(await handle.result()).toMatchObject({ status: 'completed', endCause: 'api_hangup' });
      // Nobody but the agent talks: no reply, no `message`, no model.
      expect(call.commands).toEqual(['placeCall', 'hangUpCall']);
      expect(call.published).toEqual(['call_outgoing', 'call_started', 'call_ended']);
      expect(call.hostedTurns).toEqual([]);
    });

    it('a run continued as new takes the sentences the previous run kept for the agent, before any said since', async () => {
      const kept = (text: string, at: number): SignalledCallEvent => ({ type: 'call.utterance', at, text, language: 'en' });
      // The test server's clock (skipped ahead by earlier tests), as the workflow reads it.
      const now = await env.currentTimeMs();
      const { call, handle } = await place('agent', {}, 'A', (callId) => ({
        carrierCallId: `carrier-${callId}`,
        answeredAt: now - 60_000,
        answeredLocally: now - 60_000,
        minutesHeld: 2,
        sentencesTaken: 2,
        speakCount: 0,
        controlSpeeches: 0,
        nextSeq: 2,
        transcriptTail: [],
        currentSpeeches: [],
        run: 2,
        sentences: [],
        playback: [],
        forAgent: [kept('Kept one', now - 2000), kept('Kept two', now - 1000)],
      }));
      await said(call, 'Said after');
      await until(() => call.transcript.length === 1, 'the new sentence in the transcript');
      for (const text of ['Kept one', 'Kept two', 'Said after']) expect(await wait(call)).toMatchObject({ response_text: text });
      await handle.signal(hangupSignal);
      expect(await handle.result()).toMatchObject({ status: 'completed', endCause: 'api_hangup' });
      // The kept ones were written by the run that heard them; this run wrote only its own.
      expect(call.transcript).toEqual(['user: Said after']);
    });
  });
});
