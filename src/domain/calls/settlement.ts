/**
 * What an ended call costs and reports: one rule for the call workflow (workflows/calls/settle.ts)
 * and for crash recovery (src/domain/calls/recover.ts), so a call ends the same whoever ends it.
 * Pure: the workflow bundle imports it (no I/O, no clock: the caller passes every time).
 */
import { callChargeCents, type LineMode, type Zone } from '../billing/pricing';
import { boundedEndTime, callDurationMs, type CallStatus, type EndCause } from './rules';

export interface CallSettlementInput {
  mode: LineMode;
  zone: Zone;
  /** The number called, named in the ledger line. */
  to: string;
  /** When the call was answered (epoch ms), already bounded; null for a call never answered (free, no `call_ended`). */
  answeredAt: number | null;
  /** When the call ended as reported (the carrier's time, or what recovery knows): trusted only within the bounds below. */
  endedAt: number;
  /** When the call was dialled or answered by us: the earliest an unanswered call can end. */
  requestedAt: number;
  /** When we heard of the end: no call ends later. */
  heardAt: number;
  /** What was held for the call: it is never charged more (each minute is held before it starts). */
  heldCents: number;
  status: CallStatus;
  endCause: EndCause;
}

/**
 * What `call_ended` says of the settlement. The caller adds `recording_url`: the workflow reads it
 * last, as a late end event may still bring it; recovery has none.
 */
export type CallEndedFacts = {
  duration_sec: number;
  cause: EndCause;
  status: CallStatus;
};

export interface CallSettlement {
  /** The end time, bounded (L7): a skewed or forged carrier time bills nothing extra. */
  endedAt: number;
  durationSec: number;
  chargeCents: number;
  /** The ledger line's description. */
  description: string;
  usage: { kind: 'call'; seconds: number };
  /** What `call_ended` says; null for a call never answered, which sends none. */
  callEnded: CallEndedFacts | null;
}

/**
 * Settles an ended call: its per-second charge at the line's rate in the destination's zone,
 * never more than was held (the few seconds a hang-up takes after a refused extension are not
 * charged beyond the hold), and what the ledger, the usage records and `call_ended` say.
 */
export function settleCall(input: CallSettlementInput): CallSettlement {
  const { answeredAt } = input;
  const endedAt = boundedEndTime(input.endedAt, { answeredAt: answeredAt ?? input.requestedAt, heardAt: input.heardAt });
  const durationMs = callDurationMs(answeredAt, endedAt);
  const chargeCents = answeredAt === null ? 0 : Math.min(callChargeCents(input.mode, input.zone, durationMs), input.heldCents);
  const durationSec = Math.ceil(durationMs / 1000);
  const callEnded = answeredAt === null ? null : { duration_sec: durationSec, cause: input.endCause, status: input.status };
  return {
    endedAt,
    durationSec,
    chargeCents,
    description: `Call to ${input.to} (${durationSec} s)`,
    usage: { kind: 'call', seconds: durationSec },
    callEnded,
  };
}
