import { ApplicationFailure, WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import type { UseCaseDeps } from '../useCaseDeps';
import type { Logger } from '../../platform/logger';
import { workflowIds } from '../../../workflows/definitions/ids';
import { rotateSecretUpdate, type RotateSecretResult } from '../../../workflows/definitions/lines';
import type { lineSecretsWorkflow } from '../../../workflows/lineSecrets';
import { readSecret, sealingKeyOf } from './secrets';
import { findLine, type Tenant } from './store';

export type RotationOutcome =
  | { ok: true; webhookSecret: string; rotation: RotateSecretResult }
  | { ok: false; refused: 'not_found' | 'released' }
  | { ok: false; refused: 'too_soon'; promotableAt: string };

/**
 * Rotates a line's signing secret through its secrets workflow (started on first use), which
 * keeps the 24-hour rule: the first rotation stages a new secret, one at least 24 hours later
 * promotes it and stages the next, one in between is refused with when it becomes possible.
 */
export async function rotateLineSecret(deps: UseCaseDeps, log: Logger, tenant: Tenant, lineId: string): Promise<RotationOutcome> {
  const row = await findLine(deps.db, tenant, lineId);
  if (!row) return { ok: false, refused: 'not_found' };
  if (row.status === 'released') return { ok: false, refused: 'released' };
  let rotation: RotateSecretResult;
  try {
    rotation = await deps.temporal.workflow.executeUpdateWithStart(rotateSecretUpdate, {
      args: [{ requestedAt: deps.now().toISOString() }],
      startWorkflowOperation: new WithStartWorkflowOperation<typeof lineSecretsWorkflow>('lineSecretsWorkflow', {
        workflowId: workflowIds.lineSecrets(row.id),
        taskQueue: deps.config.taskQueue,
        args: [row.id],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === 'RotationTooSoon') {
      return { ok: false, refused: 'too_soon', promotableAt: String(cause.details?.[0]) };
    }
    throw err;
  }
  const webhookSecret = await readSecret(deps.db, sealingKeyOf(deps.config), rotation.secretId);
  if (!webhookSecret) throw new Error(`staged secret ${rotation.secretId} is missing`);
  log.info({ line_id: row.id, promoted: rotation.promotedPreviousNext }, 'webhook secret rotated');
  return { ok: true, webhookSecret, rotation };
}
