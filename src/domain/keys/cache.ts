import type { Knex } from 'knex';

/** The Postgres channel every change to what a key may do is announced on (payload: comma-separated key ids). */
export const KEY_CHANGES_CHANNEL = 'api_key_changes';
/** NOTIFY payloads are limited to 8000 bytes; 36-character ids and a comma each, with room to spare. */
const IDS_PER_NOTIFY = 200;

/** What the cache needs of a key row (store.ts's ApiKeyRow; not imported, so store.ts can import this file). */
interface KeyIdentity {
  id: string;
  ancestor_ids: string[];
}

/** A key row as authentication needs it, with the earliest moment one of its ancestors lapses (null: none does). */
export interface CachedKey<Row extends KeyIdentity = KeyIdentity> {
  row: Row;
  ancestorsLapseAt: Date | null;
}

interface Entry<Row extends KeyIdentity> extends CachedKey<Row> {
  /** Real (monotonic) time the entry stops being trusted, whatever the injected clock says. */
  staleAtMs: number;
}

/**
 * In-process cache of key rows, keyed by the SHA-256 of the presented key (never the plaintext).
 *
 * Invalidation rule: an entry is dropped (a) when any process announces a change to that key or one of its
 * ancestors on KEY_CHANGES_CHANNEL (the mutation's own transaction NOTIFYs; every API process LISTENs, see
 * keyChangeListener.ts), (b) by this process at once when it makes such a change itself, (c) wholesale when the
 * listener's connection is lost or re-established (notifications may have been missed), and (d) at the latest
 * `ttlMs` after it was loaded, which bounds staleness even without a listener. Time-based lapses (the key's own
 * `expires_at`/`revoked_at`, an ancestor's) are checked against the request's `now` on every hit, so they need no
 * invalidation. Unknown keys are never cached: a key minted a moment ago is found on its first use.
 */
export class KeyCache<Row extends KeyIdentity = KeyIdentity> {
  private readonly entries = new Map<string, Entry<Row>>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {
    liveCaches.add(this as unknown as KeyCache<KeyIdentity>);
  }

  get(keyHash: string): CachedKey<Row> | undefined {
    const entry = this.entries.get(keyHash);
    if (entry && entry.staleAtMs > performance.now()) {
      this.hits += 1;
      return entry;
    }
    if (entry) this.entries.delete(keyHash);
    this.misses += 1;
    return undefined;
  }

  set(keyHash: string, value: CachedKey<Row>): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(keyHash, { ...value, staleAtMs: performance.now() + this.ttlMs });
  }

  /** Drops every entry for these keys and for keys descending from them. */
  invalidate(keyIds: readonly string[]): void {
    const ids = new Set(keyIds);
    for (const [hash, entry] of this.entries) {
      if (ids.has(entry.row.id) || entry.row.ancestor_ids.some((id) => ids.has(id))) this.entries.delete(hash);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  /** Stops receiving this process's own announcements (the app is closing). */
  detach(): void {
    liveCaches.delete(this as unknown as KeyCache<KeyIdentity>);
    this.entries.clear();
  }
}

const liveCaches = new Set<KeyCache<KeyIdentity>>();

/**
 * Announces, inside the mutating transaction, that these keys (and so their descendants) changed: every API
 * process drops them from its cache when the transaction commits (NOTIFY is delivered on commit only). This
 * process's caches drop them now and again once the transaction settles, so a request racing the commit cannot
 * keep the old row either.
 */
export async function announceKeyChanges(trx: Knex.Transaction, keyIds: readonly string[]): Promise<void> {
  if (keyIds.length === 0) return;
  for (let i = 0; i < keyIds.length; i += IDS_PER_NOTIFY) {
    await trx.raw('select pg_notify(?, ?)', [KEY_CHANGES_CHANNEL, keyIds.slice(i, i + IDS_PER_NOTIFY).join(',')]);
  }
  const dropLocally = () => {
    for (const cache of liveCaches) cache.invalidate(keyIds);
  };
  dropLocally();
  void trx.executionPromise?.then(dropLocally, dropLocally);
}
