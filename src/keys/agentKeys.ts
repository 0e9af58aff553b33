import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import { recordComplianceEvent, type KeyLifecycleEvent } from '../compliance/events';
import type { Environment } from './format';
import { ROLE_PRESETS, type Role } from './scopes';
import { DEFAULT_TIER, TIER_SCOPES, type SettableTier } from './tiers';
import { insertKey, type ApiKeyRow } from './store';

/**
 * Agent keys: the child keys of the service-key plane (`/v1/keys`) and of the older
 * `/api/v1/auth/keys`. An agent key belongs to the service key's user and environment,
 * carries a permission tier, an optional line binding, label and monthly cap.
 */
export const AGENT_LABEL_PATTERN = '^[a-z0-9][a-z0-9:_.-]{0,127}$';

export interface AgentKeyFields {
  name: string;
  agent_label: string | null;
  line_id: string | null;
  permissions: SettableTier;
  monthly_cap_cents: number | null;
}

/** The key record on the wire (`{key}` on the keys plane and `/auth/keys`). */
export function toKeyRecord(row: ApiKeyRow, monthlySpendCents = 0) {
  return {
    id: row.id,
    key_prefix: row.key_prefix,
    environment: row.environment,
    name: row.name,
    agent_label: row.agent_label,
    line_id: row.line_id,
    permissions: row.permissions,
    monthly_cap_cents: row.monthly_cap_cents === null ? null : Number(row.monthly_cap_cents),
    // This UTC month's charges from the ledger (see monthlySpendByKey); 0 for a new key.
    monthly_spend_cents: monthlySpendCents,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    last_used_at: row.last_used_at ? row.last_used_at.toISOString() : null,
    rotated_from: row.rotated_from,
    created_by_service_key_id: row.created_by_service_key_id,
  };
}

/** Scopes of an agent key: its tier's, never beyond what the owning user's role allows. */
export function agentScopes(tier: string, role: Role) {
  const tierScopes = TIER_SCOPES[tier as keyof typeof TIER_SCOPES] ?? [];
  return tierScopes.filter((scope) => ROLE_PRESETS[role].includes(scope));
}

/**
 * Spec rule 7: a line may be bound only if it exists, belongs to the key owner's user,
 * is in the same environment and is not released. Every failure looks the same (404).
 */
export async function isBindableLine(db: Db | Knex.Transaction, owner: { userId: string; environment: Environment }, lineId: string): Promise<boolean> {
  const line = await db('lines').where({ id: lineId, user_id: owner.userId, environment: owner.environment }).whereNot({ status: 'released' }).first('id');
  return line !== undefined;
}

export interface AgentKeyOwner {
  workspaceId: string;
  userId: string;
  role: Role;
  environment: Environment;
}

/** Agent keys visible to a service key: its user's, in its environment. */
export function agentKeysOf(db: Db | Knex.Transaction, owner: { userId: string; environment: Environment }) {
  return db<ApiKeyRow>('api_keys').where({ user_id: owner.userId, environment: owner.environment, kind: 'standard' }).whereNotNull('created_by_service_key_id');
}

async function lifecycleEvent(trx: Knex.Transaction, eventType: KeyLifecycleEvent, key: ApiKeyRow, actorKeyId: string, at: Date, metadata: Record<string, unknown> = {}) {
  await recordComplianceEvent(trx, {
    workspaceId: key.workspace_id,
    environment: key.environment,
    eventType,
    actorKeyId,
    lineId: key.line_id,
    metadata: { key_id: key.id, key_prefix: key.key_prefix, ...metadata },
    at,
  });
}

export async function mintAgentKey(
  trx: Knex.Transaction,
  input: { owner: AgentKeyOwner; fields: AgentKeyFields; actorKeyId: string; createdByServiceKeyId: string | null; rotatedFrom?: string; now: Date },
): Promise<{ row: ApiKeyRow; plaintext: string }> {
  const { owner, fields } = input;
  const minted = await insertKey(trx, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    environment: owner.environment,
    kind: 'standard',
    name: fields.name,
    scopes: agentScopes(fields.permissions, owner.role),
    permissions: fields.permissions,
    agentLabel: fields.agent_label,
    lineId: fields.line_id,
    monthlyCapCents: fields.monthly_cap_cents,
    createdByServiceKeyId: input.createdByServiceKeyId,
    rotatedFrom: input.rotatedFrom ?? null,
    createdAt: input.now,
  });
  await lifecycleEvent(trx, input.rotatedFrom ? 'agent_key_rotated' : 'agent_key_minted', minted.row, input.actorKeyId, input.now, input.rotatedFrom ? { rotated_from: input.rotatedFrom } : {});
  return minted;
}

export async function updateAgentKey(
  trx: Knex.Transaction,
  input: { key: ApiKeyRow; changes: Partial<AgentKeyFields>; role: Role; actorKeyId: string; now: Date },
): Promise<ApiKeyRow> {
  const update: Record<string, unknown> = {};
  for (const field of ['name', 'agent_label', 'line_id', 'monthly_cap_cents'] as const) {
    if (input.changes[field] !== undefined) update[field] = input.changes[field];
  }
  if (input.changes.permissions !== undefined) {
    update.permissions = input.changes.permissions;
    update.scopes = agentScopes(input.changes.permissions, input.role);
  }
  const [row] = Object.keys(update).length ? await trx<ApiKeyRow>('api_keys').where({ id: input.key.id }).update(update).returning('*') : [input.key];
  await lifecycleEvent(trx, 'agent_key_updated', row, input.actorKeyId, input.now, { changed: Object.keys(update).filter((f) => f !== 'scopes') });
  return row;
}

export async function revokeAgentKey(trx: Knex.Transaction, input: { key: ApiKeyRow; actorKeyId: string; now: Date }): Promise<ApiKeyRow> {
  if (input.key.revoked_at) return input.key;
  const [row] = await trx<ApiKeyRow>('api_keys').where({ id: input.key.id }).whereNull('revoked_at').update({ revoked_at: input.now }).returning('*');
  await lifecycleEvent(trx, 'agent_key_revoked', row, input.actorKeyId, input.now);
  return row;
}

/**
 * Rotation in one transaction: lock the old key, revoke it, mint its replacement with the
 * same name, label, line, tier and cap. Two racing rotations serialise on the row lock and
 * the second finds the key already revoked.
 */
export async function rotateAgentKey(
  trx: Knex.Transaction,
  input: { keyId: string; owner: AgentKeyOwner; actorKeyId: string; createdByServiceKeyId: string; now: Date },
): Promise<{ outcome: 'not_found' } | { outcome: 'revoked'; old: ApiKeyRow } | { outcome: 'rotated'; old: ApiKeyRow; row: ApiKeyRow; plaintext: string }> {
  const old = await agentKeysOf(trx, input.owner).andWhere({ id: input.keyId }).forUpdate().first();
  if (!old) return { outcome: 'not_found' };
  if (old.revoked_at) return { outcome: 'revoked', old };
  const [revoked] = await trx<ApiKeyRow>('api_keys').where({ id: old.id }).update({ revoked_at: input.now }).returning('*');
  const minted = await mintAgentKey(trx, {
    owner: input.owner,
    fields: {
      name: old.name,
      agent_label: old.agent_label,
      line_id: old.line_id,
      permissions: (old.permissions === 'legacy_full' ? 'legacy_full' : old.permissions) as SettableTier,
      monthly_cap_cents: old.monthly_cap_cents === null ? null : Number(old.monthly_cap_cents),
    },
    actorKeyId: input.actorKeyId,
    createdByServiceKeyId: input.createdByServiceKeyId,
    rotatedFrom: old.id,
    now: input.now,
  });
  return { outcome: 'rotated', old: revoked, row: minted.row, plaintext: minted.plaintext };
}

export const DEFAULT_AGENT_TIER = DEFAULT_TIER;
