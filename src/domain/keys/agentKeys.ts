/**
 * Agent keys: the child keys of the service-key plane (`/v1/keys`) and of the older
 * `/api/v1/auth/keys`. An agent key belongs to its minter's user and environment, carries a
 * permission tier, an optional line binding, label and monthly cap, and never more authority
 * than the key that minted it (`assertWithin`, checked on mint, update and rotation).
 */
import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import { recordComplianceEvent, type KeyLifecycleEvent } from '../compliance/events';
import type { Environment } from './format';
import { ROLE_PRESETS, type Role, type Scope } from './scopes';
import { DEFAULT_TIER, TIER_SCOPES, type SettableTier } from './tiers';
import { insertKey, type ApiKeyRow } from './store';
import { assertWithin, authorityOf, restrictedLineIds, type AuthorityPart, type KeyRestrictions } from './grants';
import { lockKeys, lockLiveChain, revokeWithDescendants } from './ancestry';
import { dropChangedKeysHere } from './cache';

export const AGENT_LABEL_PATTERN = '^[a-z0-9][a-z0-9:_.-]{0,127}$';

export interface AgentKeyFields {
  name: string;
  agent_label: string | null;
  line_id: string | null;
  permissions: SettableTier;
  monthly_cap_cents: number | null;
}

/** A mint request's fields with their defaults: no label, no line (account-wide), the default tier, no cap. */
export function agentKeyFieldsOf(request: Partial<AgentKeyFields> & { name: string }): AgentKeyFields {
  return {
    name: request.name,
    agent_label: request.agent_label ?? null,
    line_id: request.line_id ?? null,
    permissions: request.permissions ?? DEFAULT_TIER,
    monthly_cap_cents: request.monthly_cap_cents ?? null,
  };
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
export async function isBindableLine(
  db: Db | Knex.Transaction,
  owner: { userId: string; environment: Environment },
  lineId: string,
): Promise<boolean> {
  const line = await db('lines')
    .where({ id: lineId, user_id: owner.userId, environment: owner.environment })
    .whereNot({ status: 'released' })
    .first('id');
  return line !== undefined;
}

export interface AgentKeyOwner {
  workspaceId: string;
  userId: string;
  role: Role;
  environment: Environment;
}

/** Raised inside the transaction when `line_id` cannot be bound (spec rule 7: one 404 for every reason). */
export class LineNotBindableError extends Error {
  constructor() {
    super('The line cannot be bound to a key');
    this.name = 'LineNotBindableError';
  }
}

/** How the agent-key request fields name an exceeding part of the minter's authority. */
const AGENT_KEY_FIELDS: Record<AuthorityPart, string> = {
  scopes: 'permissions',
  tier: 'permissions',
  lines: 'line_id',
  spend: 'monthly_cap_cents',
};

/**
 * The row an agent key will have. It inherits its minter's allow-list and spend limit (a
 * service key has neither), so it is never less restricted than its minter; its own line, tier
 * and cap come from the request. Its scopes are its tier's within its user's role.
 */
function agentKeyRestrictions(minter: ApiKeyRow, fields: AgentKeyFields, role: Role): KeyRestrictions & { scopes: readonly Scope[] } {
  const inherit = minter.kind === 'standard';
  return {
    kind: 'standard',
    scopes: agentScopes(fields.permissions, role),
    grant_numbers: inherit ? (restrictedLineIds(minter) ?? null) : null,
    line_id: fields.line_id,
    spend_limit_cents: inherit ? minter.spend_limit_cents : null,
    spend_reset_period: inherit ? minter.spend_reset_period : null,
    monthly_cap_cents: fields.monthly_cap_cents,
    permissions: fields.permissions,
  };
}

/** Refuses (inside the caller's transaction) a key that would exceed its minter, or an unbindable line. */
async function assertMayHold(
  trx: Knex.Transaction,
  minter: ApiKeyRow,
  owner: AgentKeyOwner,
  child: KeyRestrictions,
  bindingLineId: string | null,
  now: Date,
): Promise<void> {
  await lockLiveChain(trx, minter, now);
  assertWithin(authorityOf(minter, owner.role), authorityOf(child), AGENT_KEY_FIELDS);
  // Within the minter's allow-list is not enough: the line must be the user's, unreleased, in this environment.
  if (bindingLineId && !(await isBindableLine(trx, owner, bindingLineId))) throw new LineNotBindableError();
}

/** Agent keys visible to a service key: its user's, in its environment. */
export function agentKeysOf(db: Db | Knex.Transaction, owner: { userId: string; environment: Environment }) {
  return db<ApiKeyRow>('api_keys')
    .where({ user_id: owner.userId, environment: owner.environment, kind: 'standard' })
    .whereNotNull('created_by_service_key_id');
}

async function lifecycleEvent(
  trx: Knex.Transaction,
  eventType: KeyLifecycleEvent,
  key: ApiKeyRow,
  actorKeyId: string,
  at: Date,
  metadata: Record<string, unknown> = {},
) {
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

/**
 * Mints an agent key for `minter` (a service key on the keys plane, a `keys:admin` key on
 * `/api/v1/auth/keys`): refused with `GrantExceededError` beyond the minter's authority,
 * `LineNotBindableError` for a line that cannot be bound, `MinterRevokedError` if the minter
 * lapsed meanwhile. Nothing is written on refusal.
 */
export async function mintAgentKey(
  trx: Knex.Transaction,
  input: { owner: AgentKeyOwner; minter: ApiKeyRow; fields: AgentKeyFields; rotatedFrom?: ApiKeyRow; now: Date },
): Promise<{ row: ApiKeyRow; plaintext: string }> {
  const { owner, fields } = input;
  const restrictions = agentKeyRestrictions(input.minter, fields, owner.role);
  await assertMayHold(trx, input.minter, owner, restrictions, fields.line_id, input.now);
  const minted = await insertKey(trx, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    environment: owner.environment,
    kind: 'standard',
    name: fields.name,
    scopes: restrictions.scopes,
    grantNumbers: restrictions.grant_numbers,
    spendLimitCents: restrictions.spend_limit_cents === null ? null : Number(restrictions.spend_limit_cents),
    spendResetPeriod: restrictions.spend_reset_period,
    permissions: fields.permissions,
    agentLabel: fields.agent_label,
    lineId: fields.line_id,
    monthlyCapCents: fields.monthly_cap_cents,
    minter: input.minter,
    rotatedFrom: input.rotatedFrom ?? null,
    createdAt: input.now,
  });
  const rotatedFrom = input.rotatedFrom?.id;
  await lifecycleEvent(
    trx,
    rotatedFrom ? 'agent_key_rotated' : 'agent_key_minted',
    minted.row,
    input.minter.id,
    input.now,
    rotatedFrom ? { rotated_from: rotatedFrom } : {},
  );
  return minted;
}

/** Changing tier, line or cap is minting power too: the updated key must still be within `minter`. */
export async function updateAgentKey(
  trx: Knex.Transaction,
  input: { key: ApiKeyRow; changes: Partial<AgentKeyFields>; owner: AgentKeyOwner; minter: ApiKeyRow; now: Date },
): Promise<ApiKeyRow> {
  const { key, changes } = input;
  const next: AgentKeyFields = {
    name: changes.name ?? key.name,
    agent_label: changes.agent_label !== undefined ? changes.agent_label : key.agent_label,
    line_id: changes.line_id !== undefined ? changes.line_id : key.line_id,
    permissions: (changes.permissions ?? key.permissions) as SettableTier,
    monthly_cap_cents:
      changes.monthly_cap_cents !== undefined
        ? changes.monthly_cap_cents
        : key.monthly_cap_cents === null
          ? null
          : Number(key.monthly_cap_cents),
  };
  const restrictions = agentKeyRestrictions(input.minter, next, input.owner.role);
  // Only a line named in this request is bound anew (and must be bindable).
  await assertMayHold(trx, input.minter, input.owner, restrictions, changes.line_id ?? null, input.now);
  const update: Record<string, unknown> = {};
  for (const field of ['name', 'agent_label', 'line_id', 'monthly_cap_cents'] as const) {
    if (changes[field] !== undefined) update[field] = changes[field];
  }
  if (changes.permissions !== undefined) update.permissions = changes.permissions;
  // The scopes always follow the tier within the user's current role.
  if (restrictions.scopes.length !== key.scopes.length || restrictions.scopes.some((s) => !key.scopes.includes(s)))
    update.scopes = [...restrictions.scopes];
  const [row] = Object.keys(update).length ? await trx<ApiKeyRow>('api_keys').where({ id: key.id }).update(update).returning('*') : [key];
  // A new tier, line or scope set takes effect here at once and on every API instance once this commits (cache.ts).
  if (Object.keys(update).length) dropChangedKeysHere(trx, [key.id]);
  await lifecycleEvent(trx, 'agent_key_updated', row, input.minter.id, input.now, {
    changed: Object.keys(update).filter((f) => f !== 'scopes'),
  });
  return row;
}

/** Revokes the key and, in the same transaction, every key it minted (their own descendants included). */
export async function revokeAgentKey(trx: Knex.Transaction, input: { key: ApiKeyRow; actorKeyId: string; now: Date }): Promise<ApiKeyRow> {
  const { row } = await revokeWithDescendants(trx, {
    key: input.key,
    actorKeyId: input.actorKeyId,
    now: input.now,
    targetEvent: 'agent_key_revoked',
  });
  return row;
}

/**
 * Rotation in one transaction: lock the old key, revoke it (with its descendants, as every
 * revocation: a rotation is what follows a leak, so nothing the old key minted survives it),
 * mint its replacement with the same name, label, line, tier and cap, in the same lineage (its
 * spend carries over). The replacement passes the same checks as a mint: a line released since
 * is the binding 404 (nothing changes; fix the binding and retry). Two racing rotations
 * serialise on the row lock and the second finds the key already revoked.
 */
export async function rotateAgentKey(
  trx: Knex.Transaction,
  input: { keyId: string; owner: AgentKeyOwner; minter: ApiKeyRow; now: Date },
): Promise<
  | { outcome: 'not_found' }
  | { outcome: 'revoked'; old: ApiKeyRow }
  | { outcome: 'rotated'; old: ApiKeyRow; row: ApiKeyRow; plaintext: string }
> {
  const found = await agentKeysOf(trx, input.owner).andWhere({ id: input.keyId }).first('id');
  if (!found) return { outcome: 'not_found' };
  // Everything this rotation will touch, locked up front in id order: the rotating service key's
  // chain (it mints) and the old key's subtree (revoked).
  await lockKeys(trx, { ids: [...input.minter.ancestor_ids, input.minter.id], subtreeOf: found.id, mode: 'update' });
  const old = (await trx<ApiKeyRow>('api_keys').where({ id: found.id }).first())!;
  if (old.revoked_at) return { outcome: 'revoked', old };
  const { row: revoked } = await revokeWithDescendants(trx, { key: old, actorKeyId: input.minter.id, now: input.now, targetEvent: null });
  const minted = await mintAgentKey(trx, {
    owner: input.owner,
    minter: input.minter,
    fields: {
      name: old.name,
      agent_label: old.agent_label,
      line_id: old.line_id,
      permissions: (old.permissions === 'legacy_full' ? 'legacy_full' : old.permissions) as SettableTier,
      monthly_cap_cents: old.monthly_cap_cents === null ? null : Number(old.monthly_cap_cents),
    },
    rotatedFrom: old,
    now: input.now,
  });
  return { outcome: 'rotated', old: revoked, row: minted.row, plaintext: minted.plaintext };
}

export const DEFAULT_AGENT_TIER = DEFAULT_TIER;
