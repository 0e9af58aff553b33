import { SwitchboardApiError } from '../../../sdk/client';
import { Receiver, type ReceivedEvent } from './receiver';
import { eventually, fail, RunRefused, type Log, type Setting } from './runner';
import { ACTIVE_CALL_STATUSES, Switchboard, type Call, type Line } from './switchboard';

/**
 * The self-contained call loop of the carrier runs: two webhook-mode lines, A and B, made on the
 * operator's deployment for the run, whose webhooks come to the kit's receiver. A calls B: B's
 * line answers the call itself, so no person has to pick up; each side hears the other through
 * the carrier's own speech synthesis and recognition (B's `message` webhooks are what A said).
 * Both lines are released at the end.
 */

export const LOOP_SETTINGS: Setting[] = [
  { name: 'SMOKE_API_URL', what: "the deployment's public URL (its PUBLIC_BASE_URL), e.g. https://switchboard.example.com" },
  { name: 'SMOKE_API_KEY', what: 'a live API key of a workspace on this carrier (sk_live_…; carriers have no usable test mode for calls)' },
  { name: 'SMOKE_RECEIVER_URL', what: 'the public https URL (a tunnel) that reaches this machine on SMOKE_RECEIVER_PORT (default 4545)' },
];

export const LOOP_OPTIONAL: Setting[] = [{ name: 'SMOKE_RECEIVER_PORT', what: 'the local port of the receiver (default 4545)' }];

export type ActiveLine = Line & { phone_number: string };

export interface Loop {
  env: NodeJS.ProcessEnv;
  api: Switchboard;
  receiver: Receiver;
  a: ActiveLine;
  b: ActiveLine;
  /** Lines the checks made besides A and B (released with them). */
  extraLines: string[];
}

/** The two legs of one A→B call, by their Switchboard call ids. */
export interface CallPair {
  a: string;
  b: string;
  answeredBy: unknown;
  startedAt: number;
}

/** Starts the receiver and checks what the run reaches; refuses (nothing created) when something is missing. */
export async function openReceiverAndApi(env: NodeJS.ProcessEnv, log: Log): Promise<{ api: Switchboard; receiver: Receiver }> {
  const receiverUrl = env.SMOKE_RECEIVER_URL!.trim().replace(/\/+$/, '');
  if (!/^https:\/\//.test(receiverUrl))
    throw new RunRefused([`SMOKE_RECEIVER_URL must be https (live lines deliver only to https): ${receiverUrl}`]);
  const receiver = new Receiver(receiverUrl, Number(env.SMOKE_RECEIVER_PORT || 4545));
  await receiver.start();
  const api = new Switchboard(env.SMOKE_API_URL!.trim().replace(/\/+$/, ''), env.SMOKE_API_KEY!.trim());
  const problems = [
    ...(await api.refusals('live', env.SMOKE_API_KEY!.trim())),
    ...[await receiver.reachable()].filter((p) => p !== undefined),
  ];
  if (problems.length > 0) {
    await receiver.stop();
    throw new RunRefused(problems);
  }
  log(`API ${api.baseUrl} and receiver ${receiver.publicUrl} reachable`);
  return { api, receiver };
}

/** How the run's lines are made. */
export interface LoopOptions {
  /** B's `begin_message` (machine detection needs a person saying something short); none by default. */
  greeting?: string;
  /** Both lines' `language` (PATCH), e.g. `en` for the carrier's English recognition; the default `multi` otherwise. */
  language?: 'en';
}

/**
 * Makes lines A and B (recording on), once the API, the receiver and then `providerRefusal` (the
 * provider's credentials) have said nothing is missing.
 */
export async function openLoop(
  env: NodeJS.ProcessEnv,
  log: Log,
  providerRefusal: () => Promise<string | undefined>,
  options: LoopOptions = {},
): Promise<Loop> {
  const { api, receiver } = await openReceiverAndApi(env, log);
  const made: string[] = [];
  try {
    const refusal = await providerRefusal();
    if (refusal) throw new RunRefused([refusal]);
    const create = async (name: string, beginMessage?: string) => {
      const { line, secret } = await refusedAsRun(
        api.createLine({
          name: `smoke ${name} ${new Date().toISOString()}`,
          mode: 'webhook',
          webhook_url: receiver.webhookUrl,
          recording_enabled: true,
          ...(beginMessage ? { begin_message: beginMessage } : {}),
        }),
      );
      made.push(line.id);
      receiver.addLine(line.id, secret);
      return line.id;
    };
    const [aId, bId] = [await create('A'), await create('B', options.greeting)];
    log(`lines ${aId} (A) and ${bId} (B) created; waiting for their numbers`);
    const [a, b] = await Promise.all([api.lineActive(aId), api.lineActive(bId)]);
    if (options.language) for (const id of [aId, bId]) await api.updateLine(id, { language: options.language });
    log(`A is ${a.phone_number}, B is ${b.phone_number}`);
    return { env, api, receiver, a, b, extraLines: [] };
  } catch (err) {
    await Promise.allSettled(made.map((id) => api.releaseLine(id)));
    await receiver.stop();
    throw err;
  }
}

/** A refusal of POST /lines (no live card for a second line, the hourly limit) stops the run before it starts. */
async function refusedAsRun<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (err) {
    if (!(err instanceof SwitchboardApiError)) throw err;
    const hint = err.code === 'payment_method_required' ? ' (a second live line needs a default live payment method: portal, Billing)' : '';
    throw new RunRefused([`POST /api/v1/lines was refused: ${err.status} ${err.code}: ${err.message}${hint}`]);
  }
}

/** Hangs up what is still live on the run's lines, releases them and stops the receiver; returns what failed. */
export async function closeLoop(loop: Loop, log: Log): Promise<string[]> {
  const problems: string[] = [];
  for (const id of [loop.a.id, loop.b.id, ...loop.extraLines]) {
    try {
      const live = (await loop.api.callsOfLine(id)).filter((call) => ACTIVE_CALL_STATUSES.includes(call.status));
      for (const call of live) await loop.api.hangUp(call.id);
      await loop.api.releaseLine(id);
      log(`line ${id} released`);
    } catch (err) {
      problems.push(`line ${id} not released (release it in the portal, or its number keeps costing): ${(err as Error).message}`);
    }
  }
  if (loop.receiver.refused.length > 0) problems.push(`the receiver refused deliveries: ${loop.receiver.refused.join('; ')}`);
  await loop.receiver.stop();
  return problems;
}

/**
 * A calls B and both sides report the call started (`call_started` on each line). Fails at once
 * when A's call ends unanswered (its status and end cause are the reason).
 */
export async function connect(loop: Loop, options: { machineDetection?: boolean } = {}): Promise<CallPair> {
  const startedAt = Date.now();
  const placed = await loop.api.placeCall(loop.a.id, loop.b.phone_number, options.machineDetection);
  let answeredBoth = false;
  const ended = eventually(
    'A call ended unanswered',
    async () => {
      if (answeredBoth) return null;
      const call = await loop.api.call(placed.id);
      return ACTIVE_CALL_STATUSES.includes(call.status) ? undefined : call;
    },
    { timeoutMs: 120_000, everyMs: 3_000 },
  );
  const started = (line: Line, what: string) =>
    loop.receiver.waitFor(what, (e) => e.lineId === line.id && e.type === 'call_started' && e.at >= startedAt, 90_000);
  const answered = Promise.all([started(loop.a, 'A call_started'), started(loop.b, 'B call_started (B answering A)')]);
  const outcome = await Promise.race([answered, ended]);
  if (outcome && !Array.isArray(outcome))
    fail(`A's call ${placed.id} ended ${outcome.status} (${outcome.end_cause ?? 'no end cause'}) before both sides started`);
  answeredBoth = true;
  void ended.catch(() => undefined);
  const [onA, onB] = outcome as Awaited<typeof answered>;
  // B greets: let it be said first, or A's first speech would be taken as talked over.
  const greeting = loop.b.begin_message?.split(/\W+/).find(Boolean);
  if (greeting) await heard(loop, placed.id, greeting, startedAt, 10_000).catch(() => undefined);
  return { a: placed.id, b: onB.callId!, answeredBy: onA.body.answered_by, startedAt };
}

/** Runs `talk` on a new A→B call, then hangs the call up whatever happened (a failed hang-up is not the check's finding). */
export async function onCall<T>(
  loop: Loop,
  talk: (pair: CallPair) => Promise<T>,
  options: { machineDetection?: boolean } = {},
): Promise<T> {
  const pair = await connect(loop, options);
  try {
    return await talk(pair);
  } finally {
    await hangUpPair(loop, pair).catch(() => undefined);
  }
}

/**
 * A call on which A says a counted sentence (something to record), hung up; then the calls of
 * `legs` once each has ended with its `recording_url` (carriers report recordings after the end).
 */
export async function recordedCall(
  loop: Loop,
  legs: Array<'a' | 'b'>,
  timeoutMs: number,
): Promise<{ pair: CallPair; recorded: Array<Call & { recording_url: string }> }> {
  const pair = await onCall(loop, async (call) => {
    await speakFully(loop, call.a, 'This call is recorded by the Switchboard smoke kit. One, two, three, four, five.');
    return call;
  });
  return { pair, recorded: await Promise.all(legs.map((leg) => loop.api.endedWith(pair[leg], 'recording_url', timeoutMs))) };
}

/** Hangs up A's leg and waits until neither leg is live. */
export async function hangUpPair(loop: Loop, pair: CallPair): Promise<void> {
  await loop.api.hangUp(pair.a);
  await eventually(
    'both legs ended',
    async () => {
      const calls = await Promise.all([loop.api.call(pair.a), loop.api.call(pair.b)]);
      return calls.every((call) => !ACTIVE_CALL_STATUSES.includes(call.status)) ? true : undefined;
    },
    { timeoutMs: 60_000 },
  );
}

/**
 * The first `message` webhook of `callId` since `since` whose text contains `word` (speech
 * recognition rarely returns a sentence verbatim, so checks listen for one distinctive word).
 */
export function heard(loop: Loop, callId: string, word: string, since: number, timeoutMs: number): Promise<ReceivedEvent> {
  const wanted = word.toLowerCase();
  return loop.receiver.waitFor(
    `the other side hearing "${word}"`,
    (e) =>
      e.callId === callId &&
      e.type === 'message' &&
      e.at >= since &&
      String(e.body.text ?? '')
        .toLowerCase()
        .includes(wanted),
    timeoutMs,
  );
}

/** Speaks on `callId` and fails unless the API reports the whole text played. */
export async function speakFully(loop: Loop, callId: string, text: string): Promise<void> {
  const result = await loop.api.speak(callId, text);
  if (!result.spoke)
    fail(`speak on ${callId} not played: ${result.interruption_reason ?? 'no reason'} (heard "${result.partial_response_text ?? ''}")`);
}
