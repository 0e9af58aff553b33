import type { Knex } from 'knex';
import { recordComplianceEvent } from '../compliance/events';
import type { Db } from '../db/knex';
import { grantExcess, type Grant, type GrantExcess } from './grants';
import type { Scope } from './scopes';
import { insertKey, type ApiKeyRow } from './store';

/** Scoped-key delegation (`/api-tokens`): a `keys:admin` key mints children within its own grant. */
export function grantOf(row: ApiKeyRow): Grant {
  return {
    scopes: row.scopes as Scope[],
    numbers: row.grant_numbers,
    spendLimit: row.spend_limit_cents === null ? null : { amountCents: Number(row.spend_limit_cents), resetPeriod: row.spend_reset_period },
  };
}

export function toScopedTokenRecord(row: ApiKeyRow) {
  const grant = grantOf(row);
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    environment: row.environment,
    grant: {
      scopes: grant.scopes,
      ...(grant.numbers ? { resources: { numbers: grant.numbers } } : {}),
      spendLimit: grant.spendLimit,
    },
    parent_key_id: row.parent_key_id,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    last_used_at: row.last_used_at ? row.last_used_at.toISOString() : null,
  };
}

/** Keys managed through `/api-tokens`: the workspace's regular (non-agent, non-service) keys in one environment. */
export function scopedTokensOf(db: Db | Knex.Transaction, tenant: { workspaceId: string; environment: 'test' | 'live' }) {
  return db<ApiKeyRow>('api_keys')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment, kind: 'standard' })
    .whereNull('created_by_service_key_id');
}

export async function mintScopedToken(
  trx: Knex.Transaction,
  input: { parent: ApiKeyRow; name: string; grant: Grant; now: Date },
): Promise<{ ok: true; row: ApiKeyRow; plaintext: string } | { ok: false; excess: GrantExcess[] }> {
  const excess = grantExcess(grantOf(input.parent), input.grant);
  if (excess.length > 0) return { ok: false, excess };
  const minted = await insertKey(trx, {
    workspaceId: input.parent.workspace_id,
    userId: input.parent.user_id,
    environment: input.parent.environment,
    kind: 'standard',
    name: input.name,
    scopes: input.grant.scopes,
    grantNumbers: input.grant.numbers,
    spendLimitCents: input.grant.spendLimit?.amountCents ?? null,
    spendResetPeriod: input.grant.spendLimit?.resetPeriod ?? null,
    parentKeyId: input.parent.id,
    createdAt: input.now,
  });
  await recordComplianceEvent(trx, {
    workspaceId: minted.row.workspace_id,
    environment: minted.row.environment,
    eventType: 'scoped_key_minted',
    actorKeyId: input.parent.id,
    metadata: { key_id: minted.row.id, key_prefix: minted.row.key_prefix, scopes: input.grant.scopes },
    at: input.now,
  });
  return { ok: true, ...minted };
}

export async function revokeScopedToken(trx: Knex.Transaction, input: { target: ApiKeyRow; actor: ApiKeyRow; now: Date }): Promise<ApiKeyRow> {
  if (input.target.revoked_at) return input.target;
  const [row] = await trx<ApiKeyRow>('api_keys').where({ id: input.target.id }).update({ revoked_at: input.now }).returning('*');
  await recordComplianceEvent(trx, {
    workspaceId: row.workspace_id,
    environment: row.environment,
    eventType: 'scoped_key_revoked',
    actorKeyId: input.actor.id,
    metadata: { key_id: row.id, key_prefix: row.key_prefix },
    at: input.now,
  });
  return row;
}
