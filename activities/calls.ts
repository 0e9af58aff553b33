import type { Client } from '@temporalio/client';
import type { Db } from '../src/db/knex';
import { EVENT_POLICIES, type EventType } from '../src/webhooks/events';
import { createEvent, startDelivery } from '../src/webhooks/publish';
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

export interface CallFacts {
  callId: string;
  workspaceId: string;
  environment: 'test' | 'live';
  lineId: string;
  keyId: string | null;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
}

/** Thin adapters between the call workflow and the carrier, Postgres and the delivery engine. */
export function createCallActivities({ db, carrier, carrierEventsUrl, temporal, taskQueue, now }: CallActivityDeps) {
  return {
    async placeCall(call: CallFacts): Promise<{ carrierCallId: string }> {
      const { carrierCallId } = await carrier.placeCall({ callId: call.callId, from: call.from, to: call.to, eventsUrl: carrierEventsUrl });
      await db('calls').where({ id: call.callId }).update({ carrier_call_id: carrierCallId });
      return { carrierCallId };
    },

    async answerCall(callId: string, carrierCallId: string): Promise<void> {
      await carrier.answerCall({ carrierCallId, callId });
    },

    async rejectCall(carrierCallId: string): Promise<void> {
      await carrier.rejectCall({ carrierCallId });
    },

    async hangUpCall(carrierCallId: string): Promise<void> {
      await carrier.hangUp({ carrierCallId });
    },

    /** Records a state change; timestamps arrive as epoch ms from the workflow. */
    async recordCallState(callId: string, state: { status: string; startedAt?: number; endedAt?: number; durationSec?: number; chargeCents?: number; endCause?: string }): Promise<void> {
      await db('calls')
        .where({ id: callId })
        .update({
          status: state.status,
          ...(state.startedAt !== undefined ? { started_at: new Date(state.startedAt) } : {}),
          ...(state.endedAt !== undefined ? { ended_at: new Date(state.endedAt) } : {}),
          ...(state.durationSec !== undefined ? { duration_sec: state.durationSec } : {}),
          ...(state.chargeCents !== undefined ? { charge_cents: state.chargeCents } : {}),
          ...(state.endCause !== undefined ? { end_cause: state.endCause } : {}),
        });
    },

    /**
     * Publishes a call event through the delivery engine, once per (call, event type): the
     * event id is derived from them, so a retried activity does not publish twice. Events whose
     * destination the line does not have (no status_callback_url) are skipped.
     */
    async publishCallEvent(call: CallFacts, type: EventType, payload: Record<string, unknown>): Promise<{ eventId: string | null }> {
      if (!temporal || !taskQueue) throw new Error('this worker cannot publish events (no Temporal client)');
      const policy = EVENT_POLICIES[type];
      const line = await db('lines').where({ id: call.lineId }).first('status_callback_url', 'webhook_url', 'mode');
      if (policy.target === 'status_callback' && !line?.status_callback_url) return { eventId: null };
      const existing = await db('webhook_events').where({ call_id: call.callId, event_type: type }).first('id');
      const eventId =
        existing?.id ??
        (await createEvent(db, {
          workspaceId: call.workspaceId,
          environment: call.environment,
          lineId: call.lineId,
          callId: call.callId,
          type,
          target: policy.target,
          payload: { call_id: call.callId, timestamp: now().getTime(), ...payload },
          actorKeyId: call.keyId,
          now: now(),
        }));
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
