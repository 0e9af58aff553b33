import OpenAI, { APIConnectionTimeoutError, APIError } from 'openai';
import {
  ModelRejectedError,
  ModelUnavailableError,
  type ConversationTurn,
  type ModelAdapter,
  type ModelReplyRequest,
  type ModelToolCall,
} from './port';

/** How long the model may stay silent (before its first byte, or between two stream chunks) by default. */
export const DEFAULT_MODEL_TIMEOUT_MS = 30_000;
/**
 * A phone reply is a few sentences: `max_tokens` of each request, and the most characters of one
 * reply (the stream is closed there), so no system prompt can make a turn run up the operator's
 * model bill. About 2000 characters is two minutes of speech.
 */
export const DEFAULT_MODEL_MAX_TOKENS = 512;
export const DEFAULT_MODEL_MAX_REPLY_CHARS = 2_000;
/** The most characters of one tool call's arguments read from the stream (the rest is dropped, and the call fails its JSON parse). */
const MAX_TOOL_ARGUMENT_CHARS = 64 * 1024;

export interface OpenAiCompatibleModelOptions {
  /** The API's base URL, up to and including the version (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` (servers without authentication ignore it). */
  apiKey: string;
  /** The `model` of every request. */
  model: string;
  /**
   * How long the model may stay silent: until it starts answering, and then between two stream
   * chunks. Past it the request is abandoned with `ModelUnavailableError`. Default 30 s.
   */
  timeoutMs?: number;
  /** `max_tokens` of each request. Default {@link DEFAULT_MODEL_MAX_TOKENS}. */
  maxTokens?: number;
  /** The reply is cut at this many characters and the stream closed. Default {@link DEFAULT_MODEL_MAX_REPLY_CHARS}. */
  maxReplyChars?: number;
}

/**
 * The default model: any server speaking the OpenAI-compatible chat-completions protocol with
 * streaming (OpenAI, vLLM, Ollama, the simulator's `/v1/chat/completions`), through the `openai`
 * package. The system prompt becomes the `system` message, then each turn a `user` or
 * `assistant` message, oldest first.
 *
 * The SDK's own retries are off: a failure is reported at once as `ModelUnavailableError` or
 * `ModelRejectedError`, and the caller (an activity, under Temporal's retry policy) decides,
 * since a caller on the line should not wait out several silent backoffs.
 */
export class OpenAiCompatibleModel implements ModelAdapter {
  private readonly client: OpenAI;
  private readonly model: string;
  private readonly timeoutMs: number;
  private readonly maxTokens: number;
  private readonly maxReplyChars: number;

  constructor(options: OpenAiCompatibleModelOptions) {
    this.model = options.model;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
    this.maxTokens = options.maxTokens ?? DEFAULT_MODEL_MAX_TOKENS;
    this.maxReplyChars = options.maxReplyChars ?? DEFAULT_MODEL_MAX_REPLY_CHARS;
    this.client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey, timeout: this.timeoutMs, maxRetries: 0 });
  }

  async *streamReply(request: ModelReplyRequest): AsyncIterable<string> {
    const { signal } = request;
    signal?.throwIfAborted();
    const messages: OpenAI.ChatCompletionMessageParam[] = [];
    if (request.systemPrompt.trim() !== '') messages.push({ role: 'system', content: request.systemPrompt });
    for (const turn of request.turns) messages.push(...messagesOf(turn));
    const tools = request.tools?.length ? { tools: request.tools.map((fn) => ({ type: 'function' as const, function: fn })) } : {};

    // One controller for the whole request: the caller's signal and the silence timer both abort it.
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const startSilenceTimer = () => {
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.timeoutMs);
    };
    const failure = (err: unknown): unknown => {
      if (signal?.aborted) return signal.reason;
      if (timedOut || err instanceof APIConnectionTimeoutError)
        return new ModelUnavailableError(`the model was silent for ${this.timeoutMs} ms`, undefined, { cause: err });
      if (err instanceof APIError && err.status !== undefined) {
        const status = err.status;
        const detail = `the model answered ${status}: ${err.message}`.slice(0, 300);
        const transient = status >= 500 || status === 408 || status === 409 || status === 429 || status < 400;
        return transient
          ? new ModelUnavailableError(detail, status, { cause: err })
          : new ModelRejectedError(detail, status, { cause: err });
      }
      const message = err instanceof Error ? err.message : String(err);
      return new ModelUnavailableError(`the model request failed: ${message}`.slice(0, 300), undefined, { cause: err });
    };

    let complete = false;
    try {
      startSilenceTimer();
      let stream: AsyncIterable<OpenAI.ChatCompletionChunk>;
      try {
        stream = await this.client.chat.completions.create(
          { model: this.model, messages, stream: true, max_tokens: this.maxTokens, ...tools },
          { signal: controller.signal },
        );
      } catch (err) {
        throw failure(err);
      }
      let finished = false;
      let replyChars = 0;
      const toolCalls = new ToolCallAssembly();
      try {
        for await (const chunk of stream) {
          clearTimeout(timer);
          const choice = chunk.choices[0];
          if (choice?.finish_reason) finished = true;
          toolCalls.add(choice?.delta?.tool_calls);
          const text = choice?.delta?.content;
          if (typeof text === 'string' && text !== '') {
            const allowed = text.slice(0, this.maxReplyChars - replyChars);
            replyChars += allowed.length;
            if (allowed !== '') yield allowed;
            // The per-turn limit: the reply ends here, as if the model had finished it.
            if (replyChars >= this.maxReplyChars) {
              finished = true;
              break;
            }
          }
          // The consumer's pace is not the model's silence: the timer runs only while we wait for the model.
          startSilenceTimer();
        }
      } catch (err) {
        throw failure(err);
      }
      // An abort ends the SDK's stream quietly: tell an aborted or timed-out stream from a finished one.
      if (signal?.aborted || timedOut) throw failure(undefined);
      if (!finished) throw new ModelUnavailableError('the model stream ended before the reply was finished');
      const calls = toolCalls.calls();
      if (calls.length > 0) request.onToolCalls?.(calls);
      // Cut at the character limit: close the request so the model stops generating (and billing).
      if (replyChars >= this.maxReplyChars) controller.abort();
      complete = true;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (!complete) controller.abort();
    }
  }
}

/** The chat-completions messages of one turn: a tool turn is the assistant's call and the tool's answer. */
function messagesOf(turn: ConversationTurn): OpenAI.ChatCompletionMessageParam[] {
  if (turn.role !== 'tool') return [{ role: turn.role, content: turn.text }];
  const { id, name, arguments: args } = turn.call;
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
    { role: 'tool', tool_call_id: id, content: turn.result },
  ];
}

/** A streamed reply's tool calls, assembled from their deltas by `index` (id and name come first, arguments in pieces). */
class ToolCallAssembly {
  private readonly byIndex = new Map<number, ModelToolCall>();

  add(deltas: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] | undefined): void {
    for (const delta of deltas ?? []) {
      const call = this.byIndex.get(delta.index) ?? { id: '', name: '', arguments: '' };
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.name += delta.function.name;
      if (delta.function?.arguments && call.arguments.length < MAX_TOOL_ARGUMENT_CHARS)
        call.arguments += delta.function.arguments.slice(0, MAX_TOOL_ARGUMENT_CHARS - call.arguments.length);
      this.byIndex.set(delta.index, call);
    }
  }

  /** The calls in order; one without an id is given one, so its answer can be matched to it. */
  calls(): ModelToolCall[] {
    return [...this.byIndex.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, call]) => call.name !== '')
      .map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  }
}
