import type { Db } from '../../../platform/db/knex';

/** What is created at the carrier: a call, a message, or a transfer of a live call. */
export type CreateKind = 'call' | 'message' | 'transfer';

/** What is known of a create before it is sent. */
export interface CreateAttempt {
  /** The carrier's id, when an earlier attempt got it. */
  carrierId: string | null;
  /** The database's clock at the first attempt. */
  firstAttemptAt: Date;
  /**
   * The latest moment an earlier attempt could have created something: when the last one ended, or the
   * deadline it ran to. Null on a first attempt, and for records of attempts older than this field.
   */
  earlierAttemptsUntil: Date | null;
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
      // `earlier` reads the record as it was before the claim (one snapshot): when the earlier attempts ended.
      const result = await db.raw(
        `with earlier as (select running_until from ${TABLE} where kind = ? and key = ?),
         claimed as (
           insert into ${TABLE} (kind, key, running_until) values (?, ?, now() + ? * interval '1 millisecond')
           on conflict (kind, key) do update set running_until = excluded.running_until
             where ${TABLE}.carrier_id is null and (${TABLE}.running_until is null or ${TABLE}.running_until <= now())
           returning first_attempt_at, carrier_id, (xmax <> 0) as retried
         )
         select first_attempt_at, carrier_id, retried, false as in_flight, (select running_until from earlier) as earlier_until from claimed
         union all
         select first_attempt_at, carrier_id, true, carrier_id is null, running_until from ${TABLE}
          where kind = ? and key = ? and not exists (select 1 from claimed)`,
        [kind, key, kind, key, runningMs, kind, key],
      );
      const row = result.rows[0] as {
        first_attempt_at: Date;
        carrier_id: string | null;
        retried: boolean;
        in_flight: boolean;
        earlier_until: Date | null;
      };
      return {
        carrierId: row.carrier_id,
        firstAttemptAt: row.first_attempt_at,
        earlierAttemptsUntil: row.retried ? row.earlier_until : null,
        retried: row.retried,
        inFlight: row.in_flight,
      };
    },
    async finish(kind, key, carrierId) {
      // Done, or over without an id: then its deadline becomes when it ended, the end of the window a retry looks in.
      await db(TABLE)
        .where({ kind, key })
        .update(carrierId ? { running_until: null, carrier_id: carrierId } : { running_until: db.raw('least(running_until, now())') });
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
 * carrier for what it may have created within the earlier attempts' window (unclaimed by any other
 * create), and only when nothing is there is the create sent again. A carrier that cannot be asked
 * (Twilio's test credentials) passes no `find`: the create is then sent again.
 */
export async function createOnce(
  attempts: CreateAttempts,
  kind: CreateKind,
  key: string,
  steps: {
    runningMs: number;
    /** What the carrier created from `since` to `until` (the earlier attempts' window, widened by the clock skew; no `until`: up to now). */
    find?: (since: Date, until: Date | undefined) => Promise<string[]>;
    create: () => Promise<string>;
  },
): Promise<string> {
  const attempt = await attempts.begin(kind, key, steps.runningMs);
  if (attempt.carrierId) return attempt.carrierId;
  if (attempt.inFlight) throw new CreateInFlightError(kind, key);
  let carrierId: string | null = null;
  try {
    if (attempt.retried && steps.find) {
      const since = new Date(attempt.firstAttemptAt.getTime() - CLOCK_SKEW_MS);
      const until = attempt.earlierAttemptsUntil ? new Date(attempt.earlierAttemptsUntil.getTime() + CLOCK_SKEW_MS) : undefined;
      for (const candidate of await steps.find(since, until)) {
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
