import type { CallInput } from '../../../workflows/definitions/calls';
import type { MachineKind } from '../../adapters/carrier/port';
import { findLineById } from '../lines/store';
import { callInputOf, recordCall, type PlaceCallRequest } from '../calls/place';
import { findCallById, linesWithActiveCalls } from '../calls/store';
import { OutboundRefusedError, type OutboundActor, type OutboundRefusal } from '../outbound/preflight';
import { wakeAutoChargeIfNeeded } from '../billing/autoCharge';
import type { HoldRefusal } from '../billing/holds';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import type { PublishDeps } from '../webhooks/publish';
import { changeCampaignStatus, publishCampaignEvents, recordContactCompleted } from './events';
import { attemptCallId, attemptOutcome, LINE_BUSY_RETRY_MS, nextAttemptAt, type PausedReason, type SkipReason } from './rules';
import { wakeCampaign } from './wake';
import {
  findAttempt,
  findCampaignById,
  findContact,
  finishContact,
  insertAttempt,
  lockCampaign,
  returnContact,
  settleAttemptRow,
  type CampaignRow,
  type ContactRow,
} from './store';

/** One attempt of one contact: its identity (the call id is derived from it). */
export interface AttemptRef {
  campaignId: string;
  contactId: string;
  attempt: number;
}

/** An attempt's use case reaches what placing a call does, and the webhook delivery for the campaign's events. */
export type AttemptDeps = LoggedUseCaseDeps & { publish: PublishDeps };

/** The attempt placed its call (recorded and held; its workflow is the caller's to start), or it did not dial and the contact says why. */
export type AttemptStart = { kind: 'placed'; callId: string; call: CallInput } | { kind: 'not_dialled' };

/** What a pool line's refusal means for the attempt: try the next line, skip the contact, or pause the campaign. */
type RefusalReading =
  | { kind: 'next_line'; busy: boolean }
  | { kind: 'skip'; reason: SkipReason }
  | { kind: 'pause'; reason: PausedReason; hold?: HoldRefusal }
  | { kind: 'wait'; until: Date };

function readRefusal(refusal: OutboundRefusal): RefusalReading {
  switch (refusal.code) {
    case 'call_in_progress':
      return { kind: 'next_line', busy: true };
    case 'line_not_found':
    case 'line_not_active':
    case 'line_no_webhook':
    case 'line_not_allowed':
      return { kind: 'next_line', busy: false };
    case 'invalid_field':
      return { kind: 'skip', reason: refusal.field === 'to_number' ? 'invalid_number' : 'invalid_variables' };
    case 'number_opted_out':
      return { kind: 'skip', reason: 'opted_out' };
    case 'consent_required':
      return { kind: 'skip', reason: 'consent_required' };
    case 'm3_fraud_block':
      return { kind: 'skip', reason: 'fraud_blocked' };
    // The callee's calling window is closed: every pool line would say so. The contact waits for it to open.
    case 'outside_calling_hours':
      return { kind: 'wait', until: refusal.nextOpenAt };
    case 'calling_window_never_opens':
      return { kind: 'skip', reason: 'calling_window_never_opens' };
    case 'hold_refused':
      return { kind: 'pause', reason: refusal.hold.code, hold: refusal.hold };
    default:
      throw new OutboundRefusedError(refusal);
  }
}

const actorOf = (campaign: CampaignRow): OutboundActor => ({
  workspaceId: campaign.workspace_id,
  environment: campaign.environment,
  userId: campaign.user_id,
  // The key that created the campaign: its spend caps apply to every call (its line restriction was checked at creation).
  key: { id: campaign.actor_key_id, line_id: null, grant_numbers: null },
});

/** Machine detection, and what to do on a machine's answer, as the campaign asks. */
const machineOptions = (campaign: CampaignRow) => ({
  machineDetection: campaign.machine_detection,
  ...(campaign.answering_machine ? { onMachine: { voicemailMessage: campaign.voicemail_message } } : {}),
});

const callRequest = (campaign: CampaignRow, contact: ContactRow, lineId: string): PlaceCallRequest => ({
  lineId,
  toNumber: contact.to_number,
  conversation: campaign.topic
    ? { topic: campaign.topic, beginMessage: campaign.begin_message, maxDurationSec: campaign.max_duration_sec }
    : null,
  ...machineOptions(campaign),
  ...(contact.variables ? { variables: contact.variables } : {}),
  ...(contact.metadata ? { metadata: contact.metadata } : {}),
});

/**
 * Places a claimed contact's attempt through the campaign's pool of lines, as `POST /calls` would
 * (every refusal of placeCall applies), under the call id derived from the attempt. Run again, it
 * finds the call it recorded and answers it again, so nothing is dialled twice. A busy line means
 * the next one; every line busy returns the contact to wait a moment (not an attempt); a refusal
 * of the contact skips it with its reason; a refused hold pauses the campaign (not an attempt).
 */
export async function startAttempt(deps: AttemptDeps, ref: AttemptRef): Promise<AttemptStart> {
  const callId = attemptCallId(ref.campaignId, ref.contactId, ref.attempt);
  const campaign = await findCampaignById(deps.db, ref.campaignId);
  const contact = await findContact(deps.db, ref.campaignId, ref.contactId);
  if (!campaign || !contact) throw new Error(`campaign ${ref.campaignId} or its contact ${ref.contactId} does not exist`);
  const recorded = await findAttempt(deps.db, ref.campaignId, ref.contactId, ref.attempt);
  if (recorded) return placedAgain(deps, callId, recorded.line_id, campaign);
  const now = deps.now();
  if (contact.status !== 'dialing' || contact.attempts !== ref.attempt) return { kind: 'not_dialled' };
  if (campaign.status === 'cancelled') {
    await finishContact(deps.db, contact.id, { at: now, outcome: 'cancelled', uncount: true });
    return { kind: 'not_dialled' };
  }
  if (campaign.status === 'paused') {
    await returnContact(deps.db, contact.id, { at: now, until: now, uncount: true });
    return { kind: 'not_dialled' };
  }
  // Only the pool's lines without a call now are tried (a busy one would refuse, after the preflight's work), each
  // contact starting at a different one of them, so that the attempts of one step rarely meet on a line.
  const busyLines = await linesWithActiveCalls(deps.db, campaign.line_ids);
  const pool = campaign.line_ids.filter((lineId) => !busyLines.has(lineId));
  let busy = busyLines.size > 0;
  for (let i = 0; i < pool.length; i += 1) {
    const lineId = pool[(contact.row_number + i) % pool.length];
    try {
      const { input } = await recordCall(deps, actorOf(campaign), callRequest(campaign, contact, lineId), {
        callId,
        withinRecording: (trx) =>
          insertAttempt(trx, {
            campaign_id: ref.campaignId,
            contact_id: ref.contactId,
            attempt: ref.attempt,
            call_id: callId,
            line_id: lineId,
            created_at: now,
          }),
      });
      return { kind: 'placed', callId, call: input };
    } catch (err) {
      if (!(err instanceof OutboundRefusedError)) throw err;
      const reading = readRefusal(err.refusal);
      if (reading.kind === 'next_line') {
        busy ||= reading.busy;
        continue;
      }
      if (reading.kind === 'wait') {
        // Not an attempt: the dispatcher's durable timer wakes the contact when its window opens.
        await returnContact(deps.db, contact.id, { at: now, until: reading.until, uncount: true });
        return { kind: 'not_dialled' };
      }
      if (reading.kind === 'skip') {
        const event = await deps.db.transaction(async (trx) => {
          const done = await finishContact(trx, contact.id, { at: now, outcome: 'skipped', skipReason: reading.reason, uncount: true });
          return done ? recordContactCompleted(trx, campaign, done, now) : null;
        });
        await publishCampaignEvents({ ...deps.publish, log: deps.log }, [event]);
        deps.log.info({ campaign_id: campaign.id, contact_id: contact.id, reason: reading.reason }, 'campaign contact skipped');
        return { kind: 'not_dialled' };
      }
      await pauseItself(deps, campaign, contact, reading.reason, reading.hold);
      return { kind: 'not_dialled' };
    }
  }
  if (busy) {
    // The line's one active call is another's (a campaign sharing it, an API call): wait for it, not an outcome.
    await returnContact(deps.db, contact.id, { at: now, until: new Date(now.getTime() + LINE_BUSY_RETRY_MS), uncount: true });
    return { kind: 'not_dialled' };
  }
  await pauseItself(deps, campaign, contact, 'line_unavailable');
  return { kind: 'not_dialled' };
}

/**
 * The campaign pauses itself (its `campaign.paused` recorded with the change). Paused for the balance,
 * it wakes the account's auto-charge as a refused `POST /calls` does (api/billingErrors.ts); the
 * dispatcher resumes it when a reservation of what this one asked for would be granted again.
 */
async function pauseItself(
  deps: AttemptDeps,
  campaign: CampaignRow,
  contact: ContactRow,
  reason: PausedReason,
  hold?: HoldRefusal,
): Promise<void> {
  const now = deps.now();
  const event = await deps.db.transaction(async (trx) => {
    await returnContact(trx, contact.id, { at: now, until: now, uncount: true });
    const current = await lockCampaign(trx, campaign.id);
    if (current?.status !== 'running') return null;
    const change = { status: 'paused' as const, pausedReason: reason, pausedNeedCents: hold?.requiredCents ?? null, at: now };
    return (await changeCampaignStatus(trx, current, change)).event;
  });
  deps.log.warn({ campaign_id: campaign.id, reason }, 'campaign paused itself');
  await publishCampaignEvents({ ...deps.publish, log: deps.log }, [event]);
  if (reason === 'insufficient_credits')
    await wakeAutoChargeIfNeeded(deps.db, deps.temporal, deps.config.taskQueue, {
      workspaceId: campaign.workspace_id,
      environment: campaign.environment,
    }).catch((err: unknown) => deps.log.error({ err, campaign_id: campaign.id }, 'could not wake auto-charge'));
}

async function placedAgain(deps: LoggedUseCaseDeps, callId: string, lineId: string, campaign: CampaignRow): Promise<AttemptStart> {
  const [row, line] = await Promise.all([findCallById(deps.db, callId), findLineById(deps.db, lineId)]);
  if (!row || !line) throw new Error(`attempt call ${callId} was recorded without its call or line`);
  return { kind: 'placed', callId, call: await callInputOf(deps.db, row, line, machineOptions(campaign)) };
}

/**
 * An attempt's call has ended (its workflow returned, or failed): its outcome, duration and charge
 * go to the contact, which is then done or waits for its retry. Run again, it changes nothing.
 * `machineKind`: the call's workflow hung up on a fax (rules.ts `attemptOutcome`).
 */
export async function settleAttempt(deps: AttemptDeps, ref: AttemptRef, machineKind?: MachineKind): Promise<void> {
  const callId = attemptCallId(ref.campaignId, ref.contactId, ref.attempt);
  const [call, campaign] = await Promise.all([findCallById(deps.db, callId), findCampaignById(deps.db, ref.campaignId)]);
  if (!call || !campaign) throw new Error(`attempt call ${callId} or its campaign is missing`);
  const outcome = attemptOutcome(call, campaign.answering_machine, machineKind);
  const now = deps.now();
  const event = await deps.db.transaction(async (trx) => {
    const settled = await settleAttemptRow(trx, {
      callId,
      contactId: ref.contactId,
      outcome,
      durationSec: call.duration_sec ?? 0,
      chargeCents: Number(call.charge_cents ?? 0),
      at: now,
    });
    if (!settled) return null;
    const retryAt =
      campaign.status === 'cancelled'
        ? null
        : nextAttemptAt(
            { maxAttempts: campaign.max_attempts, backoffSec: campaign.retry_backoff_sec, retryOn: campaign.retry_on },
            ref.attempt,
            outcome,
            now,
          );
    if (retryAt) {
      await returnContact(trx, ref.contactId, { at: now, until: retryAt, uncount: false });
      return null;
    }
    const done = await finishContact(trx, ref.contactId, { at: now, outcome });
    return done ? recordContactCompleted(trx, campaign, done, now) : null;
  });
  // Attempted before the attempt wakes the dispatcher: a receiver hears of the last contact before the campaign's end.
  await publishCampaignEvents({ ...deps.publish, log: deps.log }, [event]);
}

/**
 * A campaign's call started by its dispatcher has ended (its own workflow says so, workflows/calls/workflow.ts): the
 * attempt is settled, then the campaign woken (a slot is free, a retry may be due). Run again, it settles nothing more.
 */
export async function settleCampaignCall(deps: AttemptDeps, ref: AttemptRef & { machineKind?: MachineKind }): Promise<void> {
  await settleAttempt(deps, ref, ref.machineKind);
  await wakeCampaign(deps.temporal, ref.campaignId);
}
