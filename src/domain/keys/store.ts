import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import { digestsEqual, generateKey, hashKey, parseKey, type Environment, type KeyKind } from './format';
import type { Scope } from './scopes';

export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  user_id: string;
  environment: Environment;
  kind: KeyKind;
  name: string;
  key_prefix: string;
  key_hash: string;
  scopes: string[];
  grant_numbers: string[] | null;
  spend_limit_cents: string | null;
  spend_reset_period: 'monthly' | null;
  permissions: string;
  agent_label: string | null;
  line_id: string | null;
  monthly_cap_cents: string | null;
  parent_key_id: string | null;
  created_by_service_key_id: string | null;
  rotated_from: string | null;
  /** The minting chain, root first (parent keys and the service key that made an agent key); empty for a root key. */
  ancestor_ids: string[];
  /** The first key of its rotation chain: spend and caps are counted by it, so a rotation starts no new budget. */
  lineage_id: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

/** The workspace's regular keys in one environment (agent keys included; service keys are another kind). */
export function regularKeysOf(db: Db | Knex.Transaction, tenant: { workspaceId: string; environment: Environment }) {
  return db<ApiKeyRow>('api_keys').where({ workspace_id: tenant.workspaceId, environment: tenant.environment, kind: 'standard' });
}

/** A regular key of the user in the environment, never a service key; undefined when there is none. */
export async function findRegularKeyOfUser(
  db: Db,
  owner: { userId: string; environment: Environment },
  keyId: string,
): Promise<Pick<ApiKeyRow, 'id' | 'ancestor_ids'> | undefined> {
  return db<ApiKeyRow>('api_keys')
    .where({ id: keyId, user_id: owner.userId, environment: owner.environment, kind: 'standard' })
    .first('id', 'ancestor_ids');
}

export interface NewKey {
  workspaceId: string;
  userId: string;
  environment: Environment;
  kind: KeyKind;
  name: string;
  scopes: readonly Scope[];
  grantNumbers?: readonly string[] | null;
  spendLimitCents?: number | null;
  spendResetPeriod?: 'monthly' | null;
  permissions?: string;
  agentLabel?: string | null;
  lineId?: string | null;
  monthlyCapCents?: number | null;
  /** The key that mints this one: its chain becomes this key's ancestors. */
  minter?: Pick<ApiKeyRow, 'id' | 'kind' | 'ancestor_ids'> | null;
  /** The key this one replaces: the new key keeps its lineage (and so its spend). */
  rotatedFrom?: Pick<ApiKeyRow, 'id' | 'lineage_id'> | null;
  createdAt?: Date;
}

export async function insertKey(db: Db | Knex.Transaction, key: NewKey): Promise<{ row: ApiKeyRow; plaintext: string }> {
  const generated = generateKey(key.kind, key.environment);
  const id = crypto.randomUUID();
  const minter = key.minter ?? null;
  const [row] = await db<ApiKeyRow>('api_keys')
    .insert({
      id,
      workspace_id: key.workspaceId,
      user_id: key.userId,
      environment: key.environment,
      kind: key.kind,
      name: key.name,
      key_prefix: generated.prefix,
      key_hash: generated.hash,
      scopes: [...key.scopes],
      grant_numbers: key.grantNumbers ? [...key.grantNumbers] : null,
      spend_limit_cents: key.spendLimitCents ?? null,
      spend_reset_period: key.spendResetPeriod ?? null,
      permissions: key.permissions ?? 'full',
      agent_label: key.agentLabel ?? null,
      line_id: key.lineId ?? null,
      monthly_cap_cents: key.monthlyCapCents ?? null,
      // A standard key mints children (parent_key_id); a service key mints agent keys.
      parent_key_id: minter?.kind === 'standard' ? minter.id : null,
      created_by_service_key_id: minter?.kind === 'service' ? minter.id : null,
      ancestor_ids: minter ? [...minter.ancestor_ids, minter.id] : [],
      rotated_from: key.rotatedFrom?.id ?? null,
      lineage_id: key.rotatedFrom?.lineage_id ?? id,
      ...(key.createdAt ? { created_at: key.createdAt } : {}),
    } as Record<string, unknown>)
    .returning('*');
  return { row, plaintext: generated.plaintext };
}

export type KeyLookup = { ok: true; key: ApiKeyRow } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' };

/**
 * Finds the key row for a presented plaintext: narrow by the indexed prefix, then
 * compare SHA-256 digests in constant time so timing reveals nothing about stored hashes.
 */
export async function lookupKey(db: Db, plaintext: string, now: Date): Promise<KeyLookup> {
  const parsed = parseKey(plaintext);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const candidates = await db<ApiKeyRow>('api_keys').where({ key_prefix: parsed.prefix });
  const presented = hashKey(plaintext);
  const match = candidates.find((row) => digestsEqual(row.key_hash, presented));
  if (!match || match.kind !== parsed.kind || match.environment !== parsed.environment) return { ok: false, reason: 'unknown' };
  if (match.revoked_at && match.revoked_at <= now) return { ok: false, reason: 'revoked' };
  if (match.expires_at && match.expires_at <= now) return { ok: false, reason: 'expired' };
  // Defence in depth beside revocation's cascade: a key whose minting chain no longer holds is refused.
  if (match.ancestor_ids.length > 0 && (await hasLapsedAncestor(db, match.ancestor_ids, now))) return { ok: false, reason: 'revoked' };
  return { ok: true, key: match };
}

/** Whether any of these keys is revoked or expired at `now`. */
export async function hasLapsedAncestor(db: Db | Knex.Transaction, ancestorIds: readonly string[], now: Date): Promise<boolean> {
  const lapsed = await db('api_keys')
    .whereIn('id', [...ancestorIds])
    .andWhere((q) => q.where('revoked_at', '<=', now).orWhere('expires_at', '<=', now))
    .first('id');
  return lapsed !== undefined;
}

const LAST_USED_RESOLUTION_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

/**
 * Records `last_used_at` at one-minute resolution: at most one conditional UPDATE per key
 * per minute per process, and the WHERE clause makes concurrent processes write at most once.
 */
export function touchLastUsed(db: Db, keyId: string, now: Date, onError: (err: unknown) => void): void {
  const previous = lastUsedWritten.get(keyId);
  if (previous !== undefined && now.getTime() - previous < LAST_USED_RESOLUTION_MS) return;
  lastUsedWritten.set(keyId, now.getTime());
  if (lastUsedWritten.size > 100_000) lastUsedWritten.clear();
  db('api_keys')
    .where({ id: keyId })
    .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', new Date(now.getTime() - LAST_USED_RESOLUTION_MS)))
    .update({ last_used_at: now })
    .catch(onError);
}
