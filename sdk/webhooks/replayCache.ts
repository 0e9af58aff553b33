/**
 * The receiver's memory: delivery ids already accepted (to refuse a replayed delivery) and
 * event ids already processed (to process each logical event once).
 */

/**
 * Remembers accepted delivery ids, to refuse a replayed delivery. Keep ids at least 5 minutes
 * (the spec's floor) and better 10: a delivery stamped up to 5 minutes in the future stays
 * fresh for 10 minutes from the moment it is accepted.
 *
 * {@link MemoryDeliveryIdStore} works for a single process. A receiver that runs several
 * instances behind a load balancer must share the store, e.g. Redis
 * (`SET webhook:delivery:<id> 1 NX EX 600`) or Postgres
 * (`INSERT INTO webhook_deliveries (id, seen_at) VALUES ($1, now()) ON CONFLICT DO NOTHING`,
 * pruning old rows), ideally through {@link DeliveryIdStore.claim} so the check is atomic
 * across instances.
 */
export interface DeliveryIdStore {
  /** Whether `id` was remembered and has not expired at `now`. */
  seen(id: string, now: Date): boolean | Promise<boolean>;
  /** Remembers `id` as accepted at `now`. */
  remember(id: string, now: Date): void | Promise<void>;
  /**
   * Optional atomic check-and-remember: records `id` and returns true if it was not already
   * remembered, returns false otherwise. When present it is used instead of `seen` + `remember`.
   */
  claim?(id: string, now: Date): boolean | Promise<boolean>;
}

/**
 * Processes each logical event once. `firstTime` claims an event id (true only for the first
 * live claim); `forget` drops a claim so a later delivery of the event is processed again, which
 * the handlers do when processing failed (the sender then retries).
 *
 * {@link MemoryEventDeduper} is per process. With several instances, or to survive restarts,
 * back it with a shared store (Redis `SET NX EX 86400`, a Postgres table with a unique key).
 * For exactly-once side effects, record the event id in the same database transaction as the
 * side effects instead.
 */
export interface EventDeduper {
  firstTime(eventId: string, now: Date): boolean | Promise<boolean>;
  forget(eventId: string): void | Promise<void>;
}

const MINUTE_MS = 60_000;
/** The spec's floor for remembering delivery ids. */
export const MIN_DELIVERY_ID_TTL_MS = 5 * MINUTE_MS;
export const DEFAULT_DELIVERY_ID_TTL_MS = 10 * MINUTE_MS;
export const DEFAULT_EVENT_TTL_MS = 24 * 60 * MINUTE_MS;
export const DEFAULT_MAX_ENTRIES = 100_000;

/**
 * A bounded in-memory set of ids with a time-to-live. Every method is synchronous, so a
 * check-and-record cannot interleave with another request in the same process.
 */
class TtlSet {
  /** id → expiry (ms since epoch). Insertion order is (close to) expiry order. */
  private readonly entries = new Map<string, number>();

  constructor(
    readonly ttlMs: number,
    readonly maxEntries: number,
  ) {
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive number');
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: string, now: Date): boolean {
    const expiresAt = this.entries.get(id);
    return expiresAt !== undefined && expiresAt > now.getTime();
  }

  add(id: string, now: Date): void {
    this.sweep(now);
    this.entries.delete(id);
    this.entries.set(id, now.getTime() + this.ttlMs);
    // Still over the bound with nothing expired: drop the oldest entries.
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Adds `id` unless live; true if it was added. */
  claim(id: string, now: Date): boolean {
    if (this.has(id, now)) return false;
    this.add(id, now);
    return true;
  }

  delete(id: string): void {
    this.entries.delete(id);
  }

  /** Drops expired entries from the oldest end. */
  sweep(now: Date): void {
    const t = now.getTime();
    for (const [id, expiresAt] of this.entries) {
      if (expiresAt > t) break;
      this.entries.delete(id);
    }
  }
}

/**
 * In-process {@link DeliveryIdStore}: ids live `ttlMs` (default 10 minutes, at least 5), at
 * most `maxEntries` of them (default 100 000); expired ids are evicted as new ones arrive, and
 * past the bound the oldest go first. Single-instance receivers only; see {@link DeliveryIdStore}.
 */
export class MemoryDeliveryIdStore implements DeliveryIdStore {
  private readonly ids: TtlSet;

  constructor(options: { ttlMs?: number; maxEntries?: number } = {}) {
    const ttlMs = options.ttlMs ?? DEFAULT_DELIVERY_ID_TTL_MS;
    if (ttlMs < MIN_DELIVERY_ID_TTL_MS) throw new RangeError(`Delivery ids must be kept at least ${MIN_DELIVERY_ID_TTL_MS} ms`);
    this.ids = new TtlSet(ttlMs, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
  }

  get size(): number {
    return this.ids.size;
  }

  seen(id: string, now: Date): boolean {
    return this.ids.has(id, now);
  }

  remember(id: string, now: Date): void {
    this.ids.add(id, now);
  }

  claim(id: string, now: Date): boolean {
    return this.ids.claim(id, now);
  }
}

/**
 * In-process {@link EventDeduper}: event ids live `ttlMs` (default 24 hours), at most
 * `maxEntries` (default 100 000), evicted like {@link MemoryDeliveryIdStore}'s.
 */
export class MemoryEventDeduper implements EventDeduper {
  private readonly ids: TtlSet;

  constructor(options: { ttlMs?: number; maxEntries?: number } = {}) {
    this.ids = new TtlSet(options.ttlMs ?? DEFAULT_EVENT_TTL_MS, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
  }

  get size(): number {
    return this.ids.size;
  }

  firstTime(eventId: string, now: Date = new Date()): boolean {
    return this.ids.claim(eventId, now);
  }

  forget(eventId: string): void {
    this.ids.delete(eventId);
  }
}

/**
 * Runs `fn` unless `eventId` was already claimed on `deduper`. If `fn` throws, the claim is
 * dropped (so a retry is processed) and the error rethrown.
 */
export async function processOnce<T>(
  deduper: EventDeduper,
  eventId: string,
  fn: () => T | Promise<T>,
  now: Date = new Date(),
): Promise<{ duplicate: true } | { duplicate: false; value: T }> {
  if (!(await deduper.firstTime(eventId, now))) return { duplicate: true };
  try {
    return { duplicate: false, value: await fn() };
  } catch (err) {
    await deduper.forget(eventId);
    throw err;
  }
}
