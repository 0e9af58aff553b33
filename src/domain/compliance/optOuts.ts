/**
 * Numbers that asked not to be contacted, per workspace and environment (STOP keywords, the
 * operator CLI). Calls and SMS to them are refused with `number_opted_out` until they opt in.
 */
import type { Knex } from 'knex';
import { attributionMetadata, recordComplianceEvent, type PortalAttribution } from './events';

interface Tenant {
  workspaceId: string;
  environment: 'test' | 'live';
}

export interface OptOutRow {
  phone_number: string;
  source: string;
  opted_out_at: Date;
}

/** The tenant's opted-out numbers (the caller orders and pages them). */
export function optOutsOf(db: Knex | Knex.Transaction, tenant: Tenant) {
  return db('opt_outs')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment })
    .select<OptOutRow[]>('phone_number', 'source', 'opted_out_at');
}

/**
 * Whether the tenant's number `:to` opted out, as an SQL condition with named bindings `:workspace`, `:environment` and
 * `:to`: `isOptedOut` asks it, and so does the SMS preflight's one statement (../messages/store.ts `smsLineAndDestination`).
 */
export const OPTED_OUT_SQL = `exists (select 1 from opt_outs where workspace_id = :workspace and environment = :environment and phone_number = :to)`;

export async function isOptedOut(db: Knex | Knex.Transaction, tenant: Tenant, phoneNumber: string): Promise<boolean> {
  const { rows } = await db.raw(`select ${OPTED_OUT_SQL} as opted_out`, {
    workspace: tenant.workspaceId,
    environment: tenant.environment,
    to: phoneNumber,
  });
  return (rows as Array<{ opted_out: boolean }>)[0].opted_out;
}

/** Where an opt-out came from: a STOP keyword texted to a line, the portal, or the operator CLI. */
export const OPT_OUT_SOURCES = ['sms_keyword', 'portal', 'operator'] as const;
export type OptOutSource = (typeof OPT_OUT_SOURCES)[number];

interface OptChange {
  tenant: Tenant;
  phoneNumber: string;
  source: OptOutSource;
  lineId?: string | null;
  actorKeyId?: string | null;
  /** The portal user who made it (L21). */
  by?: PortalAttribution;
  at: Date;
}

/** Longest reason an operator may give for removing an opt-out. */
export const OPT_IN_REASON_MAX_LENGTH = 500;

/** Returns false when the number had already opted out (nothing recorded twice). */
export async function optOut(db: Knex, input: OptChange): Promise<boolean> {
  return db.transaction(async (trx) => {
    const inserted = await trx('opt_outs')
      .insert({
        workspace_id: input.tenant.workspaceId,
        environment: input.tenant.environment,
        phone_number: input.phoneNumber,
        source: input.source,
        opted_out_at: input.at,
      })
      .onConflict(['workspace_id', 'environment', 'phone_number'])
      .ignore()
      .returning('phone_number');
    if (inserted.length === 0) return false;
    await recordOptChange(trx, 'opt_out', input);
    return true;
  });
}

/**
 * Returns false when the number was not opted out. `reason`: why an operator removed it (the
 * portal requires one; the recipient's own START needs none), kept on the `opt_in` event.
 */
export async function optIn(db: Knex, input: OptChange & { reason?: string }): Promise<boolean> {
  return db.transaction(async (trx) => {
    const removed = await trx('opt_outs')
      .where({ workspace_id: input.tenant.workspaceId, environment: input.tenant.environment, phone_number: input.phoneNumber })
      .del();
    if (removed === 0) return false;
    await recordOptChange(trx, 'opt_in', input, input.reason ? { reason: input.reason } : {});
    return true;
  });
}

/** The compliance event of an opt-out or opt-in, in the transaction that made the change. */
function recordOptChange(trx: Knex.Transaction, eventType: 'opt_out' | 'opt_in', input: OptChange, details: Record<string, string> = {}) {
  return recordComplianceEvent(trx, {
    workspaceId: input.tenant.workspaceId,
    environment: input.tenant.environment,
    eventType,
    actorKeyId: input.actorKeyId ?? null,
    lineId: input.lineId ?? null,
    phoneNumber: input.phoneNumber,
    metadata: { source: input.source, ...details, ...attributionMetadata(input.by) },
    at: input.at,
  });
}
