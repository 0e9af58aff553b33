import crypto from 'node:crypto';

/**
 * Campaigns' pure rules (docs/decisions/campaigns.md): their states, the limits of a campaign's
 * settings, what an attempt's call came to, and whether and when a contact is called again.
 */

export const CAMPAIGN_STATUSES = ['scheduled', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** A campaign that may still dial (or will once resumed or started). */
export const LIVE_CAMPAIGN_STATUSES: readonly CampaignStatus[] = ['scheduled', 'running', 'paused'];

/** Why a campaign paused itself (an operator's pause has no reason). */
export const PAUSED_REASONS = ['insufficient_credits', 'agent_cap_exceeded', 'line_unavailable'] as const;
export type PausedReason = (typeof PAUSED_REASONS)[number];
/** The reasons funds returning lifts: the campaign resumes by itself once a reservation would be granted again. */
export const FUNDS_PAUSED_REASONS = ['insufficient_credits', 'agent_cap_exceeded'] as const satisfies readonly PausedReason[];
/** A campaign paused for funds looks again this often, besides being woken when funds return (docs/decisions/campaigns.md). */
export const FUNDS_RECHECK_MS = 5 * 60_000;

/** A campaign's webhook events (src/domain/webhooks/events.ts): one per change of its status, and one per contact done. */
export const CAMPAIGN_EVENT_TYPES = [
  'campaign.started',
  'campaign.paused',
  'campaign.resumed',
  'campaign.completed',
  'campaign.cancelled',
  'campaign.contact_completed',
] as const;
export type CampaignEventType = (typeof CAMPAIGN_EVENT_TYPES)[number];

/** Who resumed a campaign: an operator (`POST .../resume`), or funds returning to a campaign that paused itself for them. */
export const RESUMED_BY = ['operator', 'funds_returned'] as const;
export type ResumedBy = (typeof RESUMED_BY)[number];

type StatusState = { status: CampaignStatus; paused_reason: PausedReason | null };

/**
 * The event a status change tells receivers of, null when none: a first run (`started`, also after a
 * resume before the start time), a pause (also an operator's pause of a campaign that paused
 * itself: funds no longer lift it), a resume, the end. Nothing for a change to the same state.
 */
export function transitionEvent(before: StatusState, after: StatusState): CampaignEventType | null {
  if (after.status === 'completed' || after.status === 'cancelled')
    return before.status === after.status ? null : `campaign.${after.status}`;
  if (after.status === 'paused')
    return before.status !== 'paused' || before.paused_reason !== after.paused_reason ? 'campaign.paused' : null;
  if (before.status === 'paused') return 'campaign.resumed';
  return before.status === 'scheduled' && after.status === 'running' ? 'campaign.started' : null;
}

export const CONTACT_STATUSES = ['pending', 'dialing', 'done'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

/** What an attempt's call came to, as the call's final status and who answered say. */
export const ATTEMPT_OUTCOMES = ['answered', 'voicemail', 'machine', 'busy', 'no_answer', 'failed'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];
/** The outcomes a retry policy may retry. */
export const RETRYABLE_OUTCOMES = ['busy', 'no_answer', 'failed'] as const;
export type RetryableOutcome = (typeof RETRYABLE_OUTCOMES)[number];

/** A contact's final outcome: its last attempt's, or why it was never (or no longer) dialled. */
export const CONTACT_OUTCOMES = [...ATTEMPT_OUTCOMES, 'skipped', 'cancelled'] as const;
export type ContactOutcome = (typeof CONTACT_OUTCOMES)[number];

/** Why a contact was skipped: recorded on the contact, never fatal to the campaign. */
export const SKIP_REASONS = [
  'invalid_number',
  'duplicate_number',
  'invalid_variables',
  'opted_out',
  'consent_required',
  'fraud_blocked',
  'calling_window_never_opens',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const MAX_CONTACTS = 100_000;
/** A contact's number as given (JSON `to_number`, a CSV's `phone_number`): a longer one is refused, a shorter one that is no number is skipped. */
export const MAX_TO_NUMBER_LENGTH = 64;
/** How long an uploaded contact list may be named by a campaign's creation; then it is purged (campaigns made from it keep their contacts). */
export const CONTACT_LIST_TTL_DAYS = 7;
export const MAX_POOL_LINES = 50;
export const MAX_ATTEMPTS = 10;
export const MAX_RETRY_BACKOFF_SECONDS = 7 * 24 * 3600;
export const MAX_NAME_LENGTH = 200;
export const DEFAULT_CALLS_PER_MINUTE = 60;
export const DEFAULT_MAX_ATTEMPTS = 1;
export const DEFAULT_RETRY_BACKOFF_SECONDS = 600;
/**
 * Dials per minute of one workspace and environment, over all its running campaigns: the pace a
 * campaign may ask for is what its running peers leave of it (refused at creation, 422 `calls_per_minute`).
 */
export const WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE = 600;
/** A contact whose every pool line is busy (another campaign's call, an API call) tries again after this. */
export const LINE_BUSY_RETRY_MS = 5_000;

/** The gap between two dials of a campaign at its pace. */
export function dialSpacingMs(callsPerMinute: number): number {
  return Math.ceil(60_000 / callsPerMinute);
}

/**
 * A dispatcher step that places its calls itself (./dial.ts) claims no more than it dials within this span: each call is
 * recorded, held and judged against calling hours when its step runs, so the span bounds how long a line waits on a
 * call not yet dialled.
 */
export const DIAL_STEP_SPAN_MS = 2_000;

/** How many contacts such a step claims at most, at the campaign's pace (at least one). */
export function claimsPerDialStep(callsPerMinute: number): number {
  return Math.max(1, Math.floor(DIAL_STEP_SPAN_MS / dialSpacingMs(callsPerMinute)));
}

/** What a campaign's calls do when a machine answers (null: go on as the line decides). */
export const ANSWERING_MACHINE_ACTIONS = ['hang_up', 'voicemail'] as const;
export type AnsweringMachineAction = (typeof ANSWERING_MACHINE_ACTIONS)[number];
export const MAX_VOICEMAIL_MESSAGE_LENGTH = 1_000;

/**
 * The outcome of an attempt whose call has ended: a machine's answer is `voicemail` when the campaign
 * leaves one and the call ended as it should (`answering_machine`), else `machine`. A fax (`machineKind`, said by the
 * call's workflow, which hung up on it without a message) is a `machine`.
 */
export function attemptOutcome(
  call: { status: string; answered_by: string | null; end_cause: string | null },
  onMachine: AnsweringMachineAction | null,
  machineKind?: string,
): AttemptOutcome {
  if (call.status === 'completed' && call.answered_by === 'machine')
    return onMachine === 'voicemail' && call.end_cause === 'answering_machine' && machineKind !== 'fax' ? 'voicemail' : 'machine';
  if (call.status === 'completed') return 'answered';
  if (call.status === 'busy' || call.status === 'no_answer') return call.status;
  return 'failed';
}

export interface RetryPolicy {
  maxAttempts: number;
  backoffSec: number;
  retryOn: readonly string[];
}

/** After attempt number `attempts` came to `outcome`: when to call again, or null when the contact is done. */
export function nextAttemptAt(policy: RetryPolicy, attempts: number, outcome: AttemptOutcome, at: Date): Date | null {
  if (attempts >= policy.maxAttempts || !policy.retryOn.includes(outcome)) return null;
  return new Date(at.getTime() + policy.backoffSec * 1000);
}

/**
 * The call id of a contact's attempt, derived from (campaign, contact, attempt): an attempt that
 * runs again finds its call (and its call's workflow, whose id is the call id) instead of dialling
 * twice. An RFC 4122 version 5 layout over SHA-256 of the identity (the id is a name, not a secret).
 */
export function attemptCallId(campaignId: string, contactId: string, attempt: number): string {
  const hash = crypto.createHash('sha256').update(`campaign-attempt:${campaignId}:${contactId}:${attempt}`).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A settings problem found at creation (422, the field named). */
export interface SettingsProblem {
  field: string;
  message: string;
}

/**
 * The limits the request schema cannot state: a pool line named twice, more concurrency than
 * the pool has lines (a line carries one call at a time), and a pace beyond what the workspace's
 * other running campaigns leave of its per-minute dials.
 */
export function settingsProblems(
  settings: {
    lineIds: readonly string[];
    maxConcurrency: number;
    callsPerMinute: number;
    answeringMachine?: { action: AnsweringMachineAction; voicemailMessage: string | null };
  },
  paceInUse: number,
): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const machine = settings.answeringMachine;
  if (machine && (machine.action === 'voicemail') !== (machine.voicemailMessage !== null))
    problems.push({
      field: 'answering_machine.voicemail_message',
      message: machine.action === 'voicemail' ? 'Required with action voicemail' : 'Only with action voicemail',
    });
  if (new Set(settings.lineIds).size !== settings.lineIds.length)
    problems.push({ field: 'line_ids', message: 'Each line may be named once' });
  if (settings.maxConcurrency > settings.lineIds.length)
    problems.push({
      field: 'max_concurrency',
      message: `At most the number of lines in line_ids (${settings.lineIds.length}): a line carries one call at a time`,
    });
  const left = Math.max(0, WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE - paceInUse);
  if (settings.callsPerMinute > left)
    problems.push({
      field: 'calls_per_minute',
      message: `At most ${left}: the workspace's campaigns together dial at most ${WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE} calls per minute and its other campaigns use ${paceInUse}`,
    });
  return problems;
}
