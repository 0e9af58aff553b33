import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import type { LineSecretActivities } from '../activities/lineSecrets';
import { PROMOTION_DELAY_MS } from '../src/domain/lines/rules';
import * as options from './activityOptions';
import { closeLineSecretsSignal, rotateSecretUpdate, type LineSecretsState, type RotateSecretResult } from './definitions/lines';

const secrets = proxyActivities<LineSecretActivities>(options.store);

/** History stays short: after this many rotations the workflow continues as new with its state. */
const ROTATIONS_PER_RUN = 50;

/**
 * One per line (id `line-secrets:<line id>`), started by the first rotate. Rotations are
 * serialised here, so concurrent rotate calls can never lose a secret:
 *   - nothing staged: stage a next secret; the current keeps signing;
 *   - staged >= 24 h ago: promote it to current and stage a fresh next;
 *   - staged < 24 h ago: refuse (RotationTooSoon, with the time promotion becomes possible).
 */
export async function lineSecretsWorkflow(
  lineId: string,
  state: LineSecretsState = { stagedAt: null, stagedSecretId: null },
): Promise<void> {
  let busy = false;
  let closed = false;
  let rotations = 0;

  setHandler(
    rotateSecretUpdate,
    async ({ requestedAt }): Promise<RotateSecretResult> => {
      // A mutex: re-check after every wake-up, since several handlers may wake together.
      while (busy) await condition(() => !busy);
      busy = true;
      try {
        const at = Date.parse(requestedAt);
        if (state.stagedAt === null || state.stagedSecretId === null) {
          const { secretId } = await secrets.stageNextSecret(lineId);
          state = { stagedAt: at, stagedSecretId: secretId };
          return { secretId, rotatedAt: requestedAt, promotedPreviousNext: false };
        }
        const promotableAt = state.stagedAt + PROMOTION_DELAY_MS;
        if (at < promotableAt) {
          throw ApplicationFailure.create({
            type: 'RotationTooSoon',
            message: 'The staged secret can be promoted 24 hours after it was staged',
            details: [new Date(promotableAt).toISOString()],
            nonRetryable: true,
          });
        }
        const { secretId } = await secrets.promoteNextSecret(lineId, state.stagedSecretId);
        state = { stagedAt: at, stagedSecretId: secretId };
        return { secretId, rotatedAt: requestedAt, promotedPreviousNext: true };
      } finally {
        busy = false;
        rotations += 1;
      }
    },
    {
      validator: ({ requestedAt }) => {
        if (Number.isNaN(Date.parse(requestedAt))) throw new Error('requestedAt must be an ISO 8601 time');
        if (closed) throw new Error('the line is released');
      },
    },
  );
  setHandler(closeLineSecretsSignal, () => {
    closed = true;
  });

  await condition(() => closed || rotations >= ROTATIONS_PER_RUN);
  await condition(allHandlersFinished);
  if (!closed) await continueAsNew<typeof lineSecretsWorkflow>(lineId, state);
}
