import { CALL_DIRECTIONS, CALL_STATUSES, END_CAUSES } from '../../src/domain/calls/rules';
import { TRANSACTION_TYPES } from '../../src/domain/billing/ledger';
import type { TimelineWords } from '../../src/domain/calls/timeline';
import { COMPLIANCE_EVENTS, KEY_LIFECYCLE_EVENTS, OAUTH_EVENTS } from '../../src/domain/compliance/events';
import {
  ANSWERING_MACHINE_ACTIONS,
  CAMPAIGN_STATUSES,
  CONTACT_OUTCOMES,
  CONTACT_STATUSES,
  PAUSED_REASONS,
  SKIP_REASONS,
} from '../../src/domain/campaigns/rules';
import { CONSENT_TYPES } from '../../src/domain/compliance/consent';
import { OPT_OUT_SOURCES } from '../../src/domain/compliance/optOuts';
import type { Environment } from '../../src/domain/keys/format';
import { ROLES } from '../../src/domain/keys/scopes';
import { NUMBER_TYPES } from '../../src/domain/lines/numberChoice';
import { LANGUAGES, LINE_MODES, LINE_STATUSES } from '../../src/domain/lines/rules';
import { MESSAGE_STATUSES } from '../../src/domain/messages/rules';
import { EVENT_TYPES } from '../../src/domain/webhooks/events';
import { COPY_FAILURE_REASONS, RECORDING_STORAGE_STATES } from '../../src/domain/recordings/rules';

/**
 * Every vocabulary the portal shows a person, as that person reads it (issue 30, item 7): one mapping per vocabulary,
 * keyed by the domain's own list of values, so that a value added to the domain does not compile until it has words
 * here (test/unit/portalLabels.test.ts also checks that each label is words, not the value). The raw value stays in
 * the markup (`data-*`, `title`) for operators matching the page to the API.
 */

/** The colour family of a badge; its label says the same in words, so colour is never the only cue. */
export type Tone = 'ok' | 'active' | 'warn' | 'bad' | 'neutral';

export interface StateWords {
  label: string;
  tone: Tone;
}

/** How a value reads: its words, or its words with more (a badge's tone, a mode's meaning). */
export type Words = string | { label: string };

/** A vocabulary: the values of a domain list, each with its words. */
export type Vocabulary<Value extends string, Words = string> = Readonly<Record<Value, Words>>;

export const CALL_STATUS_LABELS: Vocabulary<(typeof CALL_STATUSES)[number], StateWords> = {
  initiated: { label: 'Dialling', tone: 'active' },
  ringing: { label: 'Ringing', tone: 'active' },
  in_progress: { label: 'In progress', tone: 'active' },
  completed: { label: 'Completed', tone: 'ok' },
  failed: { label: 'Failed', tone: 'bad' },
  no_answer: { label: 'No answer', tone: 'warn' },
  busy: { label: 'Busy', tone: 'warn' },
  canceled: { label: 'Canceled', tone: 'neutral' },
};

export const CALL_DIRECTION_LABELS: Vocabulary<(typeof CALL_DIRECTIONS)[number], StateWords> = {
  inbound: { label: 'Inbound', tone: 'neutral' },
  outbound: { label: 'Outbound', tone: 'neutral' },
};

/** Why a call ended (END_CAUSES), as the call's page and its timeline say it. */
export const END_CAUSE_LABELS: Vocabulary<(typeof END_CAUSES)[number], StateWords> = {
  caller_hangup: { label: 'Caller hung up', tone: 'neutral' },
  api_hangup: { label: 'Hung up by the API or portal', tone: 'neutral' },
  agent_hangup: { label: 'Agent hung up', tone: 'neutral' },
  max_duration: { label: 'Reached the maximum length', tone: 'warn' },
  insufficient_funds: { label: 'Balance ran out', tone: 'bad' },
  busy: { label: 'Busy', tone: 'warn' },
  no_answer: { label: 'No answer', tone: 'warn' },
  ring_timeout: { label: 'Not answered in time', tone: 'warn' },
  carrier_failed: { label: 'Carrier failed', tone: 'bad' },
  canceled: { label: 'Canceled', tone: 'neutral' },
  audio_handler_closed: { label: 'Audio handler closed', tone: 'warn' },
  audio_handler_unavailable: { label: 'Audio handler unreachable', tone: 'bad' },
  service_error: { label: 'Service error (ended by recovery)', tone: 'bad' },
  transferred: { label: 'Transferred', tone: 'neutral' },
  line_busy: { label: 'Line busy (missed)', tone: 'warn' },
  answering_machine: { label: 'Answering machine (campaign hung up)', tone: 'neutral' },
};

export const LINE_STATUS_LABELS: Vocabulary<(typeof LINE_STATUSES)[number], StateWords> = {
  provisioning: { label: 'Getting a number', tone: 'active' },
  active: { label: 'Active', tone: 'ok' },
  suspended: { label: 'Suspended', tone: 'warn' },
  released: { label: 'Released', tone: 'neutral' },
};

/** A key's or a consent's state (api/portal/pages/apiKeys.ts `keyState`, consents' `status`). */
export const GRANT_STATES = ['active', 'revoked', 'expired'] as const;
export const GRANT_STATE_LABELS: Vocabulary<(typeof GRANT_STATES)[number], StateWords> = {
  active: { label: 'Active', tone: 'ok' },
  revoked: { label: 'Revoked', tone: 'neutral' },
  expired: { label: 'Expired', tone: 'neutral' },
};

/** A webhook delivery attempt's status (the `status` of GET /api/v1/webhooks/deliveries). */
export const DELIVERY_STATUSES = ['success', 'failed', 'pending'] as const;
export const DELIVERY_STATUS_LABELS: Vocabulary<(typeof DELIVERY_STATUSES)[number], StateWords> = {
  success: { label: 'Delivered', tone: 'ok' },
  failed: { label: 'Failed', tone: 'bad' },
  pending: { label: 'Pending', tone: 'active' },
};

/** Where a call's copy into the operator's store stands (`recording_storage.state`, issue 32). */
export const RECORDING_STORAGE_LABELS: Vocabulary<(typeof RECORDING_STORAGE_STATES)[number], StateWords> = {
  none: { label: 'Nothing to store', tone: 'neutral' },
  pending: { label: 'Pending', tone: 'active' },
  retrying: { label: 'Retrying', tone: 'warn' },
  failed: { label: 'Failed', tone: 'bad' },
  stored: { label: 'Stored', tone: 'ok' },
  deleted: { label: 'Deleted by the retention', tone: 'neutral' },
};

/** Why the copy into the operator's store failed (`recording_storage.last_failure.reason`, the metric's `reason`). */
export const COPY_FAILURE_REASON_LABELS: Vocabulary<(typeof COPY_FAILURE_REASONS)[number]> = {
  store_unavailable: 'The store is unreachable or not answering',
  credentials_refused: 'The store refuses the credentials',
  checksum_mismatch: 'The store holds other bytes than were written',
  carrier_unavailable: 'The carrier’s recording could not be fetched',
  carrier_refused: 'The carrier refused to hand over the recording',
  store_refused: 'The store refused the request',
  error: 'An unexpected error',
};

export const MESSAGE_STATUS_LABELS: Vocabulary<(typeof MESSAGE_STATUSES)[number], StateWords> = {
  queued: { label: 'Queued', tone: 'active' },
  sent: { label: 'Sent', tone: 'ok' },
  delivered: { label: 'Delivered', tone: 'ok' },
  failed: { label: 'Failed', tone: 'bad' },
  undelivered: { label: 'Not delivered', tone: 'bad' },
  received: { label: 'Received', tone: 'ok' },
};

export const CONSENT_TYPE_LABELS: Vocabulary<(typeof CONSENT_TYPES)[number], StateWords> = {
  explicit_outbound: { label: 'Explicit (for outbound calls and texts)', tone: 'neutral' },
  implied_inbound: { label: 'Implied (they contacted the line)', tone: 'neutral' },
};

/** Where an opt-out came from (the compliance page's opt-outs, an `opt_out` event's `source`). */
export const OPT_OUT_SOURCE_LABELS: Vocabulary<(typeof OPT_OUT_SOURCES)[number]> = {
  sms_keyword: 'Texted STOP',
  portal: 'Added in the portal',
  operator: 'Added by an operator (CLI)',
};

/** A line's mode: its name, and what it means (the create form's choices). */
export const LINE_MODE_LABELS: Vocabulary<(typeof LINE_MODES)[number], { label: string; meaning: string }> = {
  hosted: { label: 'Hosted', meaning: "Switchboard's model answers with your prompt" },
  webhook: { label: 'Webhook', meaning: 'your server answers each turn' },
  audio: { label: 'Audio', meaning: "your handler gets the call's audio (WebSocket)" },
  agent: { label: 'Agent', meaning: 'your agent drives each call through the API or MCP (speak, wait)' },
};

export const NUMBER_TYPE_LABELS: Vocabulary<(typeof NUMBER_TYPES)[number]> = {
  local: 'Local',
  toll_free: 'Toll-free',
  mobile: 'Mobile',
};

export const ROLE_LABELS: Vocabulary<(typeof ROLES)[number]> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
};

/** Who spoke a transcript entry (src/domain/calls/store.ts `TranscriptEntry.role`). */
export const SPEAKERS = ['user', 'assistant'] as const;
export const SPEAKER_LABELS: Vocabulary<(typeof SPEAKERS)[number]> = {
  user: 'Caller',
  assistant: 'Agent',
};

/** Webhook event types (the event catalogue, src/domain/webhooks/events.ts). */
export const EVENT_TYPE_LABELS: Vocabulary<(typeof EVENT_TYPES)[number]> = {
  call_started: 'Call started',
  call_ended: 'Call ended',
  call_transferred: 'Call transferred',
  interrupted: 'Caller interrupted the agent',
  call_missed: 'Call missed (line busy)',
  tool_called: 'Tool called',
  sms_received: 'SMS received',
  message: "Caller's turn (message)",
  call_incoming: 'Incoming call (status callback)',
  call_outgoing: 'Outgoing call (status callback)',
  'campaign.started': 'Campaign started',
  'campaign.paused': 'Campaign paused',
  'campaign.resumed': 'Campaign resumed',
  'campaign.completed': 'Campaign completed',
  'campaign.cancelled': 'Campaign cancelled',
  'campaign.contact_completed': 'Campaign contact done',
  test: 'Test event',
};

type ComplianceEventType = (typeof COMPLIANCE_EVENTS)[number] | (typeof KEY_LIFECYCLE_EVENTS)[number] | (typeof OAUTH_EVENTS)[number];

/** Compliance event types (the audit log's second source, spec "Compliance audit"). */
export const COMPLIANCE_EVENT_LABELS: Vocabulary<ComplianceEventType> = {
  consent_granted: 'Consent recorded',
  consent_revoked: 'Consent revoked',
  opt_out: 'Opted out',
  opt_in: 'Opted back in',
  disclosure_played: 'AI disclosure played',
  audit_read: 'Audit log read',
  sms_sent: 'SMS sent',
  settings_changed: 'Compliance settings changed',
  disclosure_default_changed: 'Default AI disclosure changed',
  legal_hold_placed: 'Legal hold placed',
  legal_hold_released: 'Legal hold released',
  call_objects_deleted: 'Recording deleted (retention)',
  contact_list_deleted: 'Contact list deleted',
  agent_key_minted: 'Agent key minted',
  agent_key_updated: 'Agent key changed',
  agent_key_rotated: 'Agent key rotated',
  agent_key_revoked: 'Agent key revoked',
  agent_key_permission_denied: 'Agent key refused (no permission)',
  scoped_key_minted: 'API key minted',
  scoped_key_revoked: 'API key revoked',
  scoped_key_updated: 'API key changed',
  service_key_created: 'Service key minted',
  service_key_revoked: 'Service key revoked',
  oauth_client_authorized: 'MCP client authorised',
  oauth_token_used: 'MCP client token used',
  oauth_grant_revoked: 'MCP client access revoked',
};

/** Ledger transaction types (the billing page's transactions). */
export const TRANSACTION_TYPE_LABELS: Vocabulary<(typeof TRANSACTION_TYPES)[number]> = {
  signup_credit: 'Signup credit',
  credit_purchase: 'Credit bought',
  call_charge: 'Call',
  number_fee: 'Number fee',
  refund: 'Refund',
  auto_recharge: 'Auto-charge',
  sms_charge: 'Text message',
  postpaid_flush: 'Postpaid usage billed',
  tier_grant: 'Plan credit',
  number_fee_topup: 'Number fee top-up',
  card_refund: 'Card refund',
  card_refund_failure: 'Card refund failed',
  card_dispute: 'Card dispute',
  card_dispute_reversal: 'Card dispute reversed',
};

/** A campaign's status (issue 31): a badge; `completed` reads as a call's does. */
export const CAMPAIGN_STATUS_LABELS: Vocabulary<(typeof CAMPAIGN_STATUSES)[number], StateWords> = {
  scheduled: { label: 'Scheduled', tone: 'neutral' },
  running: { label: 'Running', tone: 'active' },
  paused: { label: 'Paused', tone: 'warn' },
  completed: { label: 'Completed', tone: 'ok' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};

/** Where a campaign's contact stands: waiting (its first call or a retry), on a call now, or finished. */
export const CONTACT_STATUS_LABELS: Vocabulary<(typeof CONTACT_STATUSES)[number], StateWords> = {
  pending: { label: 'Pending', tone: 'active' },
  dialing: { label: 'On a call', tone: 'active' },
  done: { label: 'Done', tone: 'ok' },
};

/** What a campaign's contact came to (its last attempt's outcome, or why it was never called); `busy`, `no_answer` and `failed` read as a call's status. */
export const CONTACT_OUTCOME_LABELS: Vocabulary<(typeof CONTACT_OUTCOMES)[number], StateWords> = {
  answered: { label: 'Answered', tone: 'ok' },
  voicemail: { label: 'Voicemail left', tone: 'ok' },
  machine: { label: 'Answering machine', tone: 'neutral' },
  busy: { label: 'Busy', tone: 'warn' },
  no_answer: { label: 'No answer', tone: 'warn' },
  failed: { label: 'Failed', tone: 'bad' },
  skipped: { label: 'Skipped', tone: 'neutral' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};

/** Why a campaign's contact was skipped (recorded, never fatal to the campaign). */
export const SKIP_REASON_LABELS: Vocabulary<(typeof SKIP_REASONS)[number]> = {
  invalid_number: 'Not a phone number',
  duplicate_number: 'Number already earlier in the list',
  invalid_variables: 'Its variables do not fit the texts',
  opted_out: 'Opted out',
  consent_required: 'No recorded consent',
  fraud_blocked: 'Blocked as a fraud risk',
  calling_window_never_opens: 'Calling hours never open for this number',
};

/** Why a campaign paused itself (an operator's pause has no reason). */
export const PAUSED_REASON_LABELS: Vocabulary<(typeof PAUSED_REASONS)[number]> = {
  insufficient_credits: 'The balance ran out',
  agent_cap_exceeded: "The creating key's monthly spend cap is reached",
  line_unavailable: 'No line of its pool can place calls',
};

/** What a campaign's calls do when a machine answers (`answering_machine.action`). */
export const ANSWERING_MACHINE_LABELS: Vocabulary<(typeof ANSWERING_MACHINE_ACTIONS)[number]> = {
  hang_up: 'Hang up',
  voicemail: 'Leave a voicemail message',
};

/** The two environments of a workspace (src/domain/keys/format.ts `Environment`). */
export const ENVIRONMENTS = ['test', 'live'] as const satisfies readonly Environment[];
export const ENVIRONMENT_LABELS: Vocabulary<Environment> = { test: 'Test', live: 'Live' };

/** Language names in English, from the platform's own CLDR data; `multi` is the per-call detection. */
const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
export const LANGUAGE_LABELS: Vocabulary<(typeof LANGUAGES)[number]> = Object.fromEntries(
  LANGUAGES.map((language) => [language, language === 'multi' ? 'Detected per call (multilingual)' : languageNames.of(language)!]),
) as Record<(typeof LANGUAGES)[number], string>;

/** The words of `value` in `vocabulary`; a value it does not list (a stored value since retired) reads as words too. */
export function labelOf(vocabulary: Readonly<Record<string, Words>>, value: string): string {
  const words = Object.prototype.hasOwnProperty.call(vocabulary, value) ? vocabulary[value] : undefined;
  if (words !== undefined) return typeof words === 'string' ? words : words.label;
  return asWords(value);
}

/** `some_value` as `Some value`: only for a value no vocabulary lists. */
export function asWords(value: string): string {
  const words = value.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Recorded fields whose values are a vocabulary's (the audit log's details: `mode: Webhook`, not `mode: webhook`). */
export const FIELD_VOCABULARIES: Readonly<Record<string, Readonly<Record<string, Words>>>> = {
  mode: LINE_MODE_LABELS,
  role: ROLE_LABELS,
  consent_type: CONSENT_TYPE_LABELS,
  number_type: NUMBER_TYPE_LABELS,
  language: LANGUAGE_LABELS,
  event_type: EVENT_TYPE_LABELS,
  // An opt-out's `source`; a consent's is free text, shown as typed unless it spells one of these.
  source: OPT_OUT_SOURCE_LABELS,
};

/**
 * The vocabularies a badge shows (`stateBadge` takes a bare value): one value means one thing wherever it appears
 * (`failed` is Failed for a call, a delivery and a text), which test/unit/portalLabels.test.ts checks.
 */
export const BADGE_VOCABULARIES: ReadonlyArray<Readonly<Record<string, StateWords>>> = [
  CALL_STATUS_LABELS,
  CALL_DIRECTION_LABELS,
  LINE_STATUS_LABELS,
  GRANT_STATE_LABELS,
  DELIVERY_STATUS_LABELS,
  MESSAGE_STATUS_LABELS,
  CONSENT_TYPE_LABELS,
  END_CAUSE_LABELS,
  CAMPAIGN_STATUS_LABELS,
  CONTACT_STATUS_LABELS,
  CONTACT_OUTCOME_LABELS,
  RECORDING_STORAGE_LABELS,
];

export const STATE_WORDS: ReadonlyMap<string, StateWords> = new Map(BADGE_VOCABULARIES.flatMap((vocabulary) => Object.entries(vocabulary)));

/** The words a call's timeline tells its story in (src/domain/calls/timeline.ts). */
export const TIMELINE_WORDS: TimelineWords = {
  eventType: (type) => labelOf(EVENT_TYPE_LABELS, type),
  endCause: (cause) => labelOf(END_CAUSE_LABELS, cause),
  callStatus: (status) => labelOf(CALL_STATUS_LABELS, status),
};
