import type { IncomingMessage } from 'node:http';
import type { EgressPolicy } from '../../platform/net/egress';
import { parseRetryAfter, redactResponseBody, RESPONSE_LOG_PREFIX, RESPONSE_READ_LIMIT_BYTES } from './events';

/*
 * The second phase of a delivery attempt (./attempt.ts: prepareAttempt → post → recordOutcome):
 * one POST of a signed request through the egress policy, with the event type's budget to answer
 * and a bounded read of the answer. Never throws for the receiver's doing: the failure is `error`.
 */

/** prepareAttempt's hand-off: a signed request, ready to be POSTed. */
export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The event type's budget to answer (EVENT_POLICIES): headers and, unless streamed, the body. */
  timeoutMs: number;
  /** A `message` event: an accepted answer's `{text}` is the receiver's reply. */
  expectsReply: boolean;
  /** The most read of a whole answer (RESPONSE_READ_LIMIT_BYTES by default); beyond it the attempt fails. */
  readLimitBytes?: number;
  /** An accepted answer is returned whole (`PostResult.body`): a tool's result. */
  keepsBody?: boolean;
}

/** What one POST came to, before it is logged (recordOutcome's input). */
export interface PostResult {
  httpStatus: number | null;
  error: string | null;
  /** The start of the answer, redacted (null when no answer came). */
  responseText: string | null;
  retryAfterMs?: number;
  replyText?: string;
  /** The accepted answer, when the request `keepsBody`. */
  body?: string;
  replySpoken: boolean;
  spokenChunks: Array<{ speakId: string; text: string }>;
}

/**
 * How a caller takes over an accepted answer: the calls area speaks a `message` reply while the
 * call is live (src/domain/calls/messageTurn.ts `speakingReply`). Without one, the answer is read
 * whole, bounded by RESPONSE_READ_LIMIT_BYTES.
 */
export interface ReplyReader {
  /** True when the reader streams an answer of this content type itself (its own budgets then apply). */
  streams(contentType: string): boolean;
  /** Reads a streamed answer; throws `NdjsonTimeout` or `ReplyLimitError` (the attempt's error is the message). */
  readStream(response: IncomingMessage, controller: AbortController, start: AnswerStart): Promise<void>;
  /** Takes a `{text}` reply as soon as it is read; true when it was taken (spoken). */
  takeReply?(text: string): Promise<boolean>;
  /** What the reader handed on so far, in order (kept also when the answer failed part way). */
  readonly chunks: Array<{ speakId: string; text: string }>;
}

/** A receiver's answer broke a size bound (H3): the request was aborted and the attempt fails with this message. */
class ReplyLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplyLimitError';
  }
}

/** Aborts the request and fails the attempt with `message`. */
export function overLimit(controller: AbortController, message: string): never {
  controller.abort();
  throw new ReplyLimitError(message);
}

/** The start of an answer, for the delivery log: kept whatever happens next (RESPONSE_LOG_PREFIX characters at most). */
export class AnswerStart {
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

/** The reply a receiver gives a `message` event: `{text}` (an empty or missing text is silence). */
export function replyTextOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { text?: unknown };
    return typeof parsed.text === 'string' && parsed.text.trim() !== '' ? parsed.text : undefined;
  } catch {
    return undefined;
  }
}

/** The attempt's error message for what was thrown while posting or reading. */
function errorOf(err: unknown, controller: AbortController, timeoutMs: number): string {
  const { name, message } = err as Error;
  if (name === 'NdjsonTimeout' || name === 'ReplyLimitError') return message;
  if (name === 'EgressRefusedError') return `egress_refused: ${message}`;
  if (name === 'TimeoutError' || name === 'AbortError' || controller.signal.aborted) return `timeout after ${timeoutMs} ms`;
  return `connection_error: ${message}`;
}

/**
 * POSTs `request` through the egress policy (redirects are never followed: a 3xx is a failed
 * answer) and reads the answer: streamed by `reply` when it streams it, else whole and bounded.
 * A `{text}` reply is handed to `reply.takeReply` before anything is logged.
 */
export async function post(
  deps: { egress: EgressPolicy; now: () => Date },
  request: OutboundRequest,
  reply?: ReplyReader,
): Promise<PostResult> {
  let httpStatus: number | null = null;
  let error: string | null = null;
  let retryAfterMs: number | undefined;
  let replyText: string | undefined;
  let body: string | undefined;
  let replySpoken = false;
  const answerStart = new AnswerStart();
  const controller = new AbortController();
  const answerTimer = setTimeout(() => controller.abort(), request.timeoutMs);
  try {
    const { url, headers } = request;
    const response = await deps.egress.request(url, { method: 'POST', headers, body: request.body, signal: controller.signal });
    httpStatus = response.statusCode ?? null;
    // Spec: "A non-200 response ... marks the delivery failed" (204 and other 2xx included).
    const accepted = response.statusCode === 200;
    if (reply && accepted && reply.streams(response.headers['content-type'] ?? '')) {
      clearTimeout(answerTimer);
      await reply.readStream(response, controller, answerStart);
    } else {
      const fullText = await readBounded(response, controller, request.readLimitBytes ?? RESPONSE_READ_LIMIT_BYTES, answerStart);
      if (request.expectsReply && accepted) replyText = replyTextOf(fullText);
      if (request.keepsBody && accepted) body = fullText;
    }
    // Taken before the bookkeeping: the receiver did answer, so a refusal to take it does not fail the delivery.
    if (replyText !== undefined && reply?.takeReply) replySpoken = await reply.takeReply(replyText);
    retryAfterMs = parseRetryAfter(response.headers['retry-after'] ?? null, deps.now());
    if (!accepted) error = `http_${response.statusCode}`;
  } catch (err) {
    error = errorOf(err, controller, request.timeoutMs);
  } finally {
    clearTimeout(answerTimer);
  }
  return {
    httpStatus,
    error,
    // Only the start of the answer is kept (redacted), also when reading it failed part way.
    responseText: httpStatus !== null ? redactResponseBody(answerStart.text) : null,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(replyText !== undefined ? { replyText } : {}),
    ...(body !== undefined ? { body } : {}),
    replySpoken,
    spokenChunks: reply ? [...reply.chunks] : [],
  };
}
