import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import {
  appendTranscript,
  claimCall,
  recordCallState,
  setCarrierCallId,
  writeTranscript,
  type CallStateChange,
  type EntryRedaction,
  type SequencedEntry,
} from '../src/domain/calls/store';
import { closeDeferral } from '../src/domain/calls/deferredPlayback';
import { isRecordedForCall, recordComplianceEvent } from '../src/domain/compliance/events';
import type { SecretsKeyRing } from '../src/platform/crypto/secretBox';
import type { Db } from '../src/platform/db/knex';
import { callEventId, callEventOf, callPayload, publishCallEvent as publishEventOfCall } from '../src/domain/calls/events';
import type { EventType } from '../src/domain/webhooks/events';
import { servedRecordingUrl } from '../src/domain/recordings/rules';
import { callRedaction, redactedEventPayload } from '../src/domain/recordings/redactTranscript';
import type { Config } from '../src/platform/config';
import { recordEvent } from '../src/domain/webhooks/record';
import { CarrierRejectedError, type CarrierAdapter, type CarrierRefusal, type TransferCallRequest } from '../src/adapters/carrier/port';
import type { CallFacts } from '../workflows/definitions/calls';
import { FailureTypes } from '../workflows/definitions/failures';
import type { EgressPolicy } from '../src/platform/net/egress';
import { messageTurnAttempt } from '../src/domain/calls/messageTurn';
import { businessMetrics, deliveryOutcome } from './metrics';

/** A recorded `call.playback` report, as the API received it (the workflow's SignalledCallEvent; typed there, to keep layers acyclic). */
export type PlaybackReport = Record<string, unknown>;

export interface CallActivityDeps {
  db: Db;
  carrier: CarrierAdapter;
  /** Where the carrier posts call events for this deployment (`<public base>/carrier/events`). */
  carrierEventsUrl: string;
  /** The worker's Temporal client and task queue: a call event whose first attempt fails starts its retry workflow. */
  temporal: () => Client;
  taskQueue: string;
  /** Signs `message` deliveries (the turn activity delivers them itself). */
  secretsKey: () => SecretsKeyRing;
  /** Guards the turn's connection to the customer's webhook_url. */
  egress: EgressPolicy;
  /** Streamed-reply budgets of the turn's delivery (the spec's unless configured). */
  ndjsonBudget?: { lineMs: number; totalMs: number };
  now: () => Date;
  /** The deployment's configuration: `call_ended`'s `recording_url` is Switchboard's own URL under `publicBaseUrl`. */
  config?: Pick<Config, 'publicBaseUrl'>;
}

/**
 * Runs one carrier command. The carrier's refusal (`CarrierRejectedError`: the call is not
 * answered any more, or unknown, or the carrier will not do it) is final, so it becomes the
 * non-retryable `CarrierRejected` failure the call workflow acts on, naming the provider and its
 * code (its first detail); anything else (5xx, network) stays retryable.
 */
async function carrierCommand<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (err) {
    if (err instanceof CarrierRejectedError)
      throw ApplicationFailure.nonRetryable(err.message, FailureTypes.carrierRejected, ...(err.refusal ? [err.refusal] : []));
    throw err;
  }
}

/**
 * The press's id: the same for every attempt of this activity (its workflow and activity ids), so a retry after a
 * timeout is recognised by a carrier that takes an idempotency key (Telnyx's `command_id`). None outside an activity.
 */
function pressIdOfThisActivity(): { pressId?: string } {
  try {
    const { workflowExecution, activityId } = Context.current().info;
    return workflowExecution ? { pressId: `${workflowExecution.workflowId}:${workflowExecution.runId}:${activityId}` } : {};
  } catch {
    return {};
  }
}

export interface TranscriptEntry {
  role: 'user' | 'assistant';
  text: string;
  /** Epoch milliseconds. */
  timestamp: number;
  /** The entry's place in the call's transcript (calls from before sequenced transcripts have none). */
  seq?: number;
  /** Set here, never by the workflow: what was redacted from `text` before it was written. */
  redactions?: EntryRedaction[];
}

/** One caller turn, as the call workflow hands it to `takeMessageTurn`. */
export interface MessageTurn {
  /** Numbers the turns of the call (the `message` event id is derived from it). */
  turn: number;
  /** What the caller said: the transcript's new entry. */
  said: TranscriptEntry;
  /** The `message`'s context: the last turns of the transcript, ending with `said`. */
  context: TranscriptEntry[];
  /** The language heard; omitted on pinned-language lines. */
  detectedLanguage?: string;
  carrierCallId: string;
  /** NDJSON chunks are spoken as `<speakIdPrefix>-<n>`. */
  speakIdPrefix: string;
  /** A `{text}` reply is spoken under this id. */
  replySpeakId: string;
  /** The transcript `seq` of the reply's entry (`said` carries its own); without it the turn is appended as before. */
  replySeq?: number;
  /**
   * The workflow closes the deferral before it waits on this reply's playback (`stopSpeaking`
   * with the call id): the reply's playback reports may then wait for the call's next signal.
   */
  deferPlayback?: boolean;
}

export interface MessageTurnOutcome {
  delivered: boolean;
  /** A `{text}` reply. */
  replyText?: string;
  /** The `{text}` reply was handed to the carrier (as `replySpeakId`); if not, the workflow speaks it. */
  replySpoken?: boolean;
  /** A streamed (NDJSON) reply: the chunks handed to the carrier, in order. */
  spokenChunks?: Array<{ speakId: string; text: string }>;
  /** When the reply was complete (epoch ms): the assistant entry's timestamp. */
  repliedAt: number;
  /**
   * The turn's entries (`said`, then what was spoken here) were appended to the call record's
   * transcript. When false (the attempt was lost, or the write failed) the workflow rewrites it.
   */
  transcriptWritten: boolean;
}

/** Thin adapters between the call workflow and the carrier, Postgres and the delivery engine. */
export function createCallActivities({
  db,
  carrier,
  carrierEventsUrl,
  temporal,
  taskQueue,
  secretsKey,
  egress,
  ndjsonBudget,
  now,
  config,
}: CallActivityDeps) {
  const turnDeps = { db, egress, carrier, secretsKey, now, ...(ndjsonBudget ? { ndjsonBudget } : {}) };
  return {
    async placeCall(call: CallFacts): Promise<{ carrierCallId: string }> {
      const { carrierCallId } = await carrierCommand(() =>
        carrier.placeCall({
          callId: call.callId,
          from: call.from,
          to: call.to,
          eventsUrl: carrierEventsUrl,
          record: call.record ?? false,
          ...(call.machineDetection ? { machineDetection: true } : {}),
          ...(call.machineDetection && call.detectGreetingEnd ? { detectGreetingEnd: true } : {}),
          ...(call.language ? { language: call.language } : {}),
        }),
      );
      await setCarrierCallId(db, call.callId, carrierCallId);
      return { carrierCallId };
    },

    async answerCall(callId: string, carrierCallId: string, record = false, language?: string): Promise<void> {
      await carrierCommand(() => carrier.answerCall({ carrierCallId, callId, record, ...(language ? { language } : {}) }));
    },

    async rejectCall(carrierCallId: string): Promise<void> {
      await carrierCommand(() => carrier.rejectCall({ carrierCallId }));
    },

    async speak(carrierCallId: string, speakId: string, text: string, voice?: string | null): Promise<void> {
      await carrierCommand(() => carrier.speak({ carrierCallId, speakId, text, ...(voice ? { voice } : {}) }));
    },

    /** Live control: plays DTMF digits; false when the carrier refused, with who refused and why (the call is not answered, or another refusal). */
    async sendDigits(carrierCallId: string, digits: string): Promise<{ pressed: boolean; refusal?: CarrierRefusal }> {
      try {
        await carrier.sendDigits({ carrierCallId, digits, ...pressIdOfThisActivity() });
        return { pressed: true };
      } catch (err) {
        if (err instanceof CarrierRejectedError) return { pressed: false, ...(err.refusal ? { refusal: err.refusal } : {}) };
        throw err;
      }
    },

    /** Live control: a blind transfer (`transferCall`); false when the carrier refused it, with who refused and why (the call is not answered, or the destination is refused). */
    async transferCall(request: TransferCallRequest): Promise<{ accepted: boolean; refusal?: CarrierRefusal }> {
      try {
        await carrier.transferCall(request);
        return { accepted: true };
      } catch (err) {
        if (err instanceof CarrierRejectedError) return { accepted: false, ...(err.refusal ? { refusal: err.refusal } : {}) };
        throw err;
      }
    },

    /** The workflow is about to wait on its current speeches: their playback reports recorded so far (see closeDeferral). */
    async closePlaybackDeferral(callId: string): Promise<PlaybackReport[]> {
      return closeDeferral<PlaybackReport>(db, callId);
    },

    /**
     * Stops the playing speech. With the call id, first closes the call's playback deferral (the
     * workflow is about to wait on its speeches) and returns the reports recorded so far.
     */
    async stopSpeaking(carrierCallId: string, callId?: string): Promise<{ deferred: PlaybackReport[] } | void> {
      const deferred = callId ? await closeDeferral<PlaybackReport>(db, callId) : undefined;
      await carrierCommand(() => carrier.stopSpeaking({ carrierCallId }));
      if (deferred) return { deferred };
    },

    /** The whole transcript (calls from before sequenced transcripts; timestamps as ISO strings on the record). */
    async recordTranscript(callId: string, transcript: Array<{ role: string; text: string; timestamp: number }>): Promise<void> {
      await writeTranscript(db, callId, (await callRedaction(db, callId)).entries(transcript));
    },

    /** Adds entries to the call's transcript, merged by `seq` (a retry adds nothing twice), redacted as the workspace asks. */
    async appendTranscript(callId: string, entries: SequencedEntry[]): Promise<void> {
      await appendTranscript(db, callId, (await callRedaction(db, callId)).entries(entries));
    },

    /** The workflow's first step: takes the call over, unless the API already failed it (see `claimCall`). */
    async claimCall(callId: string): Promise<{ claimed: boolean }> {
      return { claimed: await claimCall(db, callId, now()) };
    },

    /**
     * Records the `message` event of one caller turn (`turn` numbers them). Its id is derived
     * from the call and the turn, so a retried activity records it once. Returns the event id
     * for the single, synchronous delivery attempt the workflow makes next.
     */
    async recordMessageEvent(call: CallFacts, turn: number, payload: Record<string, unknown>): Promise<{ eventId: string }> {
      const eventId = await recordEvent(db, {
        ...callEventOf(call, 'message'),
        id: callEventId(call.callId, 'message', turn),
        payload: callPayload(call, payload),
        now: now(),
      });
      return { eventId };
    },

    /**
     * A whole caller turn in one (local) activity, where it used to take three activity tasks
     * (four for a `{text}` reply) and a workflow task after each: records the `message` event (id derived from the call and the
     * turn, as `recordMessageEvent`), makes its single delivery attempt (10 s to answer, an NDJSON
     * reply spoken chunk by chunk), speaks a `{text}` reply at once, and appends the turn to the
     * transcript. At most one attempt: run again for the same turn (a worker that crashed
     * mid-turn), it finds the attempt's row, marks it `attempt_lost` if it never finished, and
     * POSTs nothing (a late answer would be spoken out of turn).
     */
    async takeMessageTurn(call: CallFacts, turn: MessageTurn): Promise<MessageTurnOutcome> {
      let repliedAt = 0;
      // The transcript is redacted before it is written; the `message` too when the workspace chose so (the agent then hears the markers).
      const redaction = await callRedaction(db, call.callId);
      // Otherwise the agent hears the caller as said, and the event and its delivery are recorded redacted all the same.
      const said = callPayload(call, {
        text: turn.said.text,
        timestamp: turn.said.timestamp,
        context: turn.context,
        ...(turn.detectedLanguage !== undefined ? { detected_language: turn.detectedLanguage } : {}),
      });
      const redacted = redaction.on ? (redactedEventPayload(redaction, 'message', said) as Record<string, unknown>) : undefined;
      const outcome = await messageTurnAttempt(
        turnDeps,
        {
          ...callEventOf(call, 'message'),
          id: callEventId(call.callId, 'message', turn.turn),
          payload: redaction.inWebhooks && redacted ? redacted : said,
          now: now(),
        },
        { carrierCallId: turn.carrierCallId, speakIdPrefix: turn.speakIdPrefix, replySpeakId: turn.replySpeakId },
        {
          // This reply's playback reports need no workflow task: marked before anything is spoken,
          // so even the carrier's quickest report finds the mark.
          ...(turn.deferPlayback
            ? { deferral: { callId: call.callId, speakIds: [turn.replySpeakId], speakPrefix: `${turn.speakIdPrefix}-` } }
            : {}),
          ...(redacted && !redaction.inWebhooks ? { recordedPayload: redacted } : {}),
          // Appended with the attempt's outcome, so the turn carries its own entries rather than the whole transcript.
          transcriptOf: (attempt) => {
            repliedAt = now().getTime();
            const entries: TranscriptEntry[] = [turn.said];
            if (attempt.spokenChunks)
              entries.push({ role: 'assistant', text: attempt.spokenChunks.map((chunk) => chunk.text).join(' '), timestamp: repliedAt });
            else if (attempt.replyText !== undefined && attempt.replySpoken)
              entries.push({ role: 'assistant', text: attempt.replyText, timestamp: repliedAt });
            const sequenced = turn.said.seq !== undefined && turn.replySeq !== undefined;
            const written = redaction.entries(entries);
            return {
              callId: call.callId,
              addition: sequenced
                ? { sequenced: written.map((entry, i) => ({ ...entry, seq: i === 0 ? turn.said.seq! : turn.replySeq! })) }
                : { unsequenced: written },
            };
          },
        },
      );
      businessMetrics.delivery('message', outcome);
      businessMetrics.turn('webhook', deliveryOutcome(outcome) ?? 'lost');
      return {
        delivered: outcome.delivered,
        ...(outcome.replyText !== undefined ? { replyText: outcome.replyText, replySpoken: outcome.replySpoken === true } : {}),
        ...(outcome.spokenChunks ? { spokenChunks: outcome.spokenChunks } : {}),
        repliedAt: repliedAt || now().getTime(),
        transcriptWritten: outcome.transcriptWritten,
      };
    },

    async recordDisclosurePlayed(call: CallFacts, disclosureId: string): Promise<void> {
      // Once per call, whatever retries happen.
      if (await isRecordedForCall(db, call.callId, 'disclosure_played')) return;
      await recordComplianceEvent(db, {
        workspaceId: call.workspaceId,
        environment: call.environment,
        eventType: 'disclosure_played',
        actorKeyId: call.keyId,
        lineId: call.lineId,
        callId: call.callId,
        phoneNumber: call.direction === 'outbound' ? call.to : call.from,
        metadata: { disclosure_id: disclosureId },
        at: now(),
      });
    },

    async hangUpCall(carrierCallId: string): Promise<void> {
      await carrierCommand(() => carrier.hangUp({ carrierCallId }));
    },

    /** Records a state change (see `recordCallState`): an ended call keeps its final state. */
    async recordCallState(callId: string, state: CallStateChange): Promise<void> {
      await recordCallState(db, callId, state);
    },

    /** Publishes a call event, once per (call, event type, key): src/domain/calls/events.ts `publishCallEvent`. */
    async publishCallEvent(
      call: CallFacts,
      type: EventType,
      payload: Record<string, unknown>,
      key: string | number = '',
    ): Promise<{ eventId: string | null }> {
      // The workflow knows the carrier's recording URL; the event names Switchboard's (src/domain/recordings/rules.ts).
      let served =
        typeof payload.recording_url === 'string' && config
          ? { ...payload, recording_url: servedRecordingUrl(config.publicBaseUrl, call.callId) }
          : payload;
      // The agent's reply as the caller heard it, and a hosted call's tool call, redacted when the workspace redacts webhook payloads.
      if (type === 'interrupted' || type === 'tool_called') {
        const redaction = await callRedaction(db, call.callId);
        if (redaction.inWebhooks) served = redactedEventPayload(redaction, type, served) as Record<string, unknown>;
      }
      return publishCallEvent({ db, temporal, taskQueue, now, egress, secretsKey }, call, type, served, key);
    },
  };
}

export type CallActivities = ReturnType<typeof createCallActivities>;

/** Publishes a call event (src/domain/calls/events.ts) and counts its first attempt, if this process made it. */
export async function publishCallEvent(...args: Parameters<typeof publishEventOfCall>): Promise<{ eventId: string | null }> {
  const { eventId, attempt } = await publishEventOfCall(...args);
  if (attempt?.made) businessMetrics.delivery(args[2], attempt.outcome);
  return { eventId };
}
