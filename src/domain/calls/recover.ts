/**
 * Ending a call whose workflow cannot (security review M2): its workflow is missing or closed,
 * or stuck past any call's length. The recovery sweeper (workflows/recovery.ts) runs it; the
 * call is settled by the rule its workflow applies (settlement.ts), from what is known.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { CallInput } from '../../../workflows/definitions/calls';
import type { CallRecovery } from '../../../workflows/definitions/recovery';
import { CarrierRejectedError, type CarrierAdapter } from '../../adapters/carrier/port';
import type { Db } from '../../platform/db/knex';
import { workflowState } from '../../platform/temporal/workflowState';
import { findHold, settleHold } from '../billing/holds';
import { postedSettlement, type LedgerTransaction } from '../billing/ledger';
import { isActiveCallStatus, MAX_CALL_DURATION_MS, STALE_CALL_AGE_MS, type CallStatus } from './rules';
import { settleCall, type CallEndedFacts, type CallSettlement } from './settlement';
import { activeCallIdsCreatedBefore, findCallById, recordCallState, unclaimedCallIds, type CallRow } from './store';

/**
 * A call no workflow has claimed this long after it was created lost its start (the API stopped
 * between recording the call and starting its workflow): when it has no workflow, it is ended
 * without waiting for STALE_CALL_AGE_MS.
 */
export const UNCLAIMED_CALL_AGE_MS = 2 * 60_000;
/** Per sweep, so one run stays short; the next sweep takes the rest. */
const SWEEP_BATCH = 100;

/**
 * The calls a sweep at `at` ends: active calls older than any call can last (`callIds`), and
 * active calls no workflow has claimed two minutes on (`unclaimedCallIds`: ended only if their
 * workflow is missing or closed).
 */
export async function staleCalls(db: Db, at: Date): Promise<{ callIds: string[]; unclaimedCallIds: string[] }> {
  const staleBefore = new Date(at.getTime() - STALE_CALL_AGE_MS);
  return {
    callIds: await activeCallIdsCreatedBefore(db, staleBefore, SWEEP_BATCH),
    unclaimedCallIds: await unclaimedCallIds(db, {
      createdBefore: new Date(at.getTime() - UNCLAIMED_CALL_AGE_MS),
      createdAfter: staleBefore,
      limit: SWEEP_BATCH,
    }),
  };
}

/** How a recovered call ends: `completed` if it was answered, else `failed`. */
export function recoveredStatus(call: Pick<CallRow, 'started_at'>): CallStatus {
  return call.started_at ? 'completed' : 'failed';
}

/**
 * The settlement of a call recovery ends at `now`, by the workflow's rule: answered at its
 * recorded start, ended now but no later than the longest a call lasts (its workflow would have
 * ended it there), never charged more than `heldCents`.
 */
export function recoveredSettlement(
  call: Pick<CallRow, 'mode' | 'zone' | 'to_number' | 'created_at' | 'started_at'>,
  heldCents: number,
  now: Date,
): CallSettlement {
  const answeredAt = call.started_at ? call.started_at.getTime() : null;
  const at = now.getTime();
  return settleCall({
    mode: call.mode,
    zone: call.zone,
    to: call.to_number,
    answeredAt,
    endedAt: answeredAt === null ? at : Math.min(at, answeredAt + MAX_CALL_DURATION_MS),
    requestedAt: call.created_at.getTime(),
    heardAt: at,
    heldCents,
    status: recoveredStatus(call),
    endCause: 'service_error',
  });
}

/** The call as its events name it (the call workflow's facts, which recovery reads from the row). */
export type RecoveredCallFacts = Pick<
  CallInput,
  'callId' | 'workspaceId' | 'environment' | 'lineId' | 'keyId' | 'direction' | 'from' | 'to' | 'metadata'
>;

export interface RecoverCallDeps {
  db: Db;
  carrier: CarrierAdapter;
  temporal: Client;
  now: () => Date;
  /** Publishes the call's `call_ended` (once per call: if its workflow sent one, that one stands). */
  publishCallEnded: (call: RecoveredCallFacts, payload: CallEndedFacts & { recording_url: null }) => Promise<unknown>;
  /** Told of the settlement's posting (the worker counts it: see `businessMetrics.settlement`). */
  onSettled: (transaction: LedgerTransaction | null, at: Date) => void;
}

/**
 * Ends one active call whose workflow cannot: a missing or closed workflow, or (with
 * `endRunningWorkflow`, for calls past any possible length) a running one, which is terminated
 * first. The carrier leg is hung up, the hold settled from what is known (the answered time
 * until now, never more than was held), the line freed, and `call_ended` sent. Each step is
 * idempotent, so a retry or a second sweep is harmless.
 */
export async function recoverCall(deps: RecoverCallDeps, input: { callId: string; endRunningWorkflow: boolean }): Promise<CallRecovery> {
  const { db, temporal, now } = deps;
  const row = await findCallById(db, input.callId);
  if (!row || !isActiveCallStatus(row.status)) return { outcome: 'already_ended' };
  let workflow: 'missing' | 'closed' | 'terminated' | 'running' = await workflowState(temporal, input.callId);
  if (workflow === 'running') {
    if (!input.endRunningWorkflow) return { outcome: 'workflow_running' };
    try {
      await temporal.workflow.getHandle(input.callId).terminate('call past its maximum length: ended by the recovery sweeper');
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    workflow = 'terminated';
  }
  // What the workflow may have written before it stopped wins.
  const current = await findCallById(db, input.callId);
  if (!current || !isActiveCallStatus(current.status)) return { outcome: 'already_ended' };
  await hangUpLeg(deps.carrier, current);
  const endedAt = now();
  const reference = `call:${current.id}`;
  const hold = await findHold(db, reference);
  const { durationSec, chargeCents: due, description, usage, callEnded } = recoveredSettlement(current, hold?.amountCents ?? 0, endedAt);
  if (hold?.status === 'active') {
    const { transaction } = await settleHold(db, {
      tenant: { workspaceId: current.workspace_id, environment: current.environment },
      reference,
      chargeCents: due,
      type: 'call_charge',
      description,
      lineId: current.line_id,
      referenceId: reference,
      referenceType: 'call',
      usage,
      at: endedAt,
    });
    deps.onSettled(transaction, endedAt);
  }
  // The charge as posted (by this recovery, a retry of it, or the workflow before it stopped).
  const chargeCents = (await postedSettlement(db, reference)) ?? 0;
  const status = recoveredStatus(current);
  await recordCallState(db, current.id, { status, endCause: 'service_error', endedAt: endedAt.getTime(), durationSec, chargeCents });
  if (callEnded) await deps.publishCallEnded(factsOf(current), { ...callEnded, recording_url: null });
  return { outcome: 'ended', status, chargeCents, workflow };
}

async function hangUpLeg(carrier: CarrierAdapter, call: CallRow): Promise<void> {
  if (!call.carrier_call_id) return;
  try {
    await carrier.hangUp({ carrierCallId: call.carrier_call_id });
  } catch (err) {
    // The carrier no longer knows the call: it is over there too.
    if (!(err instanceof CarrierRejectedError)) throw err;
  }
}

function factsOf(call: CallRow): RecoveredCallFacts {
  return {
    callId: call.id,
    workspaceId: call.workspace_id,
    environment: call.environment,
    lineId: call.line_id,
    keyId: call.actor_key_id,
    direction: call.direction,
    from: call.from_number,
    to: call.to_number,
    ...(call.metadata ? { metadata: call.metadata } : {}),
  };
}
