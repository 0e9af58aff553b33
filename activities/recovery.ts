import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { settleHold } from '../src/domain/billing/holds';
import { callChargeCents } from '../src/domain/billing/pricing';
import { isActiveCallStatus, MAX_CALL_DURATION_MS, STALE_CALL_AGE_MS, type CallStatus } from '../src/domain/calls/rules';
import { activeCalls, findCallById, recordCallState } from '../src/domain/calls/store';
import type { Db } from '../src/platform/db/knex';
import { failUnsentMessage, findMessage, queuedMessageIds } from '../src/domain/messages/store';
import { workflowIds } from '../workflows/definitions/ids';
import { CarrierRejectedError, type CarrierAdapter } from '../src/adapters/carrier/port';
import type { SecretsKeyRing } from '../src/platform/crypto/secretBox';
import type { EgressPolicy } from '../src/platform/net/egress';
import { publishCallEvent } from './calls';
import { businessMetrics } from './metrics';

export interface RecoveryActivityDeps {
  db: Db;
  carrier: CarrierAdapter;
  temporal: () => Client;
  taskQueue: string;
  /** The call_ended it publishes for a call it ends is attempted here (see `publishCallEvent`). */
  egress: EgressPolicy;
  secretsKey: () => SecretsKeyRing;
  now: () => Date;
}

/**
 * A call no workflow has claimed this long after it was created lost its start (the API stopped
 * between recording the call and starting its workflow): when it has no workflow, it is ended
 * without waiting for STALE_CALL_AGE_MS.
 */
export const UNCLAIMED_CALL_AGE_MS = 2 * 60_000;
/** Queued messages older than this with no workflow were never handed to one (a start that failed unseen). */
export const STALE_MESSAGE_AGE_MS = 10 * 60_000;
/** Older messages are left alone: their workflows may be past the namespace's retention. */
const MESSAGE_LOOKBACK_MS = 24 * 60 * 60_000;
/** Per sweep, so one run stays short; the next sweep takes the rest. */
const SWEEP_BATCH = 100;

export type CallRecovery =
  | { outcome: 'workflow_running' | 'already_ended' }
  | { outcome: 'ended'; status: CallStatus; chargeCents: number; workflow: 'missing' | 'closed' | 'terminated' };
export type MessageRecovery = { outcome: 'workflow_exists' | 'already_sent' } | { outcome: 'failed' };

/**
 * Ends work whose workflow can no longer finish it (security review M2): calls still active long
 * after any call could last, or whose workflow is missing or closed, and queued messages that
 * never got a workflow. Each step is idempotent, so a retried activity or a second sweep is harmless.
 */
export function createRecoveryActivities({ db, carrier, temporal, taskQueue, now, egress, secretsKey }: RecoveryActivityDeps) {
  const client = () => {
    if (!temporal) throw new Error('this worker cannot recover calls (no Temporal client)');
    return temporal();
  };
  const workflowState = async (workflowId: string): Promise<'running' | 'closed' | 'missing'> => {
    try {
      const description = await client().workflow.getHandle(workflowId).describe();
      return description.status.name === 'RUNNING' ? 'running' : 'closed';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'missing';
      throw err;
    }
  };

  return {
    /**
     * Active calls older than any call can last (`callIds`), active calls no workflow has claimed
     * two minutes on (`unclaimedCallIds`: ended only if their workflow is missing or closed), and
     * queued messages that should have left long ago.
     */
    async findStaleWork(): Promise<{ callIds: string[]; unclaimedCallIds: string[]; messageIds: string[] }> {
      const at = now().getTime();
      const active = () => activeCalls(db).limit(SWEEP_BATCH);
      const callIds = await active()
        .andWhere('created_at', '<', new Date(at - STALE_CALL_AGE_MS))
        .pluck('id');
      const unclaimedCallIds = await active()
        .whereNull('workflow_claimed_at')
        .andWhere('created_at', '<', new Date(at - UNCLAIMED_CALL_AGE_MS))
        .andWhere('created_at', '>=', new Date(at - STALE_CALL_AGE_MS))
        .pluck('id');
      const messageIds = await queuedMessageIds(db, {
        createdBefore: new Date(at - STALE_MESSAGE_AGE_MS),
        createdAfter: new Date(at - MESSAGE_LOOKBACK_MS),
        limit: SWEEP_BATCH,
      });
      return { callIds, unclaimedCallIds, messageIds };
    },

    /**
     * Ends one active call whose workflow cannot: a missing or closed workflow, or (with
     * `endRunningWorkflow`, for calls past any possible length) a running one, which is
     * terminated first. The carrier leg is hung up, the hold settled from what is known (the
     * answered time until now, never more than was held), the line freed, and `call_ended` sent.
     */
    async recoverCall(input: { callId: string; endRunningWorkflow: boolean }): Promise<CallRecovery> {
      const row = await findCallById(db, input.callId);
      if (!row || !isActiveCallStatus(row.status)) return { outcome: 'already_ended' };
      let workflow: 'missing' | 'closed' | 'terminated' | 'running' = await workflowState(input.callId);
      if (workflow === 'running') {
        if (!input.endRunningWorkflow) return { outcome: 'workflow_running' };
        try {
          await client().workflow.getHandle(input.callId).terminate('call past its maximum length: ended by the recovery sweeper');
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
        workflow = 'terminated';
      }
      // What the workflow may have written before it stopped wins.
      const current = await findCallById(db, input.callId);
      if (!current || !isActiveCallStatus(current.status)) return { outcome: 'already_ended' };
      if (current.carrier_call_id) {
        try {
          await carrier.hangUp({ carrierCallId: current.carrier_call_id });
        } catch (err) {
          // The carrier no longer knows the call: it is over there too.
          if (!(err instanceof CarrierRejectedError)) throw err;
        }
      }
      const endedAt = now();
      const tenant = { workspaceId: current.workspace_id, environment: current.environment };
      const reference = `call:${current.id}`;
      const answeredAt = current.started_at;
      const durationMs = answeredAt ? Math.min(Math.max(0, endedAt.getTime() - answeredAt.getTime()), MAX_CALL_DURATION_MS) : 0;
      const durationSec = Math.ceil(durationMs / 1000);
      const hold = await db('spend_holds').where({ reference }).first('status', 'amount_cents');
      if (hold?.status === 'active') {
        const due = answeredAt
          ? Math.min(
              callChargeCents(current.mode as 'webhook' | 'hosted' | 'audio', current.zone as 'A' | 'B' | 'C', durationMs),
              Number(hold.amount_cents),
            )
          : 0;
        const { transaction } = await settleHold(db, {
          tenant,
          reference,
          chargeCents: due,
          type: 'call_charge',
          description: `Call to ${current.to_number} (${durationSec} s)`,
          lineId: current.line_id,
          referenceId: reference,
          referenceType: 'call',
          usage: { kind: 'call', seconds: durationSec },
          at: endedAt,
        });
        businessMetrics.settlement('call_charge', transaction, endedAt);
      }
      // The charge as posted (by this recovery, a retry of it, or the workflow before it stopped).
      const posted = await db('ledger_transactions')
        .where({ idempotency_ref: `${reference}:settle` })
        .first('amount_cents');
      const chargeCents = posted ? -Number(posted.amount_cents) : 0;
      const status: CallStatus = answeredAt ? 'completed' : 'failed';
      await recordCallState(db, current.id, { status, endCause: 'service_error', endedAt: endedAt.getTime(), durationSec, chargeCents });
      if (answeredAt) {
        const facts = {
          callId: current.id,
          workspaceId: current.workspace_id,
          environment: current.environment,
          lineId: current.line_id,
          keyId: current.actor_key_id,
          direction: current.direction,
          from: current.from_number,
          to: current.to_number,
        };
        await publishCallEvent({ db, temporal, taskQueue, now, egress, secretsKey }, facts, 'call_ended', {
          duration_sec: durationSec,
          cause: 'service_error',
          status,
          recording_url: null,
        });
      }
      // For operators: a call had to be ended by the sweeper (alert on this line).
      Context.current().log.error('call ended by the recovery sweeper', {
        call_id: current.id,
        workflow,
        status,
        charge_cents: chargeCents,
        alert: 'call_recovered',
      });
      businessMetrics.recovered('call');
      return { outcome: 'ended', status, chargeCents, workflow };
    },

    /** A queued message with no workflow was never sent: failed (`not_sent`), its hold released. */
    async recoverMessage(messageId: string): Promise<MessageRecovery> {
      const row = await findMessage(db, messageId);
      if (!row || row.status !== 'queued') return { outcome: 'already_sent' };
      if ((await workflowState(workflowIds.sendMessage(messageId))) !== 'missing') return { outcome: 'workflow_exists' };
      await failUnsentMessage(db, { messageId, tenant: { workspaceId: row.workspace_id, environment: row.environment }, at: now() });
      Context.current().log.error('message failed by the recovery sweeper: it never had a workflow', {
        message_id: messageId,
        alert: 'message_recovered',
      });
      businessMetrics.recovered('message');
      return { outcome: 'failed' };
    },
  };
}

export type RecoveryActivities = ReturnType<typeof createRecoveryActivities>;
