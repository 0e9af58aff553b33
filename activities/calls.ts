import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { recordComplianceEvent } from '../src/compliance/events';
import type { Db } from '../src/db/knex';
import { EVENT_POLICIES, type EventType } from '../src/webhooks/events';
import { startDelivery } from '../src/webhooks/publish';
import type { CarrierAdapter } from './carrier/adapter';

export interface CallActivityDeps {
  db: Db;
  carrier: CarrierAdapter;
  /** Where the carrier posts call events for this deployment (`<public base>/carrier/events`). */
  carrierEventsUrl: string;
  temporal?: () => Client;
  taskQueue?: string;
  now: () => Date;
}

/** A stable UUID for one event of one call, so a retried activity records it once. */
function callEventId(callId: string, type: string, key: string | number): string {
  const digest = crypto.createHash('sha256').update(`${callId}:${type}:${key}`).digest('hex');
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-5${digest.slice(13, 16)}-a${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
}

export interface CallFacts {
  callId: string;
  workspaceId: string;
  environment: 'test' | 'live';
  lineId: string;
  keyId: string | null;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
  /** The line records its calls (`recording_enabled`). */
  record?: boolean;
}

/** Thin adapters between the call workflow and the carrier, Postgres and the delivery engine. */
export function createCallActivities({ db, carrier, carrierEventsUrl, temporal, taskQueue, now }: CallActivityDeps) {
  return {
    async placeCall(call: CallFacts): Promise<{ carrierCallId: string }> {
      const { carrierCallId } = await carrier.placeCall({ callId: call.callId, from: call.from, to: call.to, eventsUrl: carrierEventsUrl, record: call.record ?? false });
      await db('calls').where({ id: call.callId }).update({ carrier_call_id: carrierCallId });
      return { carrierCallId };
    },

    async answerCall(callId: string, carrierCallId: string, record = false): Promise<void> {
      await carrier.answerCall({ carrierCallId, callId, record });
    },

    async rejectCall(carrierCallId: string): Promise<void> {
      await carrier.rejectCall({ carrierCallId });
    },

    async speak(carrierCallId: string, speakId: string, text: string): Promise<void> {
      await carrier.speak({ carrierCallId, speakId, text });
    },

    async stopSpeaking(carrierCallId: string): Promise<void> {
      await carrier.stopSpeaking({ carrierCallId });
    },

    /** The whole transcript, written as it grows (timestamps as ISO strings on the record). */
    async recordTranscript(callId: string, transcript: Array<{ role: string; text: string; timestamp: number }>): Promise<void> {
      await db('calls')
        .where({ id: callId })
        .update({ transcript: JSON.stringify(transcript.map((t) => ({ role: t.role, text: t.text, timestamp: new Date(t.timestamp).toISOString() }))) });
    },

    /**
     * Records the `message` event of one caller turn (`turn` numbers them). Its id is derived
     * from the call and the turn, so a retried activity records it once. Returns the event id
     * for the single, synchronous delivery attempt the workflow makes next.
     */
    async recordMessageEvent(call: CallFacts, turn: number, payload: Record<string, unknown>): Promise<{ eventId: string }> {
      const eventId = callEventId(call.callId, 'message', turn);
      await db('webhook_events')
        .insert({
          id: eventId,
          workspace_id: call.workspaceId,
          environment: call.environment,
          line_id: call.lineId,
          call_id: call.callId,
          event_type: 'message',
          target: 'webhook',
          payload: { call_id: call.callId, ...payload },
          actor_key_id: call.keyId,
          created_at: now(),
        })
        .onConflict('id')
        .ignore();
      return { eventId };
    },

    async recordDisclosurePlayed(call: CallFacts, disclosureId: string): Promise<void> {
      // Once per call, whatever retries happen.
      if (await db('compliance_events').where({ call_id: call.callId, event_type: 'disclosure_played' }).first('id')) return;
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
      await carrier.hangUp({ carrierCallId });
    },

    /** Records a state change; timestamps arrive as epoch ms from the workflow. */
    async recordCallState(
      callId: string,
      state: { status: string; startedAt?: number; endedAt?: number; durationSec?: number; chargeCents?: number; endCause?: string; recordingUrl?: string },
    ): Promise<void> {
      await db('calls')
        .where({ id: callId })
        .update({
          status: state.status,
          ...(state.startedAt !== undefined ? { started_at: new Date(state.startedAt) } : {}),
          ...(state.endedAt !== undefined ? { ended_at: new Date(state.endedAt) } : {}),
          ...(state.durationSec !== undefined ? { duration_sec: state.durationSec } : {}),
          ...(state.chargeCents !== undefined ? { charge_cents: state.chargeCents } : {}),
          ...(state.endCause !== undefined ? { end_cause: state.endCause } : {}),
          ...(state.recordingUrl !== undefined ? { recording_url: state.recordingUrl } : {}),
        });
    },

    /**
     * Publishes a call event through the delivery engine, once per (call, event type, key): the
     * event id is derived from them, so a retried activity does not publish twice (`key`
     * distinguishes repeatable events such as `interrupted`). Events whose destination the line
     * does not have (no status_callback_url) are skipped.
     */
    async publishCallEvent(call: CallFacts, type: EventType, payload: Record<string, unknown>, key: string | number = ''): Promise<{ eventId: string | null }> {
      if (!temporal || !taskQueue) throw new Error('this worker cannot publish events (no Temporal client)');
      const policy = EVENT_POLICIES[type];
      const line = await db('lines').where({ id: call.lineId }).first('status_callback_url');
      if (policy.target === 'status_callback' && !line?.status_callback_url) return { eventId: null };
      const eventId = callEventId(call.callId, type, key);
      await db('webhook_events')
        .insert({
          id: eventId,
          workspace_id: call.workspaceId,
          environment: call.environment,
          line_id: call.lineId,
          call_id: call.callId,
          event_type: type,
          target: policy.target,
          payload: { call_id: call.callId, timestamp: now().getTime(), ...payload },
          actor_key_id: call.keyId,
          created_at: now(),
        })
        .onConflict('id')
        .ignore();
      try {
        await startDelivery(temporal(), taskQueue, eventId, type);
      } catch (err) {
        // Already started by an earlier try of this activity.
        if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
      }
      return { eventId };
    },
  };
}

export type CallActivities = ReturnType<typeof createCallActivities>;
