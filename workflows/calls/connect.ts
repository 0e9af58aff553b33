import { ActivityFailure, condition } from '@temporalio/workflow';
import { boundedAnswerTime, RING_TIMEOUT_MS } from '../../src/domain/calls/rules';
import type { CallResult } from '../definitions/calls';
import { activityFailedWith, FailureTypes } from '../definitions/failures';
import { billing, carrier, claims, publishCallEvent, records } from './activities';
import { decline, finish } from './settle';
import type { CallState } from './state';

// Each step below returns the call's result when the call ended there, and nothing when it goes on.
// Until the answer only the workflow's main coroutine runs (control is refused, nothing is held
// beside it), so these steps are free to be functions of their own.

/** Takes the call over: the API fails a call whose start it could not confirm, unless its workflow took it over first. */
export async function claim(call: CallState): Promise<CallResult | undefined> {
  const { claimed } = await claims.claimCall(call.input.callId);
  if (claimed) return undefined;
  if (call.input.direction === 'inbound') await call.onCarrier(() => carrier.rejectCall(call.input.carrierCallId!));
  return { status: 'failed', endCause: 'service_error', durationSec: 0, chargeCents: 0 };
}

/** Where an audio line's stream goes, for the status callbacks (D15: null on other lines). */
const relayUrlOf = (call: CallState) => (call.input.mode === 'audio' ? (call.input.audioHandlerUrl ?? null) : null);

/** Inbound: hold the first minute, tell the status callback, pick up, and wait for the carrier to connect us. */
export async function answer(call: CallState): Promise<CallResult | undefined> {
  const { input, events } = call;
  call.carrierCallId = input.carrierCallId!;
  const hold = await billing.reserveFunds({
    tenant: call.tenant,
    keyId: null,
    reference: call.reference,
    amountCents: input.reservePerMinuteCents,
  });
  if (!hold.ok) {
    await call.onCarrier(() => carrier.rejectCall(input.carrierCallId!));
    return decline(call, 'failed', 'insufficient_funds');
  }
  await publishCallEvent(input, 'call_incoming', { from_number: input.from, to_number: input.to, relay_url: relayUrlOf(call) });
  call.requestedAt = Date.now();
  try {
    await carrier.answerCall(input.callId, call.carrierCallId, input.record ?? false, input.language);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    // Refused: the caller hung up while it rang. Otherwise the carrier stayed unreachable.
    if (activityFailedWith(err, FailureTypes.carrierRejected)) return finish(call, 'canceled', 'caller_hangup', Date.now());
    await call.onCarrier(() => carrier.rejectCall(input.carrierCallId!));
    return finish(call, 'failed', 'carrier_failed', Date.now());
  }
  await condition(() => events.answered !== undefined || call.ended(), RING_TIMEOUT_MS);
  if (!events.answered) {
    // A ringing inbound call ends with no event of its own: hanging it up declines it.
    await call.hangUp();
    return finish(call, 'canceled', call.endRequested === 'api_hangup' ? 'canceled' : 'caller_hangup', events.terminal?.at ?? Date.now());
  }
  return answered(call);
}

/** Outbound: place the call with the carrier and tell the status callback. */
export async function dial(call: CallState): Promise<CallResult | undefined> {
  const { input } = call;
  call.requestedAt = Date.now();
  try {
    ({ carrierCallId: call.carrierCallId } = await carrier.placeCall(input));
  } catch (err) {
    // The carrier refused the destination, or stayed unreachable: nothing was placed.
    if (!(err instanceof ActivityFailure)) throw err;
    return finish(call, 'failed', 'carrier_failed', Date.now());
  }
  await publishCallEvent(input, 'call_outgoing', { to_number: input.to, from_number: input.from, relay_url: relayUrlOf(call) });
  return undefined;
}

/**
 * Outbound: record `ringing` as soon as the carrier says so, then wait for an answer until the
 * ring timeout (counted from the dial). Busy, failed, unanswered or hung up first ends the call.
 */
export async function ring(call: CallState): Promise<CallResult | undefined> {
  const { events } = call;
  const settled = () => events.answered !== undefined || call.ended();
  await condition(() => events.ringing || settled(), RING_TIMEOUT_MS);
  if (events.ringing && !settled()) {
    call.status = 'ringing';
    await records.recordCallState(call.input.callId, { status: call.status });
  }
  await condition(settled, Math.max(1, RING_TIMEOUT_MS - (Date.now() - call.requestedAt)));
  if (events.answered) return answered(call);
  const end = events.terminal;
  if (end?.type === 'call.busy') return finish(call, 'busy', 'busy', end.at);
  if (end?.type === 'call.failed') return finish(call, 'failed', 'carrier_failed', end.at);
  if (end?.type === 'call.no_answer') return finish(call, 'no_answer', 'no_answer', end.at);
  if (end) return finish(call, 'canceled', 'caller_hangup', end.at);
  const endedAt = await call.hangUpAndWait();
  return call.endRequested === 'api_hangup'
    ? finish(call, 'canceled', 'canceled', endedAt)
    : finish(call, 'no_answer', 'ring_timeout', endedAt);
}

/** Answered: the minutes and the charge count from here (the carrier's time, bounded by ours). */
function answered(call: CallState): undefined {
  call.answeredAt = boundedAnswerTime(call.events.answered!.at, { requestedAt: call.requestedAt, heardAt: Date.now() });
  call.answeredLocally = Date.now();
  return undefined;
}
