/**
 * The language model as Switchboard sees it, for hosted lines (the service holds the
 * conversation itself). Workflows never talk to a model directly: they call activities, and
 * activities call this interface, so another provider is a new implementation of it and nothing
 * else changes. The default, `OpenAiCompatibleModel` (`./openAiCompatible.ts`), speaks the
 * OpenAI-compatible chat-completions protocol (OpenAI, vLLM, Ollama, the simulator's model).
 */

/**
 * One turn of the conversation so far: what the caller said (`user`), what we said (`assistant`),
 * or a tool the model called and what it was given back (`tool`).
 */
export type ConversationTurn = { role: 'user' | 'assistant'; text: string } | { role: 'tool'; call: ModelToolCall; result: string };

/** A function the model may call (chat-completions `tools[].function`). */
export interface ModelFunction {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

/** A call the model made: its id, the function's name and the arguments as the model wrote them (JSON text, unchecked). */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ModelReplyRequest {
  /** The line's instructions (persona, purpose, rules); sent first, as the system message. */
  systemPrompt: string;
  /** The conversation so far, oldest first. The last turn is the caller's utterance to answer. */
  turns: ConversationTurn[];
  /**
   * Aborts the request (barge-in: the caller talked over the reply). The model's stream is
   * closed, and the iteration ends by throwing the signal's reason (a `DOMException` named
   * `AbortError` for a plain `abort()`), never a `ModelUnavailableError` or `ModelRejectedError`.
   */
  signal?: AbortSignal;
  /** Functions the model may call instead of, or after, talking. */
  tools?: ModelFunction[];
  /**
   * Told the reply's tool calls, in order, once the model has finished a reply that makes any
   * (before the iteration ends normally). The text yielded before them is the reply's spoken part.
   */
  onToolCalls?: (calls: ModelToolCall[]) => void;
}

export interface ModelAdapter {
  /**
   * Asks the model for the next assistant turn and yields its text as the model streams it:
   * each item is a delta (the text that follows the previous one; never empty), so the reply is
   * their concatenation and the first words can be spoken before the model has finished.
   * The iteration ends normally once the model has finished its reply.
   *
   * Failures are thrown from the iteration, possibly after some deltas were yielded:
   * `ModelUnavailableError` (transient: network, timeout, 5xx, 429, a stream cut short; retrying
   * may succeed) or `ModelRejectedError` (permanent: the model refuses this request, e.g. 4xx
   * for a bad key, an unknown model or an invalid request; retrying will not help).
   */
  streamReply(request: ModelReplyRequest): AsyncIterable<string>;
}

/** A failure that may go away on its own: the model is down, overloaded, slow, or the stream broke. */
export class ModelUnavailableError extends Error {
  constructor(
    message: string,
    /** The HTTP status the model answered, when it answered one. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ModelUnavailableError';
  }
}

/** A refusal the model will repeat however often we ask (bad credentials, unknown model, invalid request). */
export class ModelRejectedError extends Error {
  constructor(
    message: string,
    /** The HTTP status the model answered. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ModelRejectedError';
  }
}
