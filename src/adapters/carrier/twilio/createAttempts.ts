import type { Db } from '../../../platform/db/knex';

/** What is created at the carrier: a call, a message, or a transfer of a live call. */
export type CreateKind = 'call' | 'message' | 'transfer';

/** What is known of a create before it is sent. */
export interface CreateAttempt {
  /** The carrier's id, when an earlier attempt got it. */
  carrierId: string | null;
  /** The database's clock at the first attempt. */
  firstAttemptAt: Date;
  /** An earlier attempt was recorded: it may have reached the carrier and lost its answer. */
  retried: boolean;
  /** An earlier attempt may still be waiting for the carrier's answer (on this or another worker). */
  inFlight: boolean;
}

/**
 * The durable record of creates sent to a carrier without an idempotency key (Twilio), shared by
 * every worker: a retry anywhere learns that an earlier attempt may have created the call or
 * message, whether that attempt may still be running, and which carrier ids are some create's.
 */
export interface CreateAttempts {
  /** Records an attempt that may run for `runningMs`, unless an earlier one may still be running or got its id. */
  begin(kind: CreateKind, key: string, runningMs: number): Promise<CreateAttempt>;
  /** The attempt ended, with the carrier's id or without (its answer lost or refused). */
  finish(kind: CreateKind, key: string, carrierId: string | null): Promise<void>;
  /** Whether `carrierId` is already recorded as the result of a create. */
  isClaimed(kind: CreateKind, carrierId: string): Promise<boolean>;
}

const TABLE = 'carrier_create_attempts';

export function postgresCreateAttempts(db: Db): CreateAttempts {
  return {
    async begin(kind, key, runningMs) {
      // One round trip: claim a new record, or one whose earlier attempt ended without an id; else read it.
      const result = await db.raw(
        `with claimed as (
           insert into ${TABLE} (kind, key, running_until) values (?, ?, now() + ? * interval '1 millisecond')
           on conflict (kind, key) do update set running_until = excluded.running_until
             where ${TABLE}.carrier_id is null and (${TABLE}.running_until is null or ${TABLE}.running_until <= now())
           returning first_attempt_at, carrier_id, (xmax <> 0) as retried
         )
         select first_attempt_at, carrier_id, retried, false as in_flight from claimed
         union all
         select first_attempt_at, carrier_id, true, carrier_id is null from ${TABLE}
          where kind = ? and key = ? and not exists (select 1 from claimed)`,
        [kind, key, runningMs, kind, key],
      );
      const row = result.rows[0] as { first_attempt_at: Date; carrier_id: string | null; retried: boolean; in_flight: boolean };
      return { carrierId: row.carrier_id, firstAttemptAt: row.first_attempt_at, retried: row.retried, inFlight: row.in_flight };
    },
    async finish(kind, key, carrierId) {
      await db(TABLE)
        .where({ kind, key })
        .update({ running_until: null, ...(carrierId ? { carrier_id: carrierId } : {}) });
    },
    async isClaimed(kind, carrierId) {
      return (await db(TABLE).where({ kind, carrier_id: carrierId }).first()) !== undefined;
    },
  };
}

/** How long a record is kept: far longer than any activity's retries of one create. */
export const CREATE_ATTEMPT_RETENTION_MS = 7 * 24 * 3600 * 1000;

export async function purgeOldCreateAttempts(db: Db, at: Date): Promise<number> {
  return db(TABLE)
    .where('first_attempt_at', '<', new Date(at.getTime() - CREATE_ATTEMPT_RETENTION_MS))
    .del();
}

/** The carrier's clock against the database's, and its whole-second timestamps: a created resource is looked for this much earlier. */
export const CLOCK_SKEW_MS = 5_000;

/** Refuses a create while an earlier attempt of it may still get its answer; the caller retries later. */
export class CreateInFlightError extends Error {
  constructor(kind: CreateKind, key: string) {
    super(`an earlier attempt to create ${kind} ${key} may still be waiting for the carrier; retry later`);
    this.name = 'CreateInFlightError';
  }
}

/**
 * Creates once per key on a carrier without idempotency keys. The attempt is recorded before it is
 * sent; while an earlier one may still be running, this one is refused (`CreateInFlightError`, to
 * be retried). When an earlier attempt ended without an id (its answer lost), `find` looks at the
 * carrier for what it may have created since (unclaimed by any other create), and only when
 * nothing is there is the create sent again.
 */
export async function createOnce(
  attempts: CreateAttempts,
  kind: CreateKind,
  key: string,
  steps: { runningMs: number; find: (since: Date) => Promise<string[]>; create: () => Promise<string> },
): Promise<string> {
  const attempt = await attempts.begin(kind, key, steps.runningMs);
  if (attempt.carrierId) return attempt.carrierId;
  if (attempt.inFlight) throw new CreateInFlightError(kind, key);
  let carrierId: string | null = null;
  try {
    if (attempt.retried) {
      for (const candidate of await steps.find(new Date(attempt.firstAttemptAt.getTime() - CLOCK_SKEW_MS))) {
        if (await attempts.isClaimed(kind, candidate)) continue;
        carrierId = candidate;
        return candidate;
      }
    }
    carrierId = await steps.create();
    return carrierId;
  } finally {
    await attempts.finish(kind, key, carrierId);
  }
}
