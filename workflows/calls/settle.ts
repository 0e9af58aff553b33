import { ActivityFailure, allHandlersFinished, condition } from '@temporalio/workflow';
import type { CallStatus, EndCause } from '../../src/domain/calls/rules';
import { settleCall, type CallSettlement } from '../../src/domain/calls/settlement';
import type { CallInput, CallResult } from '../definitions/calls';
import { billing, endRecords, funding, publishCallEvent } from './activities';
import type { CallState, Funding } from './state';

const MINUTE_MS = 60_000;

/**
 * Runs beside the conversation from the answer on, whatever it is doing: holds each next minute
 * before it starts, and ends the call at a refused (or unanswered) hold or at the maximum duration.
 */
export async function keepFunded(call: CallState): Promise<void> {
  const { input } = call;
  for (;;) {
    const elapsed = Date.now() - call.answeredLocally;
    const untilNext = Math.min(call.funding.minutesHeld * MINUTE_MS, call.maxDurationMs) - elapsed;
    if (await condition(() => call.ended(), Math.max(1, untilNext))) return;
    if (Date.now() - call.answeredLocally >= call.maxDurationMs) return call.requestEnd('max_duration');
    call.funding.extending = true;
    let funded = false;
    try {
      const totalCents = input.reservePerMinuteCents * (call.funding.minutesHeld + 1);
      funded = (await funding.extendReservation({ tenant: call.tenant, reference: call.reference, totalCents })).ok;
    } catch (err) {
      // No answer within its bound (or no hold any more): the next minute is not funded.
      if (!(err instanceof ActivityFailure)) throw err;
    } finally {
      call.funding.extending = false;
    }
    if (call.ended()) return;
    if (!funded) return call.requestEnd('insufficient_funds');
    call.funding.minutesHeld += 1;
  }
}

/** The call ends while talking: hang up unless the carrier did, and settle. */
export async function endTalk(call: CallState): Promise<CallResult> {
  const endedAt = call.events.terminal?.at ?? (await call.hangUpAndWait());
  const end = call.events.terminal;
  // After a transfer the carrier cannot say which of the two parties hung up.
  const carrierCause = call.transfer.to !== undefined ? 'transferred' : end?.ended_by === 'switchboard' ? 'api_hangup' : 'caller_hangup';
  const cause: EndCause = call.endRequested ?? (end ? carrierCause : 'carrier_failed');
  return finish(call, 'completed', cause, endedAt);
}

/** What settling needs of the call's state (the workflow's `CallState`). */
export interface SettlingCall {
  input: Pick<CallInput, 'mode' | 'zone' | 'to' | 'reservePerMinuteCents'>;
  answeredAt: number | null;
  requestedAt: number;
  funding: Pick<Funding, 'minutesHeld'>;
}

/**
 * The call's settlement (src/domain/calls/settlement.ts, the rule crash recovery also applies):
 * the carrier's end time bounded by what the workflow saw, and never more charged than the
 * minutes it held.
 */
export function settlementOf(
  call: SettlingCall,
  final: CallStatus,
  endCause: EndCause,
  carrierEndedAt: number,
  heardAt: number,
): CallSettlement {
  const { input } = call;
  return settleCall({
    mode: input.mode,
    zone: input.zone,
    to: input.to,
    answeredAt: call.answeredAt,
    endedAt: carrierEndedAt,
    requestedAt: call.requestedAt,
    heardAt,
    heldCents: input.reservePerMinuteCents * call.funding.minutesHeld,
    status: final,
    endCause,
  });
}

/**
 * Settles the call once: the per-second charge (never more than was held), the final state and
 * `call_ended`. Ends the audio relay first.
 */
export async function finish(call: CallState, final: CallStatus, endCause: EndCause, carrierEndedAt: number): Promise<CallResult> {
  const { input } = call;
  call.status = final;
  // The customer's audio socket gets its `stop`.
  call.relay.scope?.cancel();
  const { endedAt, durationSec, chargeCents, description, usage, callEnded } = settlementOf(
    call,
    final,
    endCause,
    carrierEndedAt,
    Date.now(),
  );
  await billing.settleReservation({
    tenant: call.tenant,
    reference: call.reference,
    chargeCents,
    type: 'call_charge',
    description,
    lineId: input.lineId,
    usage,
  });
  await call.transcript.flush();
  // Read last: an end event arriving while settling may still bring the recording.
  const recordingUrl = call.events.terminal?.recording_url;
  const recording = recordingUrl ? { recordingUrl } : {};
  await endRecords.recordCallState(input.callId, { status: final, endedAt, durationSec, chargeCents, endCause, ...recording });
  if (callEnded) await publishCallEvent(input, 'call_ended', { ...callEnded, recording_url: recordingUrl ?? null });
  // Control requests still waiting see the call end and answer first (each is bounded).
  await condition(allHandlersFinished);
  return { status: final, endCause, durationSec, chargeCents, ...(call.faxHungUp ? { machineKind: 'fax' as const } : {}) };
}

/** An inbound call that is never answered and had nothing held. */
export async function decline(call: CallState, final: CallStatus, endCause: EndCause): Promise<CallResult> {
  call.status = final;
  await endRecords.recordCallState(call.input.callId, { status: final, endedAt: Date.now(), durationSec: 0, chargeCents: 0, endCause });
  return { status: final, endCause, durationSec: 0, chargeCents: 0 };
}
