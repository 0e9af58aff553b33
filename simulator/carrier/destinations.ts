import { ANSWERED_BY, type AnsweredBy } from '../../src/adapters/carrier/callbacks/wire';
import type { CallBehaviour, CallOutcome } from './callRecords';

/**
 * What a destination number does when the simulated carrier calls it (placed or transferred to):
 * the outcome set for it through the control API, else the default (answer, or never connect
 * for the reserved range).
 */

/** +1 <any area code> 555-0100…0199: calls to these ring and never connect. */
export const NEVER_CONNECTS = /^\+1\d{3}55501\d{2}$/;
export const DEFAULT_RING_MS = 200;
/** How long a transfer's destination rings before the transfer fails (the carriers' dial timeout). */
export const TRANSFER_RING_TIMEOUT_MS = 30_000;

/**
 * Who answers a call placed with machine detection: what the carriers' detection reports (`answered_by`), or a fax
 * machine, reported as a `machine` whose `machine_kind` is `fax` (as Twilio's `AnsweredBy=fax`), with no greeting.
 */
export const ANSWERERS = [...ANSWERED_BY, 'fax'] as const;
export type Answerer = AnsweredBy | 'fax';

/** What the control API set for one destination (`POST /control/outcomes`). */
export interface DestinationSetting {
  outcome: CallOutcome;
  ringMs: number;
  answeredBy?: Answerer;
  /** The callee hangs up this long after answering (a short call without a test driving it); unset: they stay on. */
  hangUpAfterMs?: number;
  /** What the destination does from the next call placed to it on (a callee busy once, then answering). */
  then?: DestinationSetting;
}

/** How a call placed to `to` plays out: its outcome and how long it rings first. */
export function placedCallPlan(to: string, setting: DestinationSetting | undefined): { outcome: CallBehaviour; ringMs: number } {
  return {
    outcome: setting?.outcome ?? (NEVER_CONNECTS.test(to) ? 'never_connect' : 'answer'),
    ringMs: setting?.ringMs ?? DEFAULT_RING_MS,
  };
}

/**
 * How a transfer to `to` plays out: whether the destination answers, and after how long the
 * transfer reports it. Like a carrier's dial timeout, a destination that rings longer than
 * {@link TRANSFER_RING_TIMEOUT_MS} has not answered, and is given up at that timeout.
 */
export function transferPlan(to: string, setting: DestinationSetting | undefined): { answers: boolean; afterMs: number } {
  const ringMs = setting?.ringMs ?? DEFAULT_RING_MS;
  const outcome = setting?.outcome ?? (NEVER_CONNECTS.test(to) ? 'no_answer' : 'answer');
  return { answers: outcome === 'answer' && ringMs <= TRANSFER_RING_TIMEOUT_MS, afterMs: Math.min(ringMs, TRANSFER_RING_TIMEOUT_MS) };
}
