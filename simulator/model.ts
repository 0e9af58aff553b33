import crypto from 'node:crypto';
import type http from 'node:http';
import type Koa from 'koa';
import type Router from '@koa/router';
import getRawBody from 'raw-body';
import { badRequest, readJson } from './http';

/**
 * The model side of the simulator: an OpenAI-compatible chat-completions endpoint
 * (`POST /v1/chat/completions`, streaming or not) that hosted lines talk to through
 * `OpenAiCompatibleModel`, exactly as they would talk to OpenAI, vLLM or Ollama. Replies are
 * deterministic: an echo of the caller's last words by default, or replies scripted through the
 * control API (`/control/model/...`), which also shows every request Switchboard sent and
 * injects faults. In memory, like the rest of the simulator. See docs/simulator.md.
 */

/** What the default reply appends to the echo of the caller's words. */
export const DEFAULT_REPLY_SUFFIX = ' How can I help further?';
/** The longest scripted reply. */
const MAX_REPLY = 10_000;
/** The longest `token_delay_ms`. */
const MAX_TOKEN_DELAY_MS = 60_000;
/** A whole conversation (system prompt and every turn) is sent on each request: allow long calls. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** `error`: every completion request answers 500 (transient); `reject`: 400 (permanent). */
export type ModelFaultMode = 'normal' | 'error' | 'reject';
const FAULT_MODES: readonly ModelFaultMode[] = ['normal', 'error', 'reject'];

export interface ModelFault {
  mode: ModelFaultMode;
  /** How many more completion requests the fault applies to; null = until changed or reset. */
  remaining: number | null;
}

/** One `POST /v1/chat/completions` request, as received (any request with a JSON object body). */
export interface ModelRequestRecord {
  model: unknown;
  messages: unknown;
  /** The request's `tools` (the functions the model was offered), null when absent. */
  tools: unknown;
  stream: boolean;
  /** The request's `max_tokens` (null when absent): the reply stops after that many words. */
  max_tokens: number | null;
  authorization_present: boolean;
  /** The reply chosen for it; null when it was refused (401, 400, or a fault). */
  reply: string | null;
  /** Streaming: how many content chunks (words) were written before the stream ended. */
  tokens_sent: number;
  /** Whether the client hung up before the whole reply was written (barge-in). */
  disconnected: boolean;
}

/** A function call a scripted reply makes instead of (or before) speaking, in chat-completions terms. */
export interface ScriptedToolCall {
  name: string;
  /** Sent to the client as the JSON text of `function.arguments`. */
  arguments: Record<string, unknown>;
}

export interface ScriptedReply {
  /** What the model says; empty when the reply only calls tools. */
  reply: string;
  /** Tool calls the reply makes (finish_reason `tool_calls`), or null for a spoken reply. */
  tool_calls: ScriptedToolCall[] | null;
  /** Used only when the last user message contains it (case-insensitive); null matches anything. */
  match: string | null;
  /** Overrides the default delay between streamed words for this reply. */
  token_delay_ms: number | null;
}

/** What the simulator answers one request with. */
export interface ModelReply {
  text: string;
  toolCalls: ScriptedToolCall[] | null;
  tokenDelayMs: number;
}

/** The reply's tool calls in chat-completions form, with ids unique to this response. */
function wireToolCalls(toolCalls: ScriptedToolCall[]) {
  return toolCalls.map((call) => ({
    id: `call_${crypto.randomBytes(8).toString('hex')}`,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
}

const NORMAL: ModelFault = { mode: 'normal', remaining: null };

export class ModelSimulatorState {
  private readonly requests: ModelRequestRecord[] = [];
  private scripted: ScriptedReply[] = [];
  /** Delay between streamed words when the reply sets none. */
  tokenDelayMs = 0;
  fault: ModelFault = { ...NORMAL };
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Aborted by reset and stop: in-flight streams end at once. */
  private abort = new AbortController();

  requestLog(): ModelRequestRecord[] {
    return this.requests.map((r) => ({ ...r }));
  }

  record(request: ModelRequestRecord): ModelRequestRecord {
    this.requests.push(request);
    return request;
  }

  queueReply(reply: ScriptedReply): number {
    this.scripted.push({ ...reply });
    return this.scripted.length;
  }

  queuedReplies(): ScriptedReply[] {
    return this.scripted.map((r) => ({ ...r }));
  }

  /**
   * The reply to a conversation whose last user message is `lastUser`: the first queued reply
   * that matches it (used up), else the echo.
   */
  takeReply(lastUser: string | null): ModelReply {
    const needle = (lastUser ?? '').toLowerCase();
    const index = this.scripted.findIndex((r) => r.match === null || needle.includes(r.match.toLowerCase()));
    if (index !== -1) {
      const [scripted] = this.scripted.splice(index, 1);
      return {
        text: scripted.reply,
        toolCalls: scripted.tool_calls,
        tokenDelayMs: scripted.token_delay_ms ?? this.tokenDelayMs,
      };
    }
    return { text: defaultReply(lastUser), toolCalls: null, tokenDelayMs: this.tokenDelayMs };
  }

  setFault(mode: ModelFaultMode, count: number | null): ModelFault {
    this.fault = mode === 'normal' ? { ...NORMAL } : { mode, remaining: count };
    return { ...this.fault };
  }

  /** The fault to apply to this request, if any; a counted fault reverts to normal once used up. */
  takeFault(): ModelFaultMode | null {
    const fault = this.fault;
    if (fault.mode === 'normal') return null;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.fault = { ...NORMAL };
    }
    return fault.mode;
  }

  /** Resolves after `ms`, or early when `signal` or reset/stop aborts; true if it ran its course. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    const stopped = this.abort.signal;
    if (signal.aborted || stopped.aborted) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (elapsed: boolean) => {
        clearTimeout(timer);
        this.timers.delete(timer);
        signal.removeEventListener('abort', cut);
        stopped.removeEventListener('abort', cut);
        resolve(elapsed);
      };
      const cut = () => done(false);
      const timer = setTimeout(() => done(true), ms);
      this.timers.add(timer);
      signal.addEventListener('abort', cut, { once: true });
      stopped.addEventListener('abort', cut, { once: true });
    });
  }

  /** Aborted when reset or stop ends in-flight streams (a stream keeps the one current when it started). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Forgets requests, queued replies, the default delay and the fault; ends in-flight streams. */
  reset(): void {
    this.stop();
    this.abort = new AbortController();
    this.requests.length = 0;
    this.scripted = [];
    this.tokenDelayMs = 0;
    this.fault = { ...NORMAL };
  }

  /** Ends in-flight streams and clears every timer (the server is closing). */
  stop(): void {
    this.abort.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

/** `You said: <words>. How can I help further?`, the caller's words without trailing sentence punctuation. */
export function defaultReply(lastUser: string | null): string {
  const said = (lastUser ?? '').trim().replace(/[\s.!?…。！？؟]+$/u, '');
  if (said === '') return `How can I help?`;
  return `You said: ${said}.${DEFAULT_REPLY_SUFFIX}`;
}

/** The reply streamed one word at a time, each with its trailing whitespace; the pieces join to `text`. */
export function replyTokens(text: string): string[] {
  return text.match(/\s*\S+\s*/gu) ?? [];
}

/** A message's text: a string, or the text parts of a content array. */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return content
    .map((part) =>
      typeof part === 'object' &&
      part !== null &&
      (part as { type?: unknown }).type === 'text' &&
      typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join('');
}

/** Why `messages` is not a valid chat-completions message list, or null. */
function invalidMessages(messages: unknown): string | null {
  if (!Array.isArray(messages) || messages.length === 0) return 'messages must be a non-empty array';
  for (const [index, message] of messages.entries()) {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return `messages[${index}] must be an object`;
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (typeof role !== 'string' || !ROLES.has(role)) return `messages[${index}].role must be one of ${[...ROLES].join(', ')}`;
    if (content !== null && contentText(content) === null)
      return `messages[${index}].content must be a string or an array of content parts`;
    if (content === null && role !== 'assistant') return `messages[${index}].content is required`;
  }
  return null;
}

function lastUserMessage(messages: Array<{ role: string; content: unknown }>): string | null {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    if (messages[i].role === 'user') return contentText(messages[i].content);
  }
  return null;
}

/** An error in OpenAI's shape, which OpenAI-compatible clients (the `openai` package among them) read. */
function apiError(ctx: Koa.Context, status: number, message: string, type: string, code: string | null = null): void {
  ctx.status = status;
  ctx.body = { error: { message, type, param: null, code } };
}

const MAX_TOOL_CALLS = 8;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/u;

/** The control API's `tool_calls` as scripted calls, null when absent, or why they are not valid. */
function scriptedToolCalls(value: unknown): ScriptedToolCall[] | null | string {
  if (value === undefined || value === null) return null;
  const problem = `tool_calls must be an array of 1 to ${MAX_TOOL_CALLS} {name, arguments} objects (name: letters, digits, _ or -, at most 64; arguments: an object)`;
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_TOOL_CALLS) return problem;
  const calls: ScriptedToolCall[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return problem;
    const { name, arguments: args } = item as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) return problem;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return problem;
    calls.push({ name, arguments: (args as Record<string, unknown> | undefined) ?? {} });
  }
  return calls;
}

function isDelay(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_TOKEN_DELAY_MS;
}

/**
 * Writes the reply as server-sent events, one `chat.completion.chunk` per word, until done, the
 * client hangs up, or reset/stop ends it (then the connection is dropped mid-stream).
 */
async function streamReply(
  ctx: Koa.Context,
  state: ModelSimulatorState,
  record: ModelRequestRecord,
  reply: ModelReply,
  model: string,
): Promise<void> {
  const capping = capped(reply.text, record.max_tokens);
  const tokens = capping.tokens;
  const finishReason = reply.toolCalls === null ? capping.finishReason : 'tool_calls';
  const res: http.ServerResponse = ctx.res;
  const stopped = state.signal;
  const hangUp = new AbortController();
  const onClose = () => {
    if (!res.writableEnded) {
      record.disconnected = true;
      hangUp.abort();
    }
  };
  res.once('close', onClose);
  ctx.respond = false;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.flushHeaders();

  const id = `chatcmpl-${crypto.randomBytes(12).toString('hex')}`;
  const created = Math.floor(Date.now() / 1000);
  const open = () => !hangUp.signal.aborted && !stopped.aborted && !res.destroyed && !res.writableEnded;
  const send = (delta: Record<string, unknown>, finishReason: string | null) => {
    const chunk = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  };

  for (const [index, token] of tokens.entries()) {
    if (index > 0 && !(await state.sleep(reply.tokenDelayMs, hangUp.signal))) break;
    if (!open()) break;
    send(index === 0 ? { role: 'assistant', content: token } : { content: token }, null);
    record.tokens_sent += 1;
  }
  if (reply.toolCalls !== null && open()) {
    // Each call in one chunk (id, name and the whole arguments text), as OpenAI's first chunk of a call carries them.
    for (const [index, call] of wireToolCalls(reply.toolCalls).entries()) {
      send({ ...(tokens.length === 0 && index === 0 ? { role: 'assistant', content: null } : {}), tool_calls: [{ index, ...call }] }, null);
    }
  }
  if (open()) {
    send({}, finishReason);
    res.end('data: [DONE]\n\n');
  } else if (!res.destroyed) {
    // Reset or stop cut the stream short: drop the connection, as a crashing model server would.
    res.destroy();
  }
  res.off('close', onClose);
}

/** The reply's words, at most `maxTokens` of them (one word is one token here), and why it ends. */
function capped(text: string, maxTokens: number | null): { tokens: string[]; finishReason: 'stop' | 'length' } {
  const tokens = replyTokens(text);
  if (maxTokens === null || tokens.length <= maxTokens) return { tokens, finishReason: 'stop' };
  return { tokens: tokens.slice(0, maxTokens), finishReason: 'length' };
}

/** The OpenAI-compatible endpoint (`/v1/chat/completions`) and its control API (`/control/model/...`). */
export function modelRoutes(router: Router, state: ModelSimulatorState): void {
  router.post('/v1/chat/completions', async (ctx) => {
    let body: Record<string, unknown>;
    try {
      const raw = await getRawBody(ctx.req, { limit: MAX_REQUEST_BYTES });
      const parsed: unknown = JSON.parse(raw.toString('utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return apiError(ctx, 400, 'The body must be a JSON object.', 'invalid_request_error');
      body = parsed as Record<string, unknown>;
    } catch (err) {
      if ((err as { type?: unknown }).type === 'entity.too.large')
        return apiError(ctx, 413, 'The request is too large.', 'invalid_request_error');
      return apiError(ctx, 400, 'The body is not valid JSON.', 'invalid_request_error');
    }

    const authorization = ctx.get('authorization');
    const record = state.record({
      model: body.model ?? null,
      messages: body.messages ?? null,
      tools: body.tools ?? null,
      stream: body.stream === true,
      max_tokens: typeof body.max_tokens === 'number' ? body.max_tokens : null,
      authorization_present: authorization !== '',
      reply: null,
      tokens_sent: 0,
      disconnected: false,
    });
    if (!/^Bearer\s+\S/iu.test(authorization))
      return apiError(ctx, 401, 'Missing bearer authentication in the Authorization header.', 'invalid_request_error', 'invalid_api_key');

    const { model, messages, stream } = body;
    if (typeof model !== 'string' || model.trim() === '')
      return apiError(ctx, 400, 'model must be a non-empty string', 'invalid_request_error', 'invalid_value');
    const invalid = invalidMessages(messages);
    if (invalid !== null) return apiError(ctx, 400, invalid, 'invalid_request_error', 'invalid_value');
    if (stream !== undefined && stream !== null && typeof stream !== 'boolean')
      return apiError(ctx, 400, 'stream must be a boolean', 'invalid_request_error', 'invalid_type');
    const maxTokens = body.max_tokens;
    if (maxTokens !== undefined && maxTokens !== null && !(Number.isSafeInteger(maxTokens) && (maxTokens as number) >= 1)) {
      return apiError(ctx, 400, 'max_tokens must be a positive integer', 'invalid_request_error', 'invalid_value');
    }

    const fault = state.takeFault();
    if (fault === 'error')
      return apiError(ctx, 500, 'The model server had an error while processing the request (simulated).', 'server_error');
    if (fault === 'reject')
      return apiError(ctx, 400, 'The model refused the request (simulated).', 'invalid_request_error', 'model_rejected');

    const reply = state.takeReply(lastUserMessage(messages as Array<{ role: string; content: unknown }>));
    record.reply = reply.text;
    if (stream === true) return streamReply(ctx, state, record, reply, model);

    // Not streamed: answer once the whole reply would have been generated.
    const capping = capped(reply.text, record.max_tokens);
    const tokens = capping.tokens;
    const finishReason = reply.toolCalls === null ? capping.finishReason : 'tool_calls';
    const hangUp = new AbortController();
    const onClose = () => {
      if (!ctx.res.writableEnded) {
        record.disconnected = true;
        hangUp.abort();
      }
    };
    ctx.res.once('close', onClose);
    const generated = await state.sleep(reply.tokenDelayMs * Math.max(0, tokens.length - 1), hangUp.signal);
    ctx.res.off('close', onClose);
    if (!generated) {
      if (!record.disconnected) apiError(ctx, 503, 'The model server was reset (simulated).', 'server_error');
      return;
    }
    const completionTokens = tokens.length;
    const promptTokens = (messages as Array<{ content: unknown }>).reduce(
      (sum, m) => sum + replyTokens(contentText(m.content) ?? '').length,
      0,
    );
    ctx.body = {
      id: `chatcmpl-${crypto.randomBytes(12).toString('hex')}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      system_fingerprint: null,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.toolCalls !== null && tokens.length === 0 ? null : tokens.join(''),
            refusal: null,
            ...(reply.toolCalls === null ? {} : { tool_calls: wireToolCalls(reply.toolCalls) }),
          },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    };
  });

  // Control API: what tests and the demo call to script the model.
  router.post('/control/model/replies', async (ctx) => {
    const { reply, match, token_delay_ms: tokenDelayMs, tool_calls: toolCalls } = await readJson(ctx);
    const calls = scriptedToolCalls(toolCalls);
    if (typeof calls === 'string') return badRequest(ctx, calls);
    // A reply that only calls tools may leave `reply` out.
    const toolsOnly = calls !== null && (reply === undefined || reply === null || reply === '');
    if (!toolsOnly && (typeof reply !== 'string' || reply.trim() === '' || reply.length > MAX_REPLY))
      return badRequest(ctx, `reply must be 1 to ${MAX_REPLY} characters, not blank`);
    if (match !== undefined && match !== null && (typeof match !== 'string' || match === ''))
      return badRequest(ctx, 'match must be a non-empty string');
    if (tokenDelayMs !== undefined && tokenDelayMs !== null && !isDelay(tokenDelayMs))
      return badRequest(ctx, `token_delay_ms must be an integer from 0 to ${MAX_TOKEN_DELAY_MS}`);
    const scripted: ScriptedReply = {
      reply: typeof reply === 'string' ? reply : '',
      tool_calls: calls,
      match: (match as string | undefined) ?? null,
      token_delay_ms: (tokenDelayMs as number | undefined) ?? null,
    };
    const queued = state.queueReply(scripted);
    ctx.status = 201;
    ctx.body = { ...scripted, queued };
  });
  router.get('/control/model/replies', async (ctx) => {
    ctx.body = { replies: state.queuedReplies() };
  });
  router.get('/control/model/settings', async (ctx) => {
    ctx.body = { token_delay_ms: state.tokenDelayMs };
  });
  router.post('/control/model/settings', async (ctx) => {
    const { token_delay_ms: tokenDelayMs } = await readJson(ctx);
    if (!isDelay(tokenDelayMs)) return badRequest(ctx, `token_delay_ms must be an integer from 0 to ${MAX_TOKEN_DELAY_MS}`);
    state.tokenDelayMs = tokenDelayMs;
    ctx.body = { token_delay_ms: state.tokenDelayMs };
  });
  router.get('/control/model/requests', async (ctx) => {
    ctx.body = { requests: state.requestLog() };
  });
  router.post('/control/model/faults', async (ctx) => {
    const { mode, count } = await readJson(ctx);
    if (!FAULT_MODES.includes(mode as ModelFaultMode)) return badRequest(ctx, `mode must be one of ${FAULT_MODES.join(', ')}`);
    if (count !== undefined && count !== null && !(typeof count === 'number' && Number.isSafeInteger(count) && count > 0))
      return badRequest(ctx, 'count must be a positive integer');
    const fault = state.setFault(mode as ModelFaultMode, (count as number | undefined) ?? null);
    ctx.body = { mode: fault.mode, remaining: fault.remaining };
  });
  router.post('/control/model/reset', async (ctx) => {
    state.reset();
    ctx.body = { reset: true };
  });
}
