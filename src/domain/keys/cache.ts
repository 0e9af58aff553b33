import type { Knex } from 'knex';

/**
 * The Postgres channel every change to what a key may do is announced on (payload: comma-separated key ids). The
 * database announces: a trigger on `api_keys` (migration 0061) notifies for every changed or deleted row, whoever
 * changed it, in the changing transaction, so the notification is delivered on commit only.
 */
export const KEY_CHANGES_CHANNEL = 'api_key_changes';

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
 * Invalidation rule: an entry is served only while this process's key-change listener vouches that it missed no
 * announcement (`vouch`: its connection LISTENs and answered a heartbeat within the last second, see
 * keyChangeListener.ts); without a listener nothing is served. An entry is dropped (a) when the database announces
 * a change to that key or one of its ancestors on KEY_CHANGES_CHANNEL, (b) by this process at once when it makes
 * such a change itself (`dropChangedKeysHere`), (c) wholesale when the listener's connection is lost or
 * re-established, and (d) at the latest `ttlMs` after it was loaded, the bound for a change that bypassed the
 * trigger (triggers disabled during a restore). Time-based lapses (the key's own `expires_at`/`revoked_at`, an
 * ancestor's) are checked against the request's `now` on every hit, so they need no invalidation. Unknown keys are
 * never cached: a key minted a moment ago is found on its first use.
 */
export class KeyCache<Row extends KeyIdentity = KeyIdentity> {
  private readonly entries = new Map<string, Entry<Row>>();
  /** Real (monotonic) time until which the listener vouches for the entries; before any listener, never. */
  private vouchedUntilMs = -Infinity;
  hits = 0;
  misses = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {
    liveCaches.add(this as unknown as KeyCache<KeyIdentity>);
  }

  get(keyHash: string): CachedKey<Row> | undefined {
    const now = performance.now();
    const entry = this.vouchedUntilMs > now ? this.entries.get(keyHash) : undefined;
    if (entry && entry.staleAtMs > now) {
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

  /**
   * The listener saw every announcement made before a heartbeat it sent; entries may be served until `untilMs`
   * (performance.now() time). `-Infinity` when its connection is lost.
   */
  vouch(untilMs: number): void {
    this.vouchedUntilMs = untilMs;
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
 * Drops these keys (and their descendants) from this process's caches now and again once `trx` settles, so a
 * request racing the commit cannot keep the old row either. Other processes drop them when the trigger's
 * announcement reaches them on commit (KEY_CHANGES_CHANNEL).
 */
export function dropChangedKeysHere(trx: Knex.Transaction, keyIds: readonly string[]): void {
  if (keyIds.length === 0) return;
  const dropLocally = () => {
    for (const cache of liveCaches) cache.invalidate(keyIds);
  };
  dropLocally();
  void trx.executionPromise?.then(dropLocally, dropLocally);
}
