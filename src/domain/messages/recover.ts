/**
 * Failing a queued message that never got a workflow within its validity (Temporal unreachable for that long; the
 * dispatch sweep, ./dispatch.ts, retried it every 5 s until then): the recovery sweeper (workflows/recovery.ts) runs
 * it, so no message stays queued and no hold stays open.
 */
import type { Client } from '@temporalio/client';
import type { MessageRecovery } from '../../../workflows/definitions/recovery';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { Db } from '../../platform/db/knex';
import { workflowState } from '../../platform/temporal/workflowState';
import { MESSAGE_VALIDITY_MS } from './dispatch';
import { failUnsentMessage, findMessage, queuedMessageIds } from './store';

/** Older messages are left alone: their workflows may be past the namespace's retention. */
const MESSAGE_LOOKBACK_MS = 24 * 60 * 60_000;
/** Per sweep, so one run stays short; the next sweep takes the rest. */
const SWEEP_BATCH = 100;

/** The queued messages a sweep at `at` looks at: still without a workflow past their validity, oldest first. */
export async function staleMessageIds(db: Db, at: Date): Promise<string[]> {
  return queuedMessageIds(db, {
    createdBefore: new Date(at.getTime() - MESSAGE_VALIDITY_MS),
    createdAfter: new Date(at.getTime() - MESSAGE_LOOKBACK_MS),
    limit: SWEEP_BATCH,
  });
}

/** A queued message with no workflow was never sent: failed (`not_sent`), its hold released. */
export async function recoverMessage(deps: { db: Db; temporal: Client; now: () => Date }, messageId: string): Promise<MessageRecovery> {
  const { db, now } = deps;
  const row = await findMessage(db, messageId);
  if (!row || row.status !== 'queued') return { outcome: 'already_sent' };
  const workflowId = row.dispatch_batch_id ? workflowIds.sendMessageBatch(row.dispatch_batch_id) : workflowIds.sendMessage(messageId);
  if ((await workflowState(deps.temporal, workflowId)) !== 'missing') return { outcome: 'workflow_exists' };
  await failUnsentMessage(db, { messageId, tenant: { workspaceId: row.workspace_id, environment: row.environment }, at: now() });
  return { outcome: 'failed' };
}
