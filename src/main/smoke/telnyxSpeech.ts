import { SwitchboardApiError } from '../../../sdk/client';
import { heard, onCall } from './loop';
import { expectThat, fail, type Check } from './runner';
import { legOf, sayOnLeg, type TelnyxSession } from './telnyxSide';

/**
 * Speech on Telnyx: texts longer than `speak`'s documented 3,000-character limit (defect 6), and
 * barge-in producing the spec's `interrupted` event (issue item 5). What B hears is B's own
 * `message` webhooks: Telnyx's transcription of A's speech.
 */

/**
 * A text of exactly `length` characters, plain sentences ending with "The last word of this
 * speech is <word>.", so that hearing the word proves the end of the text was spoken.
 */
export function speechOf(length: number, word: string): string {
  const ending = `The last word of this speech is ${word}.`;
  const room = length - ending.length - 1;
  if (room < 0) throw new Error(`a speech of ${length} characters cannot hold its ending`);
  let filler = '';
  for (let n = 1; filler.length < room; n += 1) filler += `This is sentence ${n} of a long speech from the Switchboard smoke kit. `;
  const cut = filler.slice(0, room);
  const whole = cut.slice(0, Math.max(0, cut.lastIndexOf(' ')));
  return `${whole.padEnd(room, ' ')} ${ending}`;
}

const SPEECHES: Array<[number, string]> = [
  [3_001, 'pineapple'],
  [5_000, 'umbrella'],
];

/** Roughly how long Telnyx takes to say `length` characters, with room for the recognition to catch up. */
const sayingMs = (length: number) => (length / 10 + 60) * 1000;

async function speakLong(session: TelnyxSession, callId: string, listenerCallId: string, length: number, word: string): Promise<string> {
  const since = Date.now();
  const spoken = session.api.speak(callId, speechOf(length, word));
  // A refusal or an unplayed speech fails at once; a slow or dropped HTTP answer (a long
  // speech outlasts some proxies' timeouts) does not: what B hears decides.
  const refused = spoken.then(
    (result) => (result.spoke ? new Promise<never>(() => undefined) : fail(`not played: ${result.interruption_reason ?? 'no reason'}`)),
    (err) =>
      err instanceof SwitchboardApiError ? fail(`refused: ${err.status} ${err.code} ${err.message}`) : new Promise<never>(() => undefined),
  );
  await Promise.race([heard(session, listenerCallId, word, since, sayingMs(length)), refused]);
  const answer = await Promise.race([
    spoken.then(
      (r) => (r.spoke ? 'spoke: true' : 'not played'),
      (e: Error) => `no answer (${e.message})`,
    ),
    pause(30_000),
  ]);
  return `${length} characters: B heard "${word}" after ${Math.round((Date.now() - since) / 1000)} s, API ${answer ?? 'still waiting'}`;
}

const pause = (ms: number) => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms));

export const longSpeechCheck: Check<TelnyxSession> = {
  id: 'long-speech',
  title: 'Speeches of 3,001 and 5,000 characters are said to the end',
  budgetMs: 20 * 60_000,
  async run(session, log) {
    return onCall(session, async (pair) => {
      const seen: string[] = [];
      for (const [length, word] of SPEECHES) {
        log(`speaking ${length} characters (about ${Math.round(length / 15 / 60)} min)`);
        seen.push(await speakLong(session, pair.a, pair.b, length, word));
      }
      return seen.join('; ');
    });
  },
};

/** A's answer to B's question: a short sentence B hears at once, then one long sentence without pauses to talk over. */
const STORY =
  'Here is a story about a harbour. The old boat left the harbour in the morning and sailed past the lighthouse and the rocks ' +
  'and the little islands where the birds were sleeping and the fishermen were mending their nets and the children were running ' +
  'along the sand and the wind was pushing the clouds across the sky while the captain was singing a song about the sea and the ' +
  'mountains and the long road home that he had travelled so many times before that he knew every wave and every stone by name';

export const bargeInCheck: Check<TelnyxSession> = {
  id: 'barge-in',
  title: 'Talking over the agent produces the `interrupted` event',
  budgetMs: 4 * 60_000,
  async run(session) {
    return onCall(session, async (pair) => {
      // B talks straight through Telnyx, as a caller would (Switchboard's speech on B would stop when B hears A).
      const legB = await legOf(session.telnyx, session.connectionId, pair.b);
      session.receiver.replyNext(session.a.id, STORY);
      const asked = Date.now();
      await sayOnLeg(session.telnyx, legB, 'Please tell me a story about the sea.');
      await heard(session, pair.b, 'harbour', asked, 45_000);
      const cutIn = Date.now();
      await sayOnLeg(session.telnyx, legB, 'Stop, stop, wait a moment please, I have a question about the weather.');
      const interrupted = await session.receiver.waitFor(
        'interrupted on A',
        (e) => e.callId === pair.a && e.type === 'interrupted' && e.at >= cutIn,
        30_000,
      );
      const partial = String(interrupted.body.partial_response_text ?? '');
      expectThat(STORY.startsWith(partial.trim()), `partial_response_text is not a prefix of the reply: "${partial.slice(0, 120)}"`);
      const next = await session.receiver.waitFor(
        "A's next message (the interruption)",
        (e) => e.callId === pair.a && e.type === 'message' && e.at >= cutIn && /weather|question|stop|moment/i.test(String(e.body.text)),
        30_000,
      );
      expectThat(
        Number(interrupted.body.timestamp) < Number(next.body.timestamp),
        `interrupted (${String(interrupted.body.timestamp)}) is not earlier than the message that followed (${String(next.body.timestamp)})`,
      );
      return `interrupted ${Math.round((interrupted.at - cutIn) / 1000)} s after B cut in, having heard ${partial.length} of ${STORY.length} characters; then message "${String(next.body.text)}"`;
    });
  },
};
