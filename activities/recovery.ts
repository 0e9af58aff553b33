import { Context } from '@temporalio/activity';
import { recoverCall, staleCalls } from '../src/domain/calls/recover';
import { recoverMessage, staleMessageIds } from '../src/domain/messages/recover';
import type { CarrierAdapter } from '../src/adapters/carrier/port';
import type { PublishDeps } from '../src/domain/webhooks/publish';
import type { CallRecovery, MessageRecovery } from '../workflows/definitions/recovery';
import { publishCallEvent } from './calls';
import { businessMetrics } from './metrics';

/** What recovery reaches: the carrier, and what publishing the `call_ended` of a call it ends needs. */
export interface RecoveryActivityDeps extends PublishDeps {
  carrier: CarrierAdapter;
}

/**
 * Ends work whose workflow can no longer finish it (security review M2): calls still active long
 * after any call could last, or whose workflow is missing or closed (src/domain/calls/recover.ts),
 * and queued messages that never got a workflow (src/domain/messages/recover.ts).
 */
export function createRecoveryActivities(deps: RecoveryActivityDeps) {
  const { db, carrier, temporal, now } = deps;
  return {
    /** What one sweep ends: stale and unclaimed calls, and queued messages that should have left long ago. */
    async findStaleWork(): Promise<{ callIds: string[]; unclaimedCallIds: string[]; messageIds: string[] }> {
      const at = now();
      return { ...(await staleCalls(db, at)), messageIds: await staleMessageIds(db, at) };
    },

    async recoverCall(input: { callId: string; endRunningWorkflow: boolean }): Promise<CallRecovery> {
      const recovery = await recoverCall(
        {
          db,
          carrier,
          temporal: temporal(),
          now,
          publishCallEnded: (call, payload) => publishCallEvent(deps, call, 'call_ended', payload),
          onSettled: (transaction, at) => businessMetrics.settlement('call_charge', transaction, at),
        },
        input,
      );
      if (recovery.outcome !== 'ended') return recovery;
      // For operators: a call had to be ended by the sweeper (alert on this line).
      Context.current().log.error('call ended by the recovery sweeper', {
        call_id: input.callId,
        workflow: recovery.workflow,
        status: recovery.status,
        charge_cents: recovery.chargeCents,
        alert: 'call_recovered',
      });
      businessMetrics.recovered('call');
      return recovery;
    },

    async recoverMessage(messageId: string): Promise<MessageRecovery> {
      const recovery = await recoverMessage({ db, temporal: temporal(), now }, messageId);
      if (recovery.outcome !== 'failed') return recovery;
      Context.current().log.error('message failed by the recovery sweeper: it never had a workflow', {
        message_id: messageId,
        alert: 'message_recovered',
      });
      businessMetrics.recovered('message');
      return recovery;
    },
  };
}

export type RecoveryActivities = ReturnType<typeof createRecoveryActivities>;
