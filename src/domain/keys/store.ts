import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import { digestsEqual, generateKey, hashKey, parseKey, type Environment, type KeyKind, type ParsedKey } from './format';
import type { Scope } from './scopes';
import type { CachedKey, KeyCache } from './cache';
import { preparedStatement } from '../../platform/db/prepared';

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
  /** The first and latest authenticated request to /mcp made with it (or an OAuth token standing for it). */
  mcp_first_used_at: Date | null;
  mcp_last_used_at: Date | null;
  created_at: Date;
  /** The portal user who minted it under another user's key, or who minted this delegated token (issue 27, M13). */
  minted_by_user_id: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a requested id can name a key at all (ids are UUIDs; anything else is simply not found). */
export function isKeyId(value: string): boolean {
  return UUID.test(value);
}

/** The workspace's regular keys in one environment (agent keys included; service keys are another kind). */
export function regularKeysOf(db: Db | Knex.Transaction, tenant: { workspaceId: string; environment: Environment }) {
  return db<ApiKeyRow>('api_keys').where({ workspace_id: tenant.workspaceId, environment: tenant.environment, kind: 'standard' });
}

/** A key of the workspace named by its id or its displayed prefix (an actor to filter the audit by). */
export async function findWorkspaceKey(db: Db, workspaceId: string, idOrPrefix: string): Promise<Pick<ApiKeyRow, 'id'> | undefined> {
  const query = db<ApiKeyRow>('api_keys').where({ workspace_id: workspaceId });
  return (isKeyId(idOrPrefix) ? query.andWhere({ id: idOrPrefix }) : query.andWhere({ key_prefix: idOrPrefix })).first('id');
}

/** The displayed prefixes of these keys of the workspace, by id. */
export async function keyPrefixesOf(db: Db, workspaceId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db<ApiKeyRow>('api_keys')
    .where({ workspace_id: workspaceId })
    .whereIn('id', [...ids])
    .select('id', 'key_prefix');
  return new Map(rows.map((row) => [row.id, row.key_prefix]));
}

/** The workspace's service keys in one environment. */
export function serviceKeysOf(db: Db | Knex.Transaction, tenant: { workspaceId: string; environment: Environment }) {
  return db<ApiKeyRow>('api_keys').where({ workspace_id: tenant.workspaceId, environment: tenant.environment, kind: 'service' });
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
  /** The portal user who minted it, when that is not simply its owner acting with one of their keys. */
  mintedByUserId?: string | null;
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
      minted_by_user_id: key.mintedByUserId ?? null,
      ...(key.createdAt ? { created_at: key.createdAt } : {}),
    } as Record<string, unknown>)
    .returning('*');
  return { row, plaintext: generated.plaintext };
}

export type KeyLookup = { ok: true; key: ApiKeyRow } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' };

/** Every authenticated request whose key is not cached reads its candidates so: prepared once per connection. */
const keysByPrefix = preparedStatement('api_keys_by_prefix', 'select * from api_keys where key_prefix = ?');

/** A presented key, parsed and hashed once: what a lookup works from. */
export interface PresentedKey {
  parsed: ParsedKey;
  /** SHA-256 of the plaintext (`hashKey`): the cache's key and what stored digests are compared with. */
  digest: string;
}

/** The presented plaintext as a lookup needs it; undefined when it is not a key at all (malformed). */
export function presentKey(plaintext: string): PresentedKey | undefined {
  const parsed = parseKey(plaintext);
  return parsed ? { parsed, digest: hashKey(plaintext) } : undefined;
}

/**
 * Finds the key row for a presented plaintext: narrow by the indexed prefix, then
 * compare SHA-256 digests in constant time so timing reveals nothing about stored hashes.
 * With a cache (keyed by that digest, see cache.ts) a known key costs no query; its own and its
 * ancestors' lapse times are still judged against `now` on every call.
 */
export async function lookupKey(db: Db, plaintext: string, now: Date, cache?: KeyCache<ApiKeyRow>): Promise<KeyLookup> {
  const presented = presentKey(plaintext);
  if (!presented) return { ok: false, reason: 'malformed' };
  return (cache && cachedKeyLookup(presented, now, cache)) ?? readPresentedKey(db, presented, now, cache);
}

/**
 * `lookupKey`'s answer without a query, when the key is cached; undefined when it is not. Synchronous, so that the
 * request of a cached key passes authentication without waiting a tick (issue 33).
 */
export function cachedKeyLookup(presented: PresentedKey, now: Date, cache: KeyCache<ApiKeyRow>): KeyLookup | undefined {
  const found = cache.get(presented.digest);
  return found && judgeKey(found, presented.parsed, now);
}

/** `lookupKey` for a key parsed and hashed already that the cache did not have: read, cached, judged. */
export async function readPresentedKey(db: Db, presented: PresentedKey, now: Date, cache?: KeyCache<ApiKeyRow>): Promise<KeyLookup> {
  const candidates = await keysByPrefix<ApiKeyRow>(db, [presented.parsed.prefix]);
  const match = candidates.find((row) => digestsEqual(row.key_hash, presented.digest));
  if (!match) return { ok: false, reason: 'unknown' };
  const found = { row: match, ancestorsLapseAt: match.ancestor_ids.length > 0 ? await ancestorsLapseAt(db, match.ancestor_ids) : null };
  cache?.set(presented.digest, found);
  return judgeKey(found, presented.parsed, now);
}

/** Whether a found key row answers for the presented key at `now`. */
function judgeKey(found: CachedKey<ApiKeyRow>, parsed: ParsedKey, now: Date): KeyLookup {
  const match = found.row;
  if (match.kind !== parsed.kind || match.environment !== parsed.environment) return { ok: false, reason: 'unknown' };
  if (match.revoked_at && match.revoked_at <= now) return { ok: false, reason: 'revoked' };
  if (match.expires_at && match.expires_at <= now) return { ok: false, reason: 'expired' };
  // Defence in depth beside revocation's cascade: a key whose minting chain no longer holds is refused.
  if (found.ancestorsLapseAt && found.ancestorsLapseAt <= now) return { ok: false, reason: 'revoked' };
  return { ok: true, key: match };
}

/** The earliest moment any of these keys is revoked or expires (null: none ever does, as things stand). */
async function ancestorsLapseAt(db: Db, ancestorIds: readonly string[]): Promise<Date | null> {
  const [row] = await db('api_keys')
    .whereIn('id', [...ancestorIds])
    .select<Array<{ lapse_at: Date | null }>>(db.raw('min(least(revoked_at, expires_at)) as lapse_at'));
  return row?.lapse_at ?? null;
}

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Records `last_used_at` off the request path, at one-minute resolution. `record` only notes the key in memory;
 * every `flushMs` one UPDATE ... FROM (VALUES ...) writes all keys noted since, and `close` flushes the rest.
 * Flush rule: a key is written at most once a minute by this process (it is not noted again until a minute after
 * the use last written), and the WHERE clause makes concurrent processes write a key at most once a minute between
 * them. A failed flush is logged and those uses are dropped: the column is a hint, not an audit record.
 */
export class LastUsedBatcher {
  private readonly pending = new Map<string, number>();
  private readonly written = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    flushMs: number,
    private readonly onError: (err: unknown) => void,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(keyId: string, now: Date): void {
    const at = now.getTime();
    const previous = this.written.get(keyId);
    if (previous !== undefined && at - previous < LAST_USED_RESOLUTION_MS && at >= previous) return;
    if (!this.pending.has(keyId)) this.pending.set(keyId, at);
    this.written.set(keyId, at);
    if (this.written.size > 100_000) this.written.clear();
  }

  /** Writes every noted use in one statement (the previous flush finishes first). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const uses = [...this.pending];
    this.pending.clear();
    const values = uses.map(() => '(?::uuid, ?::timestamptz)').join(', ');
    const bindings = uses.flatMap(([id, at]) => [id, new Date(at).toISOString()]);
    try {
      await this.db.raw(
        `update api_keys k set last_used_at = u.at from (values ${values}) as u(id, at)
         where k.id = u.id and (k.last_used_at is null or k.last_used_at < u.at - interval '${LAST_USED_RESOLUTION_MS / 1000} seconds')`,
        bindings,
      );
    } catch (err) {
      this.onError(err);
    }
  }
}

/** Whether the tenant has a regular key that still works at `now` (the overview's getting-started checklist). */
export async function hasUsableRegularKey(db: Db, tenant: { workspaceId: string; environment: Environment }, now: Date): Promise<boolean> {
  const row = await regularKeysOf(db, tenant)
    .whereNull('revoked_at')
    .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
    .first('id');
  return row !== undefined;
}

/**
 * Records an authenticated request to /mcp made with the key, in the database at the request (the overview's
 * checklist reads it from any process): the first use once, the latest at `LAST_USED_RESOLUTION_MS`, so a busy
 * agent costs one indexed no-op update per request, not a write.
 */
export async function recordMcpUse(db: Db, keyId: string, at: Date): Promise<void> {
  await db<ApiKeyRow>('api_keys')
    .where({ id: keyId })
    .andWhere((q) => q.whereNull('mcp_last_used_at').orWhere('mcp_last_used_at', '<', new Date(at.getTime() - LAST_USED_RESOLUTION_MS)))
    .update({ mcp_first_used_at: db.raw('coalesce(mcp_first_used_at, ?)', [at]) as unknown as Date, mcp_last_used_at: at });
}

/** Whether any regular key of the tenant (an OAuth token's delegated key included) made an authenticated MCP request. */
export async function hasMcpUse(db: Db, tenant: { workspaceId: string; environment: Environment }): Promise<boolean> {
  return (await regularKeysOf(db, tenant).whereNotNull('mcp_first_used_at').first('id')) !== undefined;
}
