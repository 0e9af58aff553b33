import type { CallOutcome, CallRecord, DtmfRecord, SpeechRecord } from '../../simulator/carrier/callRecords';
import type { Answerer } from '../../simulator/carrier/destinations';
import type { NumberRecord, OwnedNumber } from '../../simulator/carrier/numbers';
import type { AudioReport } from '../../simulator/media/mediaCall';
import type { ModelRequestRecord, ScriptedReply } from '../../simulator/model';
import type { MessageOutcome, SimulatedMessage } from '../../simulator/sms';
import type { Harness } from './harness';

/**
 * The other party, steered through the simulator's control API (docs/simulator.md), typed: the
 * remote caller talks and hangs up, someone rings or texts a line, destinations behave as told,
 * the model replies as scripted. Tests read what the simulator saw from the same object.
 */

/** A control answer: `body` is `T` on success and `{error}` otherwise (tests assert the status when it matters). */
export interface ControlAnswer<T> {
  status: number;
  body: T;
}

/** A model request as the control API lists it (`messages` exactly as Switchboard sent them). */
export type ModelRequest = Omit<ModelRequestRecord, 'messages'> & { messages: Array<{ role: string; content: string }> };

/** Reads the suite's harness (its context object, or a function answering it) when a request is made: suites set it in `beforeAll`. */
export function simulator(context: { readonly h: Harness } | (() => Harness)) {
  const ctx = {
    get h() {
      return typeof context === 'function' ? context() : context.h;
    },
  };
  const control = async <T>(method: string, path: string, body?: unknown): Promise<ControlAnswer<T>> => {
    const res = await ctx.h.simulator.control(method, path, body);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };

  const calls = {
    list: async (): Promise<CallRecord[]> => (await control<{ calls: CallRecord[] }>('GET', '/control/calls')).body.calls,
    /** The carrier's record of a call Switchboard placed or answered. */
    find: async (callId: string) => (await calls.list()).find((c) => c.call_id === callId),
    findByCarrierId: async (carrierCallId: string) => (await calls.list()).find((c) => c.carrier_call_id === carrierCallId),
    /** Calls placed to `to` from now on behave this way. */
    setOutcome: (to: string, outcome: CallOutcome, ringMs?: number, answeredBy?: Answerer) =>
      control<{ to: string; outcome: CallOutcome; ring_ms: number }>('POST', '/control/calls/outcomes', {
        to,
        outcome,
        ...(ringMs === undefined ? {} : { ring_ms: ringMs }),
        ...(answeredBy === undefined ? {} : { answered_by: answeredBy }),
      }),
    /** `from` calls `to` (one of our numbers); the carrier announces it to this harness's API. */
    ring: (from: string, to: string) =>
      control<{ carrier_call_id: string }>('POST', '/control/calls/inbound', { from, to, events_url: `${ctx.h.apiUrl}/carrier/events` }),
    /** The remote party finishes a sentence (202 unless the call is not answered). */
    say: (callId: string, text: string, language?: string) =>
      control<{ call_id: string; text: string; language: string }>('POST', `/control/calls/${callId}/say`, { text, language }),
    /** The remote party talks over the playback. */
    bargeIn: (callId: string, text: string, language?: string) =>
      control<{ call_id: string; text: string; language: string; stopped: string | null }>('POST', `/control/calls/${callId}/barge-in`, {
        text,
        language,
      }),
    /** The remote party hangs up an answered call (200; 409 unless answered). */
    hangUp: (callId: string) => control<CallRecord>('POST', `/control/calls/${callId}/hangup`),
    /** What the caller heard, oldest first (empty for a call the carrier does not know). */
    speech: async (callId: string): Promise<SpeechRecord[]> =>
      (await control<{ speech?: SpeechRecord[] }>('GET', `/control/calls/${callId}/speech`)).body.speech ?? [],
    dtmf: async (callId: string): Promise<DtmfRecord[]> =>
      (await control<{ dtmf: DtmfRecord[] }>('GET', `/control/calls/${callId}/dtmf`)).body.dtmf,
    /** Playback speed for speak commands that start from now on. */
    setWordsPerSecond: (wordsPerSecond: number) =>
      control<{ words_per_second: number }>('POST', '/control/speech', { words_per_second: wordsPerSecond }),
    /** The carrier forgets every call (as after a restart). */
    reset: () => control<{ reset: true }>('POST', '/control/calls/reset'),
    /** The caller sends audio (a tone, or `text` spoken) over the call's media connection. */
    talk: (callId: string, audio: { tone_hz?: number; duration_ms?: number; text?: string; stamp?: boolean }) =>
      control<{ call_id: string; source: 'tone' | 'speech'; frames: number; duration_ms: number }>(
        'POST',
        `/control/calls/${callId}/audio`,
        audio,
      ),
    /** What the caller sent and heard on the media connection. */
    audio: async (callId: string): Promise<AudioReport> => (await control<AudioReport>('GET', `/control/calls/${callId}/audio`)).body,
  };

  const messages = {
    list: async (): Promise<SimulatedMessage[]> =>
      (await control<{ messages: SimulatedMessage[] }>('GET', '/control/messages')).body.messages,
    /** `from` texts `to`; answers once Switchboard has answered the carrier. */
    inbound: async (from: string, to: string, text: string) =>
      (
        await control<{ carrier_message_id: string; delivery: 'delivered' | 'refused' | 'failed'; status: number | null }>(
          'POST',
          '/control/messages/inbound',
          {
            from,
            to,
            text,
            events_url: `${ctx.h.apiUrl}/carrier/messages`,
          },
        )
      ).body,
    setOutcome: (to: string, outcome: MessageOutcome) =>
      control<{ to: string; outcome: MessageOutcome }>('POST', '/control/messages/outcomes', { to, outcome }),
    resetOutcomes: () => control<{ reset: true }>('DELETE', '/control/messages/outcomes'),
  };

  const model = {
    /** Forgets requests, queued replies, the delay and the fault. */
    reset: () => control<{ reset: true }>('POST', '/control/model/reset'),
    /** Queues a reply for the first request whose last user message contains `match` (any request without it). */
    reply: (reply: Partial<ScriptedReply> & { reply: string }) =>
      control<ScriptedReply & { queued: number }>('POST', '/control/model/replies', reply),
    /** The delay between streamed words for replies that set none. */
    setTokenDelay: (ms: number) => control<{ token_delay_ms: number }>('POST', '/control/model/settings', { token_delay_ms: ms }),
    requests: async (): Promise<ModelRequest[]> =>
      (await control<{ requests: ModelRequest[] }>('GET', '/control/model/requests')).body.requests,
  };

  const numbers = {
    /** The carrier account owns `phoneNumber` (not yet routed to Switchboard): an operator may grant it for import. */
    own: (phoneNumber: string) => control<OwnedNumber>('POST', '/control/numbers/owned', { phone_number: phoneNumber }),
    list: async () => (await control<{ numbers: NumberRecord[]; owned: OwnedNumber[] }>('GET', '/control/numbers')).body,
  };

  return { calls, messages, model, numbers };
}

export type Simulator = ReturnType<typeof simulator>;

/**
 * For a suite of spoken calls: the simulator's control, with the model's script forgotten and speech
 * played at 20 words a second before each test; `speech(id)` is what the caller of a call heard so far.
 */
export function spokenCalls(context: { readonly h: Harness }) {
  const sim = simulator(context);
  beforeEach(async () => {
    await sim.model.reset();
    context.h.simulator.state.calls.wordsPerSecond = 20;
  });
  return { sim, speech: (callId: string) => context.h.simulator.state.calls.speechFor(callId)! };
}
