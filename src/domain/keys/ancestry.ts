/**
 * Delegation trees. Every key stores its minting chain (`ancestor_ids`, root first: the parent
 * keys of `/api-tokens` and `/api/v1/auth/keys` children, the service key of an agent key), so a
 * key's descendants are one indexed query (`ancestor_ids @> {id}`, GIN). Revocation takes the
 * whole subtree with it; spend anywhere in a subtree counts against every capped ancestor.
 */
import type { Knex } from 'knex';
import { recordComplianceEvent, type KeyLifecycleEvent } from '../compliance/events';
import { dropChangedKeysHere } from './cache';
import type { ApiKeyRow } from './store';

/** A root key was made by an operator (CLI, portal), not minted by another key. */
export function isRootKey(key: Pick<ApiKeyRow, 'ancestor_ids'>): boolean {
  return key.ancestor_ids.length === 0;
}

export function isDescendantOf(key: Pick<ApiKeyRow, 'ancestor_ids'>, ancestorId: string): boolean {
  return key.ancestor_ids.includes(ancestorId);
}

/** Narrows a query on `api_keys` to `key` and its descendants. */
export function withinSubtree<T extends Knex.QueryBuilder>(query: T, key: Pick<ApiKeyRow, 'id'>): T {
  return query.andWhere((q) => q.where('api_keys.id', key.id).orWhereRaw('api_keys.ancestor_ids @> array[?]::uuid[]', [key.id])) as T;
}

/** Narrows a query on `api_keys` to the keys `manager` manages: every key for a root key, else its own subtree. */
export function managedBy<T extends Knex.QueryBuilder>(query: T, manager: Pick<ApiKeyRow, 'id' | 'ancestor_ids'>): T {
  return isRootKey(manager) ? query : withinSubtree(query, manager);
}

/**
 * Row-locks keys for the rest of the transaction, always in id order (every path that locks
 * several keys goes through here, so two of them never deadlock): the given `ids`, plus the
 * subtree of `subtreeOf` (that key and its descendants) when given.
 */
export async function lockKeys(
  trx: Knex.Transaction,
  input: { ids: readonly string[]; subtreeOf?: string; mode: 'share' | 'update' },
): Promise<Array<Pick<ApiKeyRow, 'id' | 'revoked_at' | 'expires_at'>>> {
  const query = trx<ApiKeyRow>('api_keys')
    .where((q) => {
      q.whereIn('id', [...input.ids]);
      if (input.subtreeOf) q.orWhere('id', input.subtreeOf).orWhereRaw('ancestor_ids @> array[?]::uuid[]', [input.subtreeOf]);
    })
    .orderBy('id')
    .select('id', 'revoked_at', 'expires_at');
  return input.mode === 'share' ? query.forShare() : query.forUpdate();
}

/** Raised when the minting key (or one of its ancestors) was revoked after it authenticated. */
export class MinterRevokedError extends Error {
  constructor() {
    super('The minting key has been revoked');
    this.name = 'MinterRevokedError';
  }
}

/**
 * Locks the minter and its chain (`FOR SHARE`) for the rest of the minting transaction and
 * refuses if any of them no longer holds. A revocation locks those same rows first, so it
 * either commits first (and the mint sees it) or waits for the mint to commit (and its cascade,
 * a later statement, then sees the new child): a child can never outlive a revoked ancestor.
 * Both lock in id order, so they never deadlock.
 */
export async function lockLiveChain(trx: Knex.Transaction, minter: Pick<ApiKeyRow, 'id' | 'ancestor_ids'>, now: Date): Promise<void> {
  const chain = await lockKeys(trx, { ids: [...minter.ancestor_ids, minter.id], mode: 'share' });
  const live = chain.filter((row) => !(row.revoked_at && row.revoked_at <= now) && !(row.expires_at && row.expires_at <= now));
  if (live.length !== minter.ancestor_ids.length + 1) throw new MinterRevokedError();
}

export function revocationEvent(row: ApiKeyRow): KeyLifecycleEvent {
  if (row.kind === 'service') return 'service_key_revoked';
  return row.created_by_service_key_id ? 'agent_key_revoked' : 'scoped_key_revoked';
}

/**
 * Revokes `key` and every descendant in one transaction, each with its lifecycle event
 * (descendants' events name the key they were revoked with). `targetEvent` null: the caller
 * records the target's own event (rotation records `agent_key_rotated`). Idempotent.
 */
export async function revokeWithDescendants(
  trx: Knex.Transaction,
  input: {
    key: ApiKeyRow;
    actorKeyId: string | null;
    now: Date;
    targetEvent: KeyLifecycleEvent | null;
    metadata?: Record<string, unknown>;
  },
): Promise<{ row: ApiKeyRow; descendants: ApiKeyRow[] }> {
  // Lock the subtree as it stands, in id order (as minting does), then update it in a new
  // statement: one that sees any child a concurrent mint committed while this waited.
  await lockKeys(trx, { ids: [], subtreeOf: input.key.id, mode: 'update' });
  const [updated] = await trx<ApiKeyRow>('api_keys')
    .where({ id: input.key.id })
    .whereNull('revoked_at')
    .update({ revoked_at: input.now })
    .returning('*');
  const row = updated ?? (await trx<ApiKeyRow>('api_keys').where({ id: input.key.id }).first())!;
  const descendants = await trx<ApiKeyRow>('api_keys')
    .whereRaw('ancestor_ids @> array[?]::uuid[]', [input.key.id])
    .whereNull('revoked_at')
    .update({ revoked_at: input.now })
    .returning('*');
  // This instance stops accepting the subtree at once, every other once this commits (cache.ts).
  dropChangedKeysHere(trx, [row.id, ...descendants.map((d) => d.id)]);
  const events: Array<[ApiKeyRow, KeyLifecycleEvent, Record<string, unknown>]> = descendants.map((d) => [
    d,
    revocationEvent(d),
    { revoked_with: input.key.id },
  ]);
  if (updated && input.targetEvent) events.unshift([row, input.targetEvent, input.metadata ?? {}]);
  for (const [key, eventType, metadata] of events) {
    await recordComplianceEvent(trx, {
      workspaceId: key.workspace_id,
      environment: key.environment,
      eventType,
      actorKeyId: input.actorKeyId,
      lineId: key.line_id,
      metadata: { key_id: key.id, key_prefix: key.key_prefix, ...metadata },
      at: input.now,
    });
  }
  return { row, descendants };
}

/**
 * SQL selecting every key whose spend counts against the caps of the key with lineage
 * `lineageSql` (an SQL expression): the keys of that rotation chain and all their descendants.
 * `lineageSql` is always a constant expression of the caller, never request data.
 */
export function spendingKeysSql(lineageSql: string): string {
  return `select x.id from api_keys x where x.lineage_id = ${lineageSql} or x.ancestor_ids && array(select l.id from api_keys l where l.lineage_id = ${lineageSql})`;
}

/** The lineage of one key, as a bound SQL expression for `spendingKeysSql`. */
export const LINEAGE_OF_KEY_SQL = '(select k.lineage_id from api_keys k where k.id = ?)';
