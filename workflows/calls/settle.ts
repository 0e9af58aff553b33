import { ActivityFailure, allHandlersFinished, condition } from '@temporalio/workflow';
import { callChargeCents } from '../../src/domain/billing/pricing';
import { boundedEndTime, callDurationMs, type CallStatus, type EndCause } from '../../src/domain/calls/rules';
import type { CallResult } from '../definitions/calls';
import { billing, funding, publishCallEvent, records } from './activities';
import type { CallState } from './state';

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

/**
 * Settles the call once: the per-second charge (never more than was held), the final state and
 * `call_ended`. Ends the audio relay first.
 */
export async function finish(call: CallState, final: CallStatus, endCause: EndCause, carrierEndedAt: number): Promise<CallResult> {
  const { input, answeredAt } = call;
  call.status = final;
  // The customer's audio socket gets its `stop`.
  call.relay.scope?.cancel();
  // The carrier's end time, bounded by our own clock (L7): a skewed or forged `at` bills nothing extra.
  const endedAt = boundedEndTime(carrierEndedAt, { answeredAt: answeredAt ?? call.requestedAt, heardAt: Date.now() });
  const durationMs = callDurationMs(answeredAt, endedAt);
  // Never more than was held: each minute is held before it starts, and the few seconds a
  // hang-up takes after a refused extension are not charged beyond the hold.
  const held = input.reservePerMinuteCents * call.funding.minutesHeld;
  const chargeCents = answeredAt === null ? 0 : Math.min(callChargeCents(input.mode, input.zone, durationMs), held);
  const durationSec = Math.ceil(durationMs / 1000);
  await billing.settleReservation({
    tenant: call.tenant,
    reference: call.reference,
    chargeCents,
    type: 'call_charge',
    description: `Call to ${input.to} (${durationSec} s)`,
    lineId: input.lineId,
    usage: { kind: 'call', seconds: durationSec },
  });
  await call.transcript.flush();
  const recordingUrl = call.events.terminal?.recording_url;
  const recording = recordingUrl ? { recordingUrl } : {};
  await records.recordCallState(input.callId, { status: final, endedAt, durationSec, chargeCents, endCause, ...recording });
  if (answeredAt !== null) {
    const callEnded = { duration_sec: durationSec, cause: endCause, status: final, recording_url: recordingUrl ?? null };
    await publishCallEvent(input, 'call_ended', callEnded);
  }
  // Control requests still waiting see the call end and answer first (each is bounded).
  await condition(allHandlersFinished);
  return { status: final, endCause, durationSec, chargeCents };
}

/** An inbound call that is never answered and had nothing held. */
export async function decline(call: CallState, final: CallStatus, endCause: EndCause): Promise<CallResult> {
  call.status = final;
  await records.recordCallState(call.input.callId, { status: final, endedAt: Date.now(), durationSec: 0, chargeCents: 0, endCause });
  return { status: final, endCause, durationSec: 0, chargeCents: 0 };
}
