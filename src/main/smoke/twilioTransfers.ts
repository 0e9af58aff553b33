import { heard, onCall, speakFully, type CallPair } from './loop';
import { eventually, expectThat, fail, type Check, type Log } from './runner';
import { legsOf, requestsTo, type TwimlFetch, type TwilioSession } from './twilioSide';

/**
 * Two failed transfers in one call (review, Twilio "Replay protection": the second one used to
 * drop the call, because Twilio fetches the same `connect` TwiML URL again after each). Run once
 * per session: the `transfers` and `refetch` checks read the same call.
 */

interface TransferRun {
  pair: CallPair;
  callSid: string;
  reasons: string[];
  endedAt: number;
}

/** "You can access the Call Event resource 15 minutes after a call ends" (twilio.com/docs/voice/api/call-event-resource). */
const CALL_EVENTS_DELAY_MS = 15 * 60_000;

const WORDS = ['lighthouse', 'waterfall'];

async function twoFailedTransfers(session: TwilioSession, log: Log): Promise<TransferRun> {
  const destination = await session.refusing.number(log);
  const run = await onCall(session, async (pair) => {
    const reasons: string[] = [];
    for (const [round, word] of WORDS.entries()) {
      log(`transfer ${round + 1} to ${destination} (refuses calls)`);
      const result = await session.api.transfer(pair.a, destination);
      expectThat(!result.transferred, `transfer ${round + 1} to ${destination} was answered: the destination must refuse calls`);
      reasons.push(result.failure_reason ?? 'no reason');
      const call = await session.api.call(pair.a);
      expectThat(call.status === 'in_progress', `after failed transfer ${round + 1} the call is ${call.status} (${call.end_cause ?? ''})`);
      // Back with the agent: Twilio reopens the ConversationRelay session after the failed Dial's
      // redirect, which nothing reports to a customer; give it two seconds before speaking.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // Speech goes through again and B's recognition hears it.
      const since = Date.now();
      await speakFully(session, pair.a, `Still with the agent after transfer ${round + 1}: ${word}.`);
      await heard(session, pair.b, word, since, 30_000);
    }
    const { a } = await legsOf(session.twilio, session.a, session.b, pair.startedAt);
    return { pair, callSid: a.sid, reasons };
  });
  return { ...run, endedAt: Date.now() };
}

function once(session: TwilioSession, log: Log): Promise<TransferRun> {
  session.transferRun ??= twoFailedTransfers(session, log);
  return session.transferRun as Promise<TransferRun>;
}

/** The URLs Twilio fetched more than once, with how often and what we answered. */
export function repeatedFetches(fetches: TwimlFetch[]): Array<{ url: string; times: number; statuses: number[] }> {
  const byUrl = new Map<string, number[]>();
  for (const fetched of fetches) byUrl.set(fetched.url, [...(byUrl.get(fetched.url) ?? []), fetched.status]);
  return [...byUrl.entries()]
    .filter(([, statuses]) => statuses.length > 1)
    .map(([url, statuses]) => ({ url, times: statuses.length, statuses }));
}

export const transfersCheck: Check<TwilioSession> = {
  id: 'transfers',
  title: 'Two failed transfers in one call leave the call with the agent',
  budgetMs: 4 * 60_000,
  async run(session, log) {
    const { reasons } = await once(session, log);
    return `both transfers failed (${reasons.join(', ')}); after each the call stayed in_progress and B heard the agent's next sentence`;
  },
};

export const refetchCheck: Check<TwilioSession> = {
  id: 'refetch',
  title: "Twilio's re-fetch of an identical TwiML URL is answered, not refused",
  budgetMs: 25 * 60_000,
  async run(session, log) {
    const { callSid, endedAt } = await once(session, log);
    const wait = endedAt + CALL_EVENTS_DELAY_MS - Date.now();
    if (wait > 0) log(`waiting ${Math.ceil(wait / 60_000)} min for Twilio's Call Events of ${callSid} (readable 15 min after the call)`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
    const fetches = await eventually(
      `Twilio's Call Events of ${callSid} listing requests to ${session.api.baseUrl}`,
      async () => {
        const found = await requestsTo(session.twilio, callSid, session.api.baseUrl);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 5 * 60_000, everyMs: 15_000 },
    );
    const refused = fetches.filter((f) => f.status < 200 || f.status > 299);
    if (refused.length > 0) fail(`refused: ${refused.map((f) => `${f.status} ${f.url}`).join('; ')}`);
    const repeated = repeatedFetches(fetches);
    const seen = repeated.map((r) => `${new URL(r.url).pathname} ×${r.times}`).join(', ');
    return repeated.length > 0
      ? `${fetches.length} requests of ${callSid}, all 2xx; fetched again with the same URL: ${seen}`
      : `${fetches.length} requests of ${callSid}, all 2xx; no URL was fetched twice (each carries something of its own)`;
  },
};
