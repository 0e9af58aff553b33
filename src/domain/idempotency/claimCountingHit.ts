/**
 * The idempotency claim and the route's rate-limit hit in one round trip (issue 33). The hit is counted only when the
 * claim takes the record: a replay, a reused key or a request still in progress spends nothing, as when the limit
 * was counted in a statement of its own after the claim (docs/decisions/api.md "The claim counts the rate-limit hit").
 */
import type { Knex } from 'knex';
import { preparedStatement } from '../../platform/db/prepared';
import {
  CONSUME_BINDINGS,
  consumedDecision,
  consumeUpsertSql,
  consumeValues,
  type ConsumedRow,
  type LimitDecision,
} from '../limits/limiter';
import type { LimitPolicy } from '../limits/policies';
import {
  CLAIM_BINDINGS,
  CLAIMED_CTE_SQL,
  claimAnswerSql,
  claimOf,
  claimValues,
  type Claim,
  type ClaimRow,
  type IdempotencyIdentity,
} from './store';

const claimCountingHitStatement = preparedStatement(
  'idempotency_claim_counting_hit',
  `with ${CLAIMED_CTE_SQL}, hit as (
     ${consumeUpsertSql('select cast(:bucket as text), array[cast(:now as timestamptz)], false from claimed')}
   )
   ${claimAnswerSql({
     columns: ', hit.refused, hit.count, hit.oldest',
     nulls: ', null::boolean, null::int, null::timestamptz',
     join: 'left join hit on true',
   })}`,
  [...CLAIM_BINDINGS, ...CONSUME_BINDINGS],
);

/** A claim, and when it took the record, the limit's decision on the hit it counted. */
export type ClaimWithHit = { claim: Claim & { kind: 'owned' }; decision: LimitDecision } | { claim: Exclude<Claim, { kind: 'owned' }> };

export async function claimCountingHit(
  db: Knex,
  id: IdempotencyIdentity,
  limit: { bucket: string; policy: LimitPolicy },
  now: Date,
): Promise<ClaimWithHit> {
  const { leaseToken, values } = claimValues(id, now);
  const [row] = await claimCountingHitStatement<ClaimRow & { [K in keyof ConsumedRow]: ConsumedRow[K] | null }>(db, [
    ...values,
    ...consumeValues(limit.bucket, limit.policy, now),
  ]);
  const claim = claimOf(id, leaseToken, row);
  if (claim.kind !== 'owned') return { claim };
  if (row!.refused === null) throw new Error(`rate limit bucket ${limit.bucket} was not counted with the claim`);
  return { claim, decision: consumedDecision(limit.policy, row as ClaimRow & ConsumedRow, now) };
}
