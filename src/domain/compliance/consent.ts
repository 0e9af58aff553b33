/**
 * Consent per (line, phone number): `implied_inbound` (the person contacted the line) or
 * `explicit_outbound` (they agreed to be contacted). One active grant per type; revoking keeps
 * the record. Calls on lines with `compliance_enabled` and outbound SMS outside the 24-hour
 * window need an active `explicit_outbound` consent.
 */
import type { Knex } from 'knex';
import { preparedStatement } from '../../platform/db/prepared';
import { attributionMetadata, recordComplianceEvent, type PortalAttribution } from './events';

export const CONSENT_TYPES = ['implied_inbound', 'explicit_outbound'] as const;
export type ConsentType = (typeof CONSENT_TYPES)[number];
/** The longest `source` a consent records (where it was given), for the API and the portal. */
export const CONSENT_SOURCE_MAX_LENGTH = 200;

export interface ConsentRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  line_id: string;
  phone_number: string;
  consent_type: ConsentType;
  source: string;
  status: 'active' | 'revoked';
  actor_key_id: string | null;
  granted_at: Date;
  revoked_at: Date | null;
}

export function toConsentRecord(row: ConsentRow) {
  return {
    id: row.id,
    phone_number: row.phone_number,
    line_id: row.line_id,
    consent_type: row.consent_type,
    source: row.source,
    status: row.status,
    granted_at: row.granted_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

interface Tenant {
  workspaceId: string;
  environment: 'test' | 'live';
}

export function consentsOf(db: Knex | Knex.Transaction, tenant: Tenant) {
  return db<ConsentRow>('consents').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}

/** The grant and its audit event, prepared once per connection (`POST /consent`'s one write). */
const grantStatement = preparedStatement(
  'consent_grant',
  `with granted as (
       insert into consents (workspace_id, environment, line_id, phone_number, consent_type, source, status, actor_key_id, granted_at)
       values (?, ?, ?, ?, ?, ?, 'active', ?, ?)
       on conflict (line_id, phone_number, consent_type) where status = 'active' do nothing
       returning *
     ), audited as (
       insert into compliance_events (workspace_id, environment, event_type, actor_key_id, line_id, phone_number, metadata, created_at)
       select workspace_id, environment, 'consent_granted', actor_key_id, line_id, phone_number,
              jsonb_build_object('consent_id', id, 'consent_type', consent_type, 'source', source) || ?::jsonb, granted_at
         from granted
     )
     select * from granted`,
);

/** Grants consent; `undefined` when an active grant of that type already exists. */
export async function grantConsent(
  db: Knex,
  input: {
    tenant: Tenant;
    lineId: string;
    phoneNumber: string;
    consentType: ConsentType;
    source: string;
    actorKeyId: string | null;
    /** The portal user who granted it (L21). */
    by?: PortalAttribution;
    at: Date;
  },
): Promise<ConsentRow | undefined> {
  // The grant and its audit event in one statement: atomic without a transaction, one round trip.
  const rows = await grantStatement<ConsentRow>(db, [
    input.tenant.workspaceId,
    input.tenant.environment,
    input.lineId,
    input.phoneNumber,
    input.consentType,
    input.source,
    input.actorKeyId,
    input.at,
    JSON.stringify(attributionMetadata(input.by)),
  ]);
  return rows[0];
}

/** Revokes the active consents matching the selectors; returns them (empty when none was active). */
export async function revokeConsents(
  db: Knex,
  input: {
    tenant: Tenant;
    phoneNumber: string;
    lineIds?: readonly string[];
    actorKeyId: string | null;
    by?: PortalAttribution;
    at: Date;
  },
): Promise<ConsentRow[]> {
  return db.transaction(async (trx) => {
    const query = consentsOf(trx, input.tenant).andWhere({ phone_number: input.phoneNumber, status: 'active' });
    if (input.lineIds) query.whereIn('line_id', [...input.lineIds]);
    const rows = await query.update({ status: 'revoked', revoked_at: input.at }).returning('*');
    for (const row of rows) {
      await recordComplianceEvent(trx, {
        workspaceId: input.tenant.workspaceId,
        environment: input.tenant.environment,
        eventType: 'consent_revoked',
        actorKeyId: input.actorKeyId,
        lineId: row.line_id,
        phoneNumber: row.phone_number,
        metadata: { consent_id: row.id, consent_type: row.consent_type, ...attributionMetadata(input.by) },
        at: input.at,
      });
    }
    return rows;
  });
}

/**
 * The active consent of a type for (line, number), newest grant first, as a query with named bindings `:workspace`,
 * `:environment`, `:line`, `:to` and `:consent_type`: `activeConsent` runs it, and the SMS preflight's one statement
 * reads it (../messages/store.ts `smsLineAndDestination`).
 */
export const ACTIVE_CONSENT_SQL = `select * from consents
   where workspace_id = :workspace and environment = :environment and line_id = :line and phone_number = :to
     and status = 'active' and consent_type = :consent_type
   order by granted_at desc limit 1`;

/** The active consent of a type for (line, number), if any. */
export async function activeConsent(
  db: Knex | Knex.Transaction,
  tenant: Tenant,
  lineId: string,
  phoneNumber: string,
  consentType: ConsentType,
): Promise<ConsentRow | undefined> {
  const { rows } = await db.raw(ACTIVE_CONSENT_SQL, {
    workspace: tenant.workspaceId,
    environment: tenant.environment,
    line: lineId,
    to: phoneNumber,
    consent_type: consentType,
  });
  return (rows as ConsentRow[])[0];
}
