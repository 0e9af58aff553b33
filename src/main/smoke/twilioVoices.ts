import { onCall, type CallPair } from './loop';
import { fail, type Check } from './runner';
import { callErrors, legsOf, type TwilioSession } from './twilioSide';

/**
 * Every voice of the catalog (GET /api/v1/voices) said by ConversationRelay (review, Twilio
 * "ConversationRelay TwiML": an unsupported voice fails the session with 64101). Two voices per
 * call: A speaks in one, B in the other; a voice passes when its speech was played to the end
 * and Twilio recorded no error on the leg that used it.
 */

/** The catalog's slugs in pairs (the last one alone when the count is odd). */
export function pairsOf<T>(items: T[]): Array<[T, T | undefined]> {
  const pairs: Array<[T, T | undefined]> = [];
  for (let i = 0; i < items.length; i += 2) pairs.push([items[i], items[i + 1]]);
  return pairs;
}

async function trySpeaking(session: TwilioSession, callId: string, slug: string): Promise<string | undefined> {
  try {
    const result = await session.api.speak(callId, `This is the voice ${slug.replace(/-/g, ' ')}, speaking for the Switchboard smoke kit.`);
    return result.spoke ? undefined : `not played (${result.interruption_reason ?? 'no reason'})`;
  } catch (err) {
    return (err as Error).message;
  }
}

export const voicesCheck: Check<TwilioSession> = {
  id: 'voices',
  title: 'Every catalog voice is accepted by ConversationRelay',
  budgetMs: 15 * 60_000,
  async run(session, log) {
    const slugs = await session.api.voiceSlugs();
    const refused: string[] = [];
    try {
      for (const [onA, onB] of pairsOf(slugs)) {
        log(`voices ${onA}${onB ? ` and ${onB}` : ''}`);
        await session.api.updateLine(session.a.id, { voice: onA });
        await session.api.updateLine(session.b.id, { voice: onB ?? '' });
        let said: { pair: CallPair; problems: Array<[string, string | undefined]> };
        try {
          // trySpeaking keeps its own errors: what onCall throws is the call not starting.
          said = await onCall(session, async (pair) => {
            const problems: Array<[string, string | undefined]> = [[onA, await trySpeaking(session, pair.a, onA)]];
            if (onB) problems.push([onB, await trySpeaking(session, pair.b, onB)]);
            return { pair, problems };
          });
        } catch (err) {
          // The greeting is said in B's voice before B starts: a refused voice can stop the call here.
          refused.push(`${[onA, onB].filter(Boolean).join(' and ')}: the call did not start (${(err as Error).message})`);
          continue;
        }
        const { pair, problems } = said;
        const legs = await legsOf(session.twilio, session.a, session.b, pair.startedAt);
        const errors = {
          [onA]: await callErrors(session.twilio, legs.a.sid),
          ...(onB ? { [onB]: await callErrors(session.twilio, legs.b.sid) } : {}),
        };
        for (const [slug, problem] of problems) {
          const twilioErrors = errors[slug] ?? [];
          if (problem || twilioErrors.length > 0) refused.push(`${slug}: ${[problem, ...twilioErrors].filter(Boolean).join('; ')}`);
        }
      }
    } finally {
      await session.api.updateLine(session.a.id, { voice: '' }).catch(() => undefined);
      await session.api.updateLine(session.b.id, { voice: '' }).catch(() => undefined);
    }
    if (refused.length > 0) fail(`${refused.length} of ${slugs.length} voices failed: ${refused.join(' | ')}`);
    return `all ${slugs.length} voices played with no Twilio error: ${slugs.join(', ')}`;
  },
};
