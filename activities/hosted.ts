import { Context } from '@temporalio/activity';
import { hostedSpeakIdPrefix } from '../src/domain/calls/rules';
import { callSystemPrompt } from '../src/domain/calls/store';
import { createSpeechChunker } from '../src/domain/calls/speechChunks';
import type { Db } from '../src/platform/db/knex';
import { CarrierRejectedError, type CarrierAdapter } from '../src/adapters/carrier/port';
import type { ConversationTurn, ModelAdapter, ModelToolCall } from '../src/adapters/model/port';
import { offeredFunction, TOOL_LIMITS } from '../src/domain/tools/declarations';
import { callTools } from '../src/domain/tools/store';
import { businessMetrics } from './metrics';

export interface HostedActivityDeps {
  carrier: CarrierAdapter;
  /** Reads the call's system prompt (the workflow does not carry it through every turn). */
  db: Db;
  /** The language model hosted lines talk through (OpenAI-compatible by default). */
  model: ModelAdapter;
}

export interface HostedTurnInput {
  callId: string;
  carrierCallId: string;
  /** Numbers the caller's turns; speak ids are `<callId>:hosted-<turn>-<n>`. */
  turn: number;
  /** The model's round within the turn: 0, then 1, 2... after each round of tool calls (speak ids `hosted-<turn>.<round>-<n>`). */
  round?: number;
  /**
   * The model's instructions. Left out by current workflows: the activity reads the call's own
   * (`calls.system_prompt`, the line's or the conversation call's), so up to 20,000 characters
   * are not copied into the workflow history on every turn.
   */
  systemPrompt?: string;
  /** The conversation so far (the last `context_limit` turns), ending with the caller's utterance. */
  turns: ConversationTurn[];
  /** The line's voice slug (the catalog's), or null for the default voice. */
  voice: string | null;
  /** The language the carrier heard the caller's sentence in (hosted lines detect it per sentence). */
  language?: string;
}

/** The system prompt with the language of the caller's last sentence, so the reply matches it. */
export function withLanguage(systemPrompt: string, language: string | undefined): string {
  if (!language) return systemPrompt;
  return `${systemPrompt}\n\nThe caller's last sentence was in language "${language}"; answer in that language.`;
}

export interface HostedTurnOutcome {
  /** What was handed to the carrier, chunk by chunk, in order. */
  spokenChunks: Array<{ speakId: string; text: string }>;
  /** Why the reply stopped short of the model's end, if it did. */
  failure: 'model_unavailable' | 'model_rejected' | 'call_ended' | null;
  /** When the reply finished (epoch ms). */
  repliedAt: number;
  /** The tools the model called at the end of its reply (at most TOOL_LIMITS.maxCallsPerReply); absent when none. */
  toolCalls?: ModelToolCall[];
}

/**
 * One hosted-mode turn: the model's reply is streamed and each sentence is spoken as soon as it is
 * complete, so the caller hears the first words while the model is still writing. Cancelling the
 * activity (the caller barged in) aborts the model's stream at once; the workflow works out what
 * was heard from the carrier's playback events.
 */
export function createHostedActivities({ carrier, model, db }: HostedActivityDeps) {
  return {
    async takeHostedTurn(input: HostedTurnInput): Promise<HostedTurnOutcome> {
      const context = Context.current();
      const stream = new AbortController();
      const cancelled = context.cancellationSignal;
      const onCancel = () => stream.abort(cancelled.reason);
      cancelled.addEventListener('abort', onCancel, { once: true });
      const chunker = createSpeechChunker();
      const spokenChunks: HostedTurnOutcome['spokenChunks'] = [];
      const speak = async (text: string) => {
        const speakId = `${hostedSpeakIdPrefix(input.callId, input.turn, input.round)}${spokenChunks.length + 1}`;
        await carrier.speak({ carrierCallId: input.carrierCallId, speakId, text, ...(input.voice ? { voice: input.voice } : {}) });
        spokenChunks.push({ speakId, text });
      };
      let toolCalls: ModelToolCall[] = [];
      const finish = (failure: HostedTurnOutcome['failure']): HostedTurnOutcome => {
        businessMetrics.turn('hosted', failure ?? 'replied');
        return { spokenChunks, failure, repliedAt: Date.now(), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
      };
      // Heartbeats carry cancellation (barge-in) to this activity, also while the model thinks.
      const beat = setInterval(() => context.heartbeat({ spoken: spokenChunks.length }), 200);
      try {
        const systemPrompt = input.systemPrompt ?? (await callSystemPrompt(db, input.callId)) ?? '';
        const tools = await callTools(db, input.callId);
        for await (const delta of model.streamReply({
          systemPrompt: withLanguage(systemPrompt, input.language),
          turns: input.turns,
          signal: stream.signal,
          ...(tools.length > 0
            ? {
                tools: tools.map(offeredFunction),
                onToolCalls: (calls: ModelToolCall[]) => void (toolCalls = calls.slice(0, TOOL_LIMITS.maxCallsPerReply)),
              }
            : {}),
        })) {
          for (const chunk of chunker.push(delta)) await speak(chunk);
        }
        for (const chunk of chunker.end()) await speak(chunk);
        return finish(null);
      } catch (err) {
        if (cancelled.aborted) {
          businessMetrics.turn('hosted', 'interrupted');
          throw cancelled.reason;
        }
        const name = (err as { name?: string } | null)?.name;
        if (err instanceof CarrierRejectedError) return finish('call_ended');
        if (name === 'ModelRejectedError') {
          context.log.error('the model refused the request', { call_id: input.callId, error: (err as Error).message });
          return finish('model_rejected');
        }
        if (name === 'ModelUnavailableError') {
          context.log.warn('the model is unavailable', { call_id: input.callId, error: (err as Error).message });
          return finish('model_unavailable');
        }
        throw err;
      } finally {
        clearInterval(beat);
        cancelled.removeEventListener('abort', onCancel);
      }
    },
  };
}

export type HostedActivities = ReturnType<typeof createHostedActivities>;
