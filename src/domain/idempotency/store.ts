/**
 * Postgres-backed idempotency records, shared by every API instance. A record is claimed
 * (in_progress, with a lease and a fencing token) before the handler runs and completed with the
 * response, or deleted when the outcome must not be replayed. Records live 12 hours.
 *
 * The lease is renewed while the request runs, so only a request that stopped renewing (its
 * process died or lost the database) is taken over. A takeover writes a new token; completing,
 * renewing and releasing all require the token, so the request that lost its lease can neither
 * complete the record nor, when it completes inside its own transaction, commit its effect.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { preparedStatement } from '../../platform/db/prepared';

export const IDEMPOTENCY_TTL_MS = 12 * 60 * 60 * 1000;
/** A request that has not renewed its lease for this long is presumed dead; a retry may take it over. */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;
/** How often a running request renews its lease: three chances before it can lapse. */
export const IDEMPOTENCY_LEASE_RENEW_MS = IDEMPOTENCY_LEASE_MS / 3;

/** A record owned by one request: its id and the fencing token of this request's claim. */
export interface IdempotencyLease {
  recordId: string;
  leaseToken: string;
}

/** The record was taken over by another request (this one's lease lapsed): nothing of this request may commit. */
export class IdempotencyLeaseLostError extends Error {
  constructor(readonly recordId: string) {
    super(`idempotency record ${recordId} is no longer held by this request`);
    this.name = 'IdempotencyLeaseLostError';
  }
}

export interface IdempotencyIdentity {
  principalKeyId: string;
  scope: string;
  idempotencyKey: string;
  fingerprint: string;
}

export type Claim =
  | { kind: 'owned'; lease: IdempotencyLease }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'reused' }
  | { kind: 'in_progress' };

export function fingerprintOf(value: unknown): string {
  return crypto.createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** JSON with sorted object keys, so `{a,b}` and `{b,a}` are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The claim's upsert (a CTE named `claimed`): a new, expired or abandoned record is claimed, its id returned. Bindings
 * are CLAIM_BINDINGS.
 */
export const CLAIMED_CTE_SQL = `claimed as (
       insert into idempotency_keys (principal_key_id, scope, idempotency_key, fingerprint, state, locked_until, lease_token, created_at, expires_at)
       values (:idem_principal, :idem_scope, :idem_key, :idem_fingerprint, 'in_progress', :idem_locked_until, :idem_lease_token, :idem_now, :idem_expires_at)
       on conflict (principal_key_id, scope, idempotency_key) do update
         set fingerprint = excluded.fingerprint, state = 'in_progress', locked_until = excluded.locked_until, lease_token = excluded.lease_token,
             response_status = null, response_body = null, created_at = excluded.created_at, expires_at = excluded.expires_at
         where idempotency_keys.expires_at <= :idem_now
            or (idempotency_keys.state = 'in_progress' and idempotency_keys.locked_until <= :idem_now and idempotency_keys.fingerprint = excluded.fingerprint)
       returning id
     )`;

/**
 * The claim's answer after CLAIMED_CTE_SQL, one row: the claimed record's id, or (claiming nothing) the record that
 * stands, which the outer SELECT reads in the snapshot taken before the upsert, holding any record committed before
 * this request began. `extra` lets a statement answer more beside the claim (claimCountingHit.ts): its `columns` on
 * the claimed row (from what `join` adds), and `nulls` in their place on the standing record's.
 */
export function claimAnswerSql(extra: { columns: string; nulls: string; join: string } = { columns: '', nulls: '', join: '' }): string {
  return `select true as claimed, claimed.id, null as fingerprint, null as state, null::int as response_status, null::jsonb as response_body${extra.columns}
       from claimed ${extra.join}
     union all
     select false, id, fingerprint, state, response_status, response_body${extra.nulls} from idempotency_keys
      where principal_key_id = :idem_principal and scope = :idem_scope and idempotency_key = :idem_key and not exists (select 1 from claimed)`;
}

/** The bindings of the claim's SQL, in the order `claimValues` gives them. */
export const CLAIM_BINDINGS = [
  'idem_principal',
  'idem_scope',
  'idem_key',
  'idem_fingerprint',
  'idem_locked_until',
  'idem_lease_token',
  'idem_now',
  'idem_expires_at',
] as const;

/** A claim of `id` at `now`: the values of CLAIM_BINDINGS, under a new lease token. */
export function claimValues(id: IdempotencyIdentity, now: Date): { leaseToken: string; values: unknown[] } {
  const leaseToken = crypto.randomUUID();
  const values = [
    id.principalKeyId,
    id.scope,
    id.idempotencyKey,
    id.fingerprint,
    new Date(now.getTime() + IDEMPOTENCY_LEASE_MS),
    leaseToken,
    now,
    new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
  ];
  return { leaseToken, values };
}

/** What the claim's SQL answers. */
export interface ClaimRow {
  claimed: boolean;
  id: string;
  fingerprint: string | null;
  state: string | null;
  response_status: number | null;
  response_body: unknown;
}

/** The claim, prepared once per connection: it runs on every request that carries an `Idempotency-Key`. */
const claimStatement = preparedStatement('idempotency_claim', `with ${CLAIMED_CTE_SQL} ${claimAnswerSql()}`, CLAIM_BINDINGS);

/** One round trip: the claim's upsert, and when it claims nothing the record that stands. */
export async function claimIdempotencyKey(db: Knex, id: IdempotencyIdentity, now: Date): Promise<Claim> {
  const { leaseToken, values } = claimValues(id, now);
  return claimOf(id, leaseToken, (await claimStatement<ClaimRow>(db, values)).at(0));
}

/** What the claim's answer means for the request. */
export function claimOf(id: IdempotencyIdentity, leaseToken: string, row: ClaimRow | undefined): Claim {
  if (row?.claimed) return { kind: 'owned', lease: { recordId: String(row.id), leaseToken } };
  // Committed by a concurrent request after this statement's snapshot, or released meanwhile: ask for a retry.
  if (!row) return { kind: 'in_progress' };
  if (row.fingerprint !== id.fingerprint) return { kind: 'reused' };
  if (row.state === 'in_progress') return { kind: 'in_progress' };
  return { kind: 'replay', status: row.response_status!, body: row.response_body };
}

/** The fence every completion passes: the record is still in progress under this request's lease token. */
const HELD_BY_LEASE_SQL = `state = 'in_progress' and lease_token = :idem_lease_token`;
/** What a completion stores: the answer, and the end of the lease (`locked_until` is the completion's time). */
const COMPLETED_SQL = `state = 'completed', response_status = :idem_status, response_body = cast(:idem_body as jsonb), locked_until = :idem_at`;
/** The named bindings of a completion's SQL, in the order `completionValues` gives them. */
export const COMPLETION_BINDINGS = ['idem_status', 'idem_body', 'idem_at', 'idem_record_id', 'idem_lease_token'] as const;

/** The completion, prepared once per connection outside a transaction (every idempotent write ends with it). */
const completeStatement = preparedStatement(
  'idempotency_complete',
  `update idempotency_keys set ${COMPLETED_SQL}
    where id = cast(:idem_record_id as bigint) and ${HELD_BY_LEASE_SQL}
    returning id`,
  COMPLETION_BINDINGS,
);

/** Stores the response; inside the handler's transaction, a lost lease rolls the effect back with it. */
export async function completeIdempotencyKey(
  db: Knex | Knex.Transaction,
  lease: IdempotencyLease,
  status: number,
  body: unknown,
  now: Date,
): Promise<void> {
  const updated = await completeStatement(db, completionValues({ lease, status, body, at: now }));
  if (updated.length !== 1) throw new IdempotencyLeaseLostError(lease.recordId);
}

/** A completion another area writes in its own one statement, with the effect it answers (`completionFenceSql`). */
export interface IdempotencyCompletion {
  lease: IdempotencyLease;
  status: number;
  body: unknown;
  at: Date;
}

/** The values of `COMPLETION_BINDINGS`, in order; all null when the request carries no Idempotency-Key. */
export function completionValues(completion: IdempotencyCompletion | undefined): unknown[] {
  if (!completion) return COMPLETION_BINDINGS.map(() => null);
  return [
    completion.status,
    JSON.stringify(completion.body ?? null),
    completion.at,
    completion.lease.recordId,
    completion.lease.leaseToken,
  ];
}

/*
 * A completion folded into another area's one statement: the effect and its idempotent answer commit together or not
 * at all, without a transaction. Two CTEs come first, before anything is written, the third after the effect's:
 * - `idem_lease` locks the record while this request's lease holds it; `idem_fence` is one row whose `ok` says the
 *   statement may write: no record was asked for (no Idempotency-Key: `idem_record_id` null), or the lease holds.
 *   When it does not (the record was taken over), the statement writes nothing and its caller throws
 *   `IdempotencyLeaseLostError`, as a completion inside a transaction rolls it back.
 * - `idem_completed` stores the answer on the locked record when `when` (an SQL condition: the effect was written) holds.
 * Named bindings: `COMPLETION_BINDINGS`.
 */
export const COMPLETION_FENCE_SQL = `idem_lease as materialized (
       select id from idempotency_keys where id = cast(:idem_record_id as bigint) and ${HELD_BY_LEASE_SQL} for update
     ), idem_fence as materialized (
       select cast(:idem_record_id as bigint) is null or exists (select 1 from idem_lease) as ok
     )`;

export function completionWriteSql(when: string): string {
  return `idem_completed as (
       update idempotency_keys set ${COMPLETED_SQL}
        where id = (select id from idem_lease) and ${when}
        returning id
     )`;
}

/** Extends a running request's lease; false when the record is no longer this request's. */
export async function renewIdempotencyLease(db: Knex, lease: IdempotencyLease, now: Date): Promise<boolean> {
  const updated = await db('idempotency_keys')
    .where({ id: lease.recordId, state: 'in_progress', lease_token: lease.leaseToken })
    .update({ locked_until: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS) });
  return updated === 1;
}

/** Deletes the record if this request still holds it, so a retry is evaluated afresh. */
export async function releaseIdempotencyKey(db: Knex, lease: IdempotencyLease): Promise<void> {
  await db('idempotency_keys').where({ id: lease.recordId, state: 'in_progress', lease_token: lease.leaseToken }).del();
}

/** Deletes the record this request holds or completed, in either state: its effect was undone. */
export async function forgetIdempotencyKey(db: Knex, lease: IdempotencyLease): Promise<void> {
  await db('idempotency_keys').where({ id: lease.recordId, lease_token: lease.leaseToken }).del();
}

export async function purgeExpiredIdempotencyKeys(db: Knex, now: Date): Promise<number> {
  return db('idempotency_keys').where('expires_at', '<=', now).del();
}
