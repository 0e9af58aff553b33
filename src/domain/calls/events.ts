import { stableUuid } from '../../platform/stableId';
import { findLine } from '../lines/store';
import { eventDestination } from '../webhooks/destination';
import { EVENT_POLICIES, type EventType } from '../webhooks/events';
import { publishEvent, recordPublishedEvent, type FirstAttemptResult, type PublishDeps } from '../webhooks/publish';

/** What every event of a call names: the call, its tenant, its line and the key that placed it. */
export interface CallEventSource {
  callId: string;
  workspaceId: string;
  environment: 'test' | 'live';
  lineId: string;
  keyId: string | null;
  /** The call's `metadata`, echoed in every event of it (absent when the call has none). */
  metadata?: Record<string, string> | null;
}

/** A stable id for one event of one call, so a retried activity records it once. */
export const callEventId = (callId: string, type: string, key: string | number): string => stableUuid(callId, type, key);

/** What every event of a call records besides its id and payload. */
export function callEventOf(call: CallEventSource, type: EventType) {
  return {
    workspaceId: call.workspaceId,
    environment: call.environment,
    lineId: call.lineId,
    callId: call.callId,
    type,
    target: EVENT_POLICIES[type].target,
    actorKeyId: call.keyId,
  };
}

/** An event's payload: names the call first, and ends with the call's `metadata` when it has one. */
export function callPayload(call: CallEventSource, payload: Record<string, unknown>): Record<string, unknown> {
  return { call_id: call.callId, ...payload, ...(call.metadata ? { metadata: call.metadata } : {}) };
}

/**
 * Publishes a call event, once per (call, event type, key): the event id is derived from them, so
 * a retried activity (or the recovery sweeper after the call's workflow) does not publish twice
 * (`key` distinguishes repeatable events such as `interrupted`). It is recorded and its first
 * attempt made here, right after the commit (src/domain/webhooks/publish.ts); only a failed
 * attempt starts the retry workflow. An event with nowhere to go (no status_callback_url; a hosted
 * or audio line without a webhook_url and no workspace default) is not recorded: `eventId` null.
 */
export async function publishCallEvent(
  deps: PublishDeps,
  call: CallEventSource,
  type: EventType,
  payload: Record<string, unknown>,
  key: string | number = '',
): Promise<{ eventId: string | null; attempt?: FirstAttemptResult }> {
  const { db, now } = deps;
  const line = await findLine(db, call, call.lineId);
  if (!(await eventDestination(db, call, line, EVENT_POLICIES[type].target))) return { eventId: null };
  return publishEvent(deps, {
    ...callEventOf(call, type),
    id: callEventId(call.callId, type, key),
    payload: callPayload(call, { timestamp: now().getTime(), ...payload }),
    now: now(),
  });
}

/**
 * Records a call event for its raiser to attempt later (`makeFirstAttempt`), off whatever it is
 * answering; the sweeper takes it over if that attempt never settles. Null when it has nowhere to go.
 */
export async function recordCallEvent(
  deps: Pick<PublishDeps, 'db' | 'now'>,
  call: CallEventSource,
  type: EventType,
  payload: Record<string, unknown>,
): Promise<string | null> {
  const { db, now } = deps;
  const line = await findLine(db, call, call.lineId);
  if (!(await eventDestination(db, call, line, EVENT_POLICIES[type].target))) return null;
  const recorded = await recordPublishedEvent(db, {
    ...callEventOf(call, type),
    id: callEventId(call.callId, type, ''),
    payload: callPayload(call, { timestamp: now().getTime(), ...payload }),
    now: now(),
  });
  return recorded.id;
}
