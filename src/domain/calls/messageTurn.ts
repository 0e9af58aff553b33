import type { IncomingMessage } from 'node:http';
import crypto from 'node:crypto';
import type { CarrierAdapter } from '../../adapters/carrier/port';
import { openSecretRow } from '../lines/secrets';
import { completionOf, outcomeOf, requestBodyOf, signedRequest, type AttemptOutcome, type DeliveryAttemptDeps } from '../webhooks/attempt';
import { NDJSON_LIMITS } from '../webhooks/events';
import { overLimit, post, type AnswerStart, type ReplyReader } from '../webhooks/post';
import { eventRowOf, type NewEvent } from '../webhooks/record';
import {
  completeAttempt,
  failLostAttempt,
  insertUnmadeAttempt,
  recordMessageAndClaim,
  releaseClaim,
  settleAttemptWith,
  type AttemptRow,
} from '../webhooks/store';
import { MARK_DEFERRABLE_SQL, markDeferrableBindings } from './deferredPlayback';
import { appendTranscript, appendUnsequencedTranscript, transcriptAppend, type TranscriptAddition } from './store';

/*
 * A webhook-mode caller turn's delivery: the `message` event's one attempt, with the receiver's
 * reply spoken on the live call as it arrives (NDJSON chunk by chunk, or a `{text}` at once) and
 * the turn's transcript entries written with the attempt's outcome. The delivery itself is the
 * webhooks area's (src/domain/webhooks/post.ts); this module is what the call adds to it.
 */

/** Budgets of a streamed NDJSON reply (spec: 15 s per line, 5 minutes in total). */
export const NDJSON_LINE_TIMEOUT_MS = 15_000;
export const NDJSON_TOTAL_TIMEOUT_MS = 5 * 60_000;

export interface NdjsonBudget {
  lineMs: number;
  totalMs: number;
}

/**
 * Reads an NDJSON reply line by line, handing each `{text}` chunk to `onChunk` as soon as its
 * line is complete; `{done: true}` ends it. Each line has `lineMs` from the end of the previous
 * one (a line drip-fed byte by byte gets no more), the whole reply `totalMs`; overruns throw an
 * `NdjsonTimeout`, and breaking one of NDJSON_LIMITS a `ReplyLimitError`. Holds at most one line
 * besides the answer's start.
 */
async function readNdjson(
  response: IncomingMessage,
  controller: AbortController,
  budgets: NdjsonBudget,
  start: AnswerStart,
  onChunk: (text: string) => Promise<void>,
): Promise<void> {
  const reader = (response as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  let buffer = '';
  let chunks = 0;
  let spokenChars = 0;
  const totalDeadline = Date.now() + budgets.totalMs;
  let lineDeadline = Date.now() + budgets.lineMs;
  for (;;) {
    const totalFirst = totalDeadline < lineDeadline;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          controller.abort();
          const err = new Error(
            totalFirst ? `ndjson reply over its ${budgets.totalMs} ms budget` : `no ndjson line within ${budgets.lineMs} ms`,
          );
          err.name = 'NdjsonTimeout';
          reject(err);
        },
        Math.max(0, Math.min(totalDeadline, lineDeadline) - Date.now()),
      );
    });
    let chunk: IteratorResult<Buffer>;
    try {
      chunk = await Promise.race([reader.next(), timeout]);
    } finally {
      clearTimeout(timer);
    }
    if (chunk.done) return;
    const text = decoder.decode(chunk.value, { stream: true });
    start.add(text);
    buffer += text;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      if (newline > NDJSON_LIMITS.maxLineChars) overLimit(controller, `ndjson line over ${NDJSON_LIMITS.maxLineChars} characters`);
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      lineDeadline = Date.now() + budgets.lineMs;
      if (!line) continue;
      let parsed: { text?: unknown; done?: unknown };
      try {
        parsed = JSON.parse(line) as { text?: unknown; done?: unknown };
      } catch {
        continue; // a malformed line is skipped, not spoken
      }
      if (parsed.done === true) {
        controller.abort();
        return;
      }
      if (typeof parsed.text === 'string' && parsed.text.trim() !== '') {
        chunks += 1;
        spokenChars += parsed.text.length;
        if (chunks > NDJSON_LIMITS.maxChunks) overLimit(controller, `ndjson reply over ${NDJSON_LIMITS.maxChunks} chunks`);
        if (spokenChars > NDJSON_LIMITS.maxSpokenChars)
          overLimit(controller, `ndjson reply over ${NDJSON_LIMITS.maxSpokenChars} characters of text`);
        await onChunk(parsed.text);
      }
    }
    if (buffer.length > NDJSON_LIMITS.maxLineChars) overLimit(controller, `ndjson line over ${NDJSON_LIMITS.maxLineChars} characters`);
  }
}

/**
 * Where a `message` reply goes while the call is live: NDJSON chunks are spoken as they arrive
 * (speak ids `<speakIdPrefix>-<n>`); with `replySpeakId`, a `{text}` reply is spoken as soon as it
 * is read, under that speak id (otherwise the caller speaks it).
 */
export interface ReplyStream {
  carrierCallId: string;
  speakIdPrefix: string;
  replySpeakId?: string;
}

/** The reply reader of one attempt (src/domain/webhooks/post.ts `ReplyReader`) that speaks the reply on the call. */
export function speakingReply(carrier: Pick<CarrierAdapter, 'speak'>, stream: ReplyStream, budget: NdjsonBudget): ReplyReader {
  const chunks: Array<{ speakId: string; text: string }> = [];
  const { carrierCallId, replySpeakId } = stream;
  return {
    chunks,
    streams: (contentType) => /ndjson/i.test(contentType),
    readStream: (response, controller, start) =>
      readNdjson(response, controller, budget, start, async (text) => {
        const speakId = `${stream.speakIdPrefix}-${chunks.length + 1}`;
        await carrier.speak({ carrierCallId, speakId, text });
        chunks.push({ speakId, text });
      }),
    // The receiver did answer, so a carrier refusal does not fail the delivery: the caller falls back to speaking the reply itself.
    ...(replySpeakId
      ? {
          takeReply: (text: string) =>
            carrier.speak({ carrierCallId, speakId: replySpeakId, text }).then(
              () => true,
              () => false,
            ),
        }
      : {}),
  };
}

/** The playback deferral a turn opens for its reply (./deferredPlayback.ts `markDeferrable`). */
export interface TurnDeferral {
  callId: string;
  speakIds: readonly string[];
  speakPrefix: string | null;
}

export interface MessageTurnDeps extends DeliveryAttemptDeps {
  /** Speaks the reply as it arrives. */
  carrier: Pick<CarrierAdapter, 'speak'>;
  /** NDJSON budgets; the spec's 15 s per line and 5 minutes in total unless configured. */
  ndjsonBudget?: NdjsonBudget;
}

/** Adds a turn's entries to its call's transcript on their own (the turn made no attempt). */
async function transcriptAppendOf(db: DeliveryAttemptDeps['db'], callId: string, addition: TranscriptAddition): Promise<void> {
  if ('sequenced' in addition) await appendTranscript(db, callId, addition.sequenced);
  else await appendUnsequencedTranscript(db, callId, addition.unsequenced);
}

/**
 * Records a call turn's `message` event and makes its one attempt, at most once, in two
 * statements around the POST (src/domain/webhooks/store.ts): the first records the event, marks
 * the reply's playback deferral, reads the line and its sealed secret and claims attempt 1; the
 * second records the outcome together with the turn's transcript entries (`transcriptOf`, given
 * the outcome; none when the attempt was lost). A re-run of the same turn (a crashed worker)
 * finds attempt 1 claimed, fails it as `attempt_lost` if it never finished, and POSTs nothing:
 * a late answer would be spoken out of turn.
 */
export async function messageTurnAttempt(
  deps: MessageTurnDeps,
  event: NewEvent & { id: string },
  stream: ReplyStream,
  turn: {
    deferral?: TurnDeferral;
    transcriptOf: (outcome: AttemptOutcome) => { callId: string; addition: TranscriptAddition };
    /**
     * What the records keep of the payload when it differs from what is sent: the event and the delivery's request
     * body are recorded with it, the POST carries `event.payload` (the caller's words as said, transcript redaction
     * on and webhook payloads not redacted: src/domain/recordings/redactTranscript.ts).
     */
    recordedPayload?: Record<string, unknown>;
  },
): Promise<AttemptOutcome & { transcriptWritten: boolean }> {
  const { db, now } = deps;
  const eventRow = eventRowOf(turn.recordedPayload ? { ...event, payload: turn.recordedPayload } : event);
  const body = requestBodyOf(eventRow);
  const sentBody = turn.recordedPayload ? requestBodyOf(eventRowOf(event)) : body;
  const deliveryId = crypto.randomUUID();
  const started = now();
  const { deferral } = turn;
  const claim = await recordMessageAndClaim(db, {
    event: turn.recordedPayload ? { ...event, payload: turn.recordedPayload } : event,
    deliveryId,
    requestBody: body,
    ...(deferral
      ? {
          alongside: {
            sql: `${MARK_DEFERRABLE_SQL} RETURNING call_id`,
            bindings: markDeferrableBindings(deferral.callId, deferral.speakIds, deferral.speakPrefix),
          },
        }
      : {}),
  });
  // Nothing to POST (rare: the line released, no URL, no secret): logged as the failed attempt, as attemptDelivery does.
  const unmade = async (error: string, retryable: boolean) => {
    const row: AttemptRow = {
      id: deliveryId,
      event_id: eventRow.id,
      workspace_id: eventRow.workspace_id,
      environment: eventRow.environment,
      line_id: eventRow.line_id,
      call_id: eventRow.call_id,
      event_type: eventRow.event_type,
      url: claim.url,
      attempt: 1,
      request_body: body,
      created_at: started,
    };
    await insertUnmadeAttempt(db, row, error);
    const outcome: AttemptOutcome = { deliveryId, delivered: false, retryable, httpStatus: null };
    const transcript = turn.transcriptOf(outcome);
    const written = await transcriptAppendOf(db, transcript.callId, transcript.addition).then(
      () => true,
      () => false,
    );
    return { ...outcome, transcriptWritten: written };
  };
  if (claim.lineStatus === undefined || claim.lineStatus === 'released') return unmade('line_released', false);
  if (!claim.url) return unmade('missing_webhook_url', true);
  if (!claim.secret) return unmade('missing_webhook_secret', true);
  if (!claim.claimed) {
    await failLostAttempt(db, eventRow.id, started);
    return { deliveryId, delivered: false, retryable: false, httpStatus: null, error: 'attempt_lost', transcriptWritten: false };
  }
  let secret: string;
  try {
    secret = openSecretRow(deps.secretsKey(), claim.secret);
  } catch (err) {
    // Unreadable with this worker's key ring: the claim is given back, so a retry (or a fixed worker) can make the attempt.
    await releaseClaim(db, deliveryId);
    throw err;
  }
  const request = signedRequest(eventRow, { url: claim.url, secret, body: sentBody, deliveryId, number: 1, started });
  const budget = deps.ndjsonBudget ?? { lineMs: NDJSON_LINE_TIMEOUT_MS, totalMs: NDJSON_TOTAL_TIMEOUT_MS };
  const result = await post(deps, request, speakingReply(deps.carrier, stream, budget));
  const completion = completionOf(request, result, started, now());
  const outcome = outcomeOf(deliveryId, result);
  const transcript = turn.transcriptOf(outcome);
  try {
    const append = transcriptAppend(transcript.callId, transcript.addition);
    await settleAttemptWith(db, deliveryId, completion, { sql: `${append.sql} RETURNING calls.id`, bindings: append.bindings });
    return { ...outcome, transcriptWritten: true };
  } catch {
    // The entries are in the outcome; the workflow rewrites the transcript with a retried activity.
    await completeAttempt(db, deliveryId, completion);
    return { ...outcome, transcriptWritten: false };
  }
}
