import { ActivityFailure, ApplicationFailure, getExternalWorkflowHandle, patched, proxyActivities } from '@temporalio/workflow';
import * as options from './activityOptions';
import { activityFailedWith, carrierRefusalOfFailure, FailureTypes } from './definitions/failures';
import { workflowIds } from './definitions/ids';
import {
  closeLineSecretsSignal,
  type ProvisionLineInput,
  type ProvisionLineResult,
  type ReleaseLineInput,
  type ReleaseLineResult,
} from './definitions/lines';
import { patches } from './patches';
import type { LineActivities } from '../activities/lines';
import type { CarrierRefusal } from '../src/domain/carriers/rules';
import type { NumberCriterion } from '../src/domain/lines/numberChoice';

/** Acquiring a number: retried with backoff for up to ten minutes; a refusal is final. */
const carrier = proxyActivities<LineActivities>(options.lineCarrier);
const store = proxyActivities<LineActivities>(options.store);
const releaser = proxyActivities<LineActivities>(options.numberRelease);

/**
 * A new line gets its phone number: acquire one from the carrier as the line asked (bought to its
 * criteria, or an owned number imported), then make the line active with it. If the line was
 * released while we waited, the number goes back (an imported one stays in the account).
 */
export async function provisionLineWorkflow({ lineId }: ProvisionLineInput): Promise<ProvisionLineResult> {
  let phoneNumber: string;
  try {
    ({ phoneNumber } = await carrier.provisionNumber(lineId));
  } catch (err) {
    const { reason, unavailable, refusal } = describeFailure(err);
    // An added argument, not a new command: activity arguments are not compared on replay.
    await store.failLineProvisioning(lineId, reason, unavailable, refusal);
    return { status: 'released', reason, ...(unavailable ? { unavailable } : {}), ...(refusal ? { refusal } : {}) };
  }

  let outcome: Awaited<ReturnType<LineActivities['activateLine']>>;
  try {
    outcome = await store.activateLine(lineId, phoneNumber);
  } catch (err) {
    // Another line holds the number: the line fails, and the number (that line's) stays at the carrier (L19).
    if (!patched(patches.numberInUseFails) || !activityFailedWith(err, FailureTypes.numberInUse)) throw err;
    const reason = 'the number is held by another line';
    await store.failLineProvisioning(lineId, reason);
    return { status: 'released', reason };
  }
  if (outcome === 'gone') {
    await carrier.releaseNumber(phoneNumber, lineId);
    return { status: 'released', reason: 'line released before its number was ready' };
  }
  return { status: 'active', phoneNumber };
}

function describeFailure(err: unknown): { reason: string; unavailable?: NumberCriterion; refusal?: CarrierRefusal } {
  if (!(err instanceof ActivityFailure)) return { reason: 'number provisioning failed' };
  if (activityFailedWith(err, FailureTypes.numberUnavailable)) {
    const [field] = (err.cause as ApplicationFailure).details ?? [];
    return { reason: `no number as asked: ${err.cause?.message}`, unavailable: field as NumberCriterion };
  }
  if (activityFailedWith(err, FailureTypes.carrierRejected)) {
    // The failure's first detail names the provider and its code (activities/lines.ts); a refusal without one is not the carrier's.
    const refusal = carrierRefusalOfFailure(err.cause);
    return { reason: `carrier refused: ${err.cause?.message}`, ...(refusal ? { refusal } : {}) };
  }
  return { reason: 'carrier unavailable: gave up after retries' };
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
