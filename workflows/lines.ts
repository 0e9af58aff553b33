import { ActivityFailure, ApplicationFailure, getExternalWorkflowHandle, proxyActivities } from '@temporalio/workflow';
import { workflowIds } from './definitions/ids';
import { closeLineSecretsSignal, type ProvisionLineInput, type ProvisionLineResult, type ReleaseLineInput, type ReleaseLineResult } from './definitions/lines';
import type { LineActivities } from '../activities/lines';

/** Carrier calls: retried with backoff for up to ten minutes; a refusal is final. */
const carrier = proxyActivities<LineActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', nonRetryableErrorTypes: ['CarrierRejected'] },
});

/** Postgres writes: retried until they succeed (they are idempotent). */
const store = proxyActivities<LineActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/** Releasing: waits (briefly) for the release to commit, then retries the carrier until it confirms. */
const releaser = proxyActivities<LineActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '24 hours',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * A new line gets its phone number: acquire one from the carrier, then make the line
 * active with it. If the line was released while we waited, the number goes back.
 */
export async function provisionLineWorkflow({ lineId }: ProvisionLineInput): Promise<ProvisionLineResult> {
  let phoneNumber: string;
  try {
    ({ phoneNumber } = await carrier.provisionNumber(lineId));
  } catch (err) {
    const reason = describeFailure(err);
    await store.failLineProvisioning(lineId, reason);
    return { status: 'released', reason };
  }

  const outcome = await store.activateLine(lineId, phoneNumber);
  if (outcome === 'gone') {
    await carrier.releaseNumber(phoneNumber);
    return { status: 'released', reason: 'line released before its number was ready' };
  }
  return { status: 'active', phoneNumber };
}

function describeFailure(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'CarrierRejected') {
    return `carrier refused: ${err.cause.message}`;
  }
  if (err instanceof ActivityFailure) return 'carrier unavailable: gave up after retries';
  return 'number provisioning failed';
}

/**
 * A released line gives its number back to the carrier (retried until the carrier confirms)
 * and closes its signing-secret workflow, if it has one.
 */
export async function releaseLineWorkflow({ lineId }: ReleaseLineInput): Promise<ReleaseLineResult> {
  let releasedNumber: string | null;
  try {
    ({ released: releasedNumber } = await releaser.releaseLineNumber(lineId));
  } catch (err) {
    // The release never committed (the API rolled back): the line keeps its number.
    if (!(err instanceof ActivityFailure)) throw err;
    return { releasedNumber: null };
  }
  try {
    await getExternalWorkflowHandle(workflowIds.lineSecrets(lineId)).signal(closeLineSecretsSignal);
  } catch {
    // Not found: no rotation ever happened, so there is no secrets workflow to close. (The API
    // refuses rotations of released lines anyway; closing only lets the workflow finish.)
  }
  return { releasedNumber };
}
