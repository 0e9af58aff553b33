/**
 * Compliance event types. The nine key-lifecycle types are the spec's "nine further
 * compliance event types" (names ours, recorded in docs/decisions/compliance.md); `audit_read` is the
 * spec's own; `scoped_key_updated` (a key narrowed when its member was demoted, issue 27) is a tenth
 * of ours. Lifecycle events are written in the same transaction as the change they record.
 */
import type { Knex } from 'knex';

export const KEY_LIFECYCLE_EVENTS = [
  'agent_key_minted',
  'agent_key_updated',
  'agent_key_rotated',
  'agent_key_revoked',
  'agent_key_permission_denied',
  'scoped_key_minted',
  'scoped_key_revoked',
  'scoped_key_updated',
  'service_key_created',
  'service_key_revoked',
] as const;
export type KeyLifecycleEvent = (typeof KEY_LIFECYCLE_EVENTS)[number];

/** Events of the compliance plane itself (consent, opt-outs, disclosures, audit reads). */
/** `sms_sent`: an outbound SMS and what allowed it (`authorization_basis`, and `consent_record_id` under consent). */
/** `settings_changed` and `disclosure_default_changed`: workspace-wide changes, with the key that made them. */
/** `legal_hold_placed`/`_released` (with the key) and `call_objects_deleted` (by the retention schedule: no key), issue 32. */
/** `contact_list_deleted`: an uploaded campaign contact list deleted before its expiry, with the key (issue 31). */
export const COMPLIANCE_EVENTS = [
  'consent_granted',
  'consent_revoked',
  'opt_out',
  'opt_in',
  'disclosure_played',
  'audit_read',
  'sms_sent',
  'settings_changed',
  'disclosure_default_changed',
  'legal_hold_placed',
  'legal_hold_released',
  'call_objects_deleted',
  'contact_list_deleted',
] as const;

/**
 * OAuth for /mcp (issue 29): a person authorised a client (the delegated key it minted), a client's
 * access token was used (each use, with the client's name), a grant was revoked (and why).
 */
export const OAUTH_EVENTS = ['oauth_client_authorized', 'oauth_token_used', 'oauth_grant_revoked'] as const;

export type ComplianceEventType = KeyLifecycleEvent | (typeof COMPLIANCE_EVENTS)[number] | (typeof OAUTH_EVENTS)[number];

/**
 * The signed-in portal user behind a change (issue 27, L21): recorded as `user_id` and `via` in
 * the metadata of every event the change causes, since no key acted (`actor_key_id` is null).
 */
export interface PortalAttribution {
  userId: string;
  via: 'portal';
}

export function attributionMetadata(by: PortalAttribution | undefined): { user_id?: string; via?: 'portal' } {
  return by ? { user_id: by.userId, via: by.via } : {};
}

export interface ComplianceEventInput {
  workspaceId: string;
  environment: 'test' | 'live';
  eventType: ComplianceEventType;
  actorKeyId: string | null;
  lineId?: string | null;
  callId?: string | null;
  phoneNumber?: string | null;
  metadata?: Record<string, unknown>;
  at: Date;
}

export async function recordComplianceEvent(db: Knex | Knex.Transaction, event: ComplianceEventInput): Promise<void> {
  await db('compliance_events').insert({
    workspace_id: event.workspaceId,
    environment: event.environment,
    event_type: event.eventType,
    actor_key_id: event.actorKeyId,
    line_id: event.lineId ?? null,
    call_id: event.callId ?? null,
    phone_number: event.phoneNumber ?? null,
    metadata: event.metadata ?? null,
    created_at: event.at,
  });
}

/** Whether a compliance event of `eventType` is recorded for the call (one recorded once per call, whatever retries happen). */
export async function isRecordedForCall(db: Knex, callId: string, eventType: ComplianceEventType): Promise<boolean> {
  return (await db('compliance_events').where({ call_id: callId, event_type: eventType }).first('id')) !== undefined;
}

/** The compliance events of a workspace in one environment (the audit reads them, newest first). */
export function complianceEventsOf(db: Knex, tenant: { workspaceId: string; environment: 'test' | 'live' }) {
  return db('compliance_events').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}
