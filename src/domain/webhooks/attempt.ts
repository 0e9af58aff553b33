import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { SecretsKeyRing } from '../../platform/crypto/secretBox';
import type { Db } from '../../platform/db/knex';
import type { EgressPolicy } from '../../platform/net/egress';
import type { CarrierAdapter } from '../../adapters/carrier/port';
import { appendTranscript, appendUnsequencedTranscript, type TranscriptAddition } from '../calls/store';
import { currentSecret, openSecretRow } from '../lines/secrets';
import { eventDestination } from './destination';
import type { EventRow, NewEvent } from './record';
import { completeAttempt, recordMessageAndClaim, settleMessageAttempt, type TurnDeferral } from './store';
import { signatureHeaders } from './signature';
import {
  EVENT_POLICIES,
  NDJSON_LIMITS,
  parseRetryAfter,
  redactResponseBody,
  RESPONSE_LOG_PREFIX,
  RESPONSE_READ_LIMIT_BYTES,
  type EventType,
} from './events';

export interface DeliveryAttemptDeps {
  db: Db;
  /** Every connection to a customer URL goes through it (src/platform/net/egress.ts). */
  egress: EgressPolicy;
  /** Speaks streamed (NDJSON) replies to `message` events as each line arrives. */
  carrier?: Pick<CarrierAdapter, 'speak'>;
  /** NDJSON budgets; the spec's 15 s per line and 5 minutes in total unless configured. */
  ndjsonBudget?: { lineMs: number; totalMs: number };
  secretsKey: () => SecretsKeyRing;
  now: () => Date;
}

export interface AttemptOutcome {
  deliveryId: string;
  delivered: boolean;
  /** False when retrying cannot help (the line is gone). */
  retryable: boolean;
  httpStatus: number | null;
  retryAfterMs?: number;
  /** For `message` events: the `text` the receiver answered with, to be spoken. */
  replyText?: string;
  /**
   * `attempt_lost`: this attempt number had already been tried, so it was not made again.
   * `attempt_claimed`: another process holds this attempt (a `claim` that lost), so it was not made here.
   */
  error?: 'attempt_lost' | 'attempt_claimed';
  /** The `{text}` reply was handed to the carrier under the stream's `replySpeakId`. */
  replySpoken?: boolean;
  /** For streamed (NDJSON) replies: the chunks already handed to the carrier, in order, with their speak ids. */
  spokenChunks?: Array<{ speakId: string; text: string }>;
}

/** Budgets of a streamed NDJSON reply (spec: 15 s per line, 5 minutes in total). */
export const NDJSON_LINE_TIMEOUT_MS = 15_000;
export const NDJSON_TOTAL_TIMEOUT_MS = 5 * 60_000;

/** A receiver's answer broke a size bound (H3): the request was aborted and the attempt fails with this message. */
class ReplyLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplyLimitError';
  }
}

/** Aborts the request and fails the attempt with `message`. */
function overLimit(controller: AbortController, message: string): never {
  controller.abort();
  throw new ReplyLimitError(message);
}

/** The start of an answer, for the delivery log: kept whatever happens next (RESPONSE_LOG_PREFIX characters at most). */
class AnswerStart {
  text = '';
  add(text: string): void {
    if (this.text.length < RESPONSE_LOG_PREFIX) this.text += text.slice(0, RESPONSE_LOG_PREFIX - this.text.length);
  }
}

/**
 * Reads a whole (non-streamed) answer of at most `limitBytes`; a longer one aborts the request,
 * so a receiver cannot make the worker hold more than the limit.
 */
async function readBounded(
  response: IncomingMessage,
  controller: AbortController,
  limitBytes: number,
  start: AnswerStart,
): Promise<string> {
  const declared = Number(response.headers['content-length']);
  if (declared > limitBytes)
    overLimit(controller, `response body over ${limitBytes} bytes (content-length ${declared}); the request was aborted`);
  const decoder = new TextDecoder();
  let body = '';
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    const text = decoder.decode(chunk, { stream: true });
    start.add(text);
    size += chunk.byteLength;
    if (size > limitBytes) overLimit(controller, `response body over ${limitBytes} bytes; the request was aborted`);
    body += text;
  }
  return body + decoder.decode();
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
  budgets: { lineMs: number; totalMs: number },
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

/** The reply a receiver gives a `message` event: `{text}` (an empty or missing text is silence). */
export function replyTextOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { text?: unknown };
    return typeof parsed.text === 'string' && parsed.text.trim() !== '' ? parsed.text : undefined;
  } catch {
    return undefined;
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

/**
 * One delivery attempt of one event: sign with the line's current secret at attempt time,
 * POST through the egress policy with the event type's timeout, read a bounded answer, and log
 * the attempt as a row whatever happens. `attempt` serves the `attemptDelivery` activity and the
 * raisers' first attempts; `messageTurnAttempt` the call turn's `takeMessageTurn`, which records
 * its event, claims the attempt and settles it in two statements.
 */
export function createDeliveryAttempt({
  db,
  egress,
  secretsKey,
  carrier,
  now,
  ndjsonBudget = { lineMs: NDJSON_LINE_TIMEOUT_MS, totalMs: NDJSON_TOTAL_TIMEOUT_MS },
}: DeliveryAttemptDeps) {
  const lineOf = (lineId: string) => db('lines').where({ id: lineId }).first('status', 'webhook_url', 'status_callback_url');
  const secretOf = (lineId: string) => currentSecret(db, secretsKey(), lineId);

  /**
   * The POST of one attempt: signed with `secret`, through the egress policy, with the event
   * type's budget to answer; a streamed reply is spoken line by line, a `{text}` reply spoken at
   * once with `stream.replySpeakId`. Never throws for the receiver's doing: the failure is `error`.
   */
  async function post(
    event: EventRow,
    attempt: number,
    request: { url: string; secret: string; body: string; deliveryId: string; started: Date },
    stream?: ReplyStream,
  ): Promise<PostResult> {
    const { url, secret, body, deliveryId, started } = request;
    const policy = EVENT_POLICIES[event.event_type as EventType];
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Switchboard-Webhooks/1',
      ...signatureHeaders({ secret, deliveryId, rawBody: body, attempt, now: started }),
    };
    let httpStatus: number | null = null;
    let responseText: string | null = null;
    let error: string | null = null;
    let retryAfterMs: number | undefined;
    let replyText: string | undefined;
    let replySpoken = false;
    const answerStart = new AnswerStart();
    const spokenChunks: Array<{ speakId: string; text: string }> = [];
    // The receiver has the event type's budget to answer (headers and, for JSON, the body).
    const controller = new AbortController();
    const answerTimer = setTimeout(() => controller.abort(), policy.timeoutMs);
    try {
      // Redirects are never followed: a 3xx is an answer, and a failed one.
      const response = await egress.request(url, { method: 'POST', headers, body, signal: controller.signal });
      httpStatus = response.statusCode ?? null;
      // Spec: "A non-200 response ... marks the delivery failed" (204 and other 2xx included).
      const accepted = response.statusCode === 200;
      const streamed = stream && carrier && accepted && /ndjson/i.test(response.headers['content-type'] ?? '');
      if (streamed) {
        // Streamed: each line is spoken as it arrives, under the per-line and total budgets.
        clearTimeout(answerTimer);
        await readNdjson(response, controller, ndjsonBudget, answerStart, async (text) => {
          const speakId = `${stream.speakIdPrefix}-${spokenChunks.length + 1}`;
          await carrier.speak({ carrierCallId: stream.carrierCallId, speakId, text });
          spokenChunks.push({ speakId, text });
        });
      } else {
        const fullText = await readBounded(response, controller, RESPONSE_READ_LIMIT_BYTES, answerStart);
        if (event.event_type === 'message' && accepted) replyText = replyTextOf(fullText);
      }
      if (replyText !== undefined && stream?.replySpeakId && carrier) {
        // Spoken before the bookkeeping below. The receiver did answer, so a carrier refusal
        // does not fail the delivery: the caller falls back to speaking the reply itself.
        try {
          await carrier.speak({ carrierCallId: stream.carrierCallId, speakId: stream.replySpeakId, text: replyText });
          replySpoken = true;
        } catch {
          replySpoken = false;
        }
      }
      retryAfterMs = parseRetryAfter(response.headers['retry-after'] ?? null, now());
      if (!accepted) error = `http_${response.statusCode}`;
    } catch (err) {
      const { name, message } = err as Error;
      error =
        name === 'NdjsonTimeout' || name === 'ReplyLimitError'
          ? message
          : name === 'EgressRefusedError'
            ? `egress_refused: ${message}`
            : name === 'TimeoutError' || name === 'AbortError' || controller.signal.aborted
              ? `timeout after ${policy.timeoutMs} ms`
              : `connection_error: ${message}`;
    } finally {
      clearTimeout(answerTimer);
    }
    // Only the start of the answer is kept (redacted), also when reading it failed part way.
    if (httpStatus !== null) responseText = redactResponseBody(answerStart.text);
    return {
      httpStatus,
      error,
      responseText,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(replyText !== undefined ? { replyText } : {}),
      replySpoken,
      spokenChunks,
    };
  }
  return {
    /**
     * Records a call turn's `message` event and makes its one attempt, at most once, in two
     * statements around the POST (./store.ts): the first records the event, marks the reply's
     * playback deferral, reads the line and its sealed secret and claims attempt 1; the second
     * records the outcome together with the turn's transcript entries (`transcriptOf`, given
     * the outcome; none when the attempt was lost). A re-run of the same turn (a crashed worker)
     * finds attempt 1 claimed, fails it as `attempt_lost` if it never finished, and POSTs nothing:
     * a late answer would be spoken out of turn.
     */
    async messageTurnAttempt(
      event: NewEvent & { id: string },
      stream: ReplyStream,
      turn: { deferral?: TurnDeferral; transcriptOf: (outcome: AttemptOutcome) => { callId: string; addition: TranscriptAddition } },
    ): Promise<AttemptOutcome & { transcriptWritten: boolean }> {
      const row: EventRow = {
        id: event.id,
        workspace_id: event.workspaceId,
        environment: event.environment,
        line_id: event.lineId,
        call_id: event.callId ?? null,
        event_type: event.type,
        payload: event.payload,
      };
      const body = JSON.stringify({ ...row.payload, event: row.event_type, event_id: row.id, line_id: row.line_id });
      const deliveryId = crypto.randomUUID();
      const started = now();
      const claim = await recordMessageAndClaim(db, {
        event,
        deliveryId,
        requestBody: body,
        ...(turn.deferral ? { deferral: turn.deferral } : {}),
      });
      // Nothing to POST (rare: the line released, no URL, no secret): logged as the failed attempt, as `attempt` does.
      const unmade = async (error: string, retryable: boolean) => {
        await db('webhook_deliveries')
          .insert({
            id: deliveryId,
            event_id: row.id,
            workspace_id: row.workspace_id,
            environment: row.environment,
            line_id: row.line_id,
            call_id: row.call_id,
            event_type: row.event_type,
            url: claim.url,
            attempt: 1,
            request_body: body,
            created_at: started,
            status: 'failed',
            error_message: error,
            duration_ms: 0,
            completed_at: started,
          })
          .onConflict(['event_id', 'attempt'])
          .ignore();
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
        await db('webhook_deliveries')
          .where({ event_id: row.id, attempt: 1, status: 'pending' })
          .update({ status: 'failed', error_message: 'attempt_lost', duration_ms: 0, completed_at: started });
        return { deliveryId, delivered: false, retryable: false, httpStatus: null, error: 'attempt_lost', transcriptWritten: false };
      }
      let secret: string;
      try {
        secret = openSecretRow(secretsKey(), claim.secret);
      } catch (err) {
        // Unreadable with this worker's key ring: the claim is given back, so a retry (or a fixed worker) can make the attempt.
        await db('webhook_deliveries').where({ id: deliveryId, status: 'pending' }).del();
        throw err;
      }
      const result = await post(row, 1, { url: claim.url, secret, body, deliveryId, started }, stream);
      const completion = completionOf(result, started, now());
      const outcome = outcomeOf(deliveryId, result);
      const transcript = turn.transcriptOf(outcome);
      try {
        await settleMessageAttempt(db, deliveryId, completion, transcript);
        return { ...outcome, transcriptWritten: true };
      } catch {
        // The entries are in the outcome; the workflow rewrites the transcript with a retried activity.
        await completeAttempt(db, deliveryId, completion);
        return { ...outcome, transcriptWritten: false };
      }
    },
    async attempt(event: EventRow, attempt: number, stream?: ReplyStream, options: { claim?: boolean } = {}): Promise<AttemptOutcome> {
      const line = await lineOf(event.line_id);
      const policy = EVENT_POLICIES[event.event_type as EventType];
      // Where the event goes is decided at attempt time, so a URL changed since it was recorded is used.
      const url = line
        ? await eventDestination(db, { workspaceId: event.workspace_id, environment: event.environment }, line, policy.target)
        : null;
      const body = JSON.stringify({ ...event.payload, event: event.event_type, event_id: event.id, line_id: event.line_id });
      const deliveryId = crypto.randomUUID();
      const started = now();
      const row = {
        id: deliveryId,
        event_id: event.id,
        workspace_id: event.workspace_id,
        environment: event.environment,
        line_id: event.line_id,
        call_id: event.call_id,
        event_type: event.event_type,
        url,
        attempt,
        request_body: body,
        created_at: started,
      };
      const claimed: AttemptOutcome = { deliveryId, delivered: false, retryable: false, httpStatus: null, error: 'attempt_claimed' };
      const fail = async (error: string, retryable: boolean): Promise<AttemptOutcome> => {
        const inserted = await db('webhook_deliveries')
          .insert({ ...row, status: 'failed', error_message: error, duration_ms: 0, completed_at: started })
          .onConflict(['event_id', 'attempt'])
          .ignore()
          .returning('id');
        if (options.claim && inserted.length === 0) return claimed;
        return { deliveryId, delivered: false, retryable, httpStatus: null };
      };
      if (!line || line.status === 'released') return fail('line_released', false);
      if (!url) return fail(policy.target === 'webhook' ? 'missing_webhook_url' : 'missing_status_callback_url', true);
      const secret = await secretOf(event.line_id);
      if (!secret) return fail('missing_webhook_secret', true);

      if (options.claim) {
        // The first attempt of a published event: whoever inserts its row makes it (the raiser
        // right after the commit, or the retry workflow the sweeper starts), so attempt 1 is POSTed once.
        const inserted = await db('webhook_deliveries')
          .insert({ ...row, status: 'pending' })
          .onConflict(['event_id', 'attempt'])
          .ignore()
          .returning('id');
        if (inserted.length === 0) return claimed;
      } else {
        // A retried activity reuses its attempt number: replace the pending row of the lost try.
        await db('webhook_deliveries').where({ event_id: event.id, attempt }).del();
        await db('webhook_deliveries').insert({ ...row, status: 'pending' });
      }
      const result = await post(event, attempt, { url, secret, body, deliveryId, started }, stream);
      await db('webhook_deliveries')
        .where({ id: deliveryId })
        .update(completionOf(result, started, now()));
      return outcomeOf(deliveryId, result);
    },
  };
}

/** What one POST of an attempt came to, before it is logged. */
export interface PostResult {
  httpStatus: number | null;
  error: string | null;
  /** The start of the answer, redacted (null when no answer came). */
  responseText: string | null;
  retryAfterMs?: number;
  replyText?: string;
  replySpoken: boolean;
  spokenChunks: Array<{ speakId: string; text: string }>;
}

/** The attempt row's columns once its POST is over. */
export function completionOf(result: PostResult, started: Date, completedAt = new Date()) {
  return {
    status: result.error === null ? 'success' : 'failed',
    http_status: result.httpStatus,
    error_message: result.error,
    response_body: result.responseText,
    duration_ms: completedAt.getTime() - started.getTime(),
    completed_at: completedAt,
  };
}

/** The attempt's outcome as its callers see it. */
export function outcomeOf(deliveryId: string, result: PostResult): AttemptOutcome {
  return {
    deliveryId,
    delivered: result.error === null,
    retryable: true,
    httpStatus: result.httpStatus,
    ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
    ...(result.replyText !== undefined ? { replyText: result.replyText } : {}),
    ...(result.replySpoken ? { replySpoken: result.replySpoken } : {}),
    ...(result.spokenChunks.length > 0 ? { spokenChunks: result.spokenChunks } : {}),
  };
}

/** Adds a turn's entries to its call's transcript on their own (the turn made no attempt). */
async function transcriptAppendOf(db: Db, callId: string, addition: TranscriptAddition): Promise<void> {
  if ('sequenced' in addition) await appendTranscript(db, callId, addition.sequenced);
  else await appendUnsequencedTranscript(db, callId, addition.unsequenced);
}
