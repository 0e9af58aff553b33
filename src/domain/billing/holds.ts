/**
 * Reservations. Before a call, one minute is held; each further minute extends the hold;
 * the end of the call settles the exact charge and releases the rest. Every hold is decided
 * under the account row lock, which also carries what the active holds set aside (`held_cents`),
 * so concurrent holds can never spend past the balance, a key's
 * grant spend limit or an agent key's monthly cap. A key's spend is that of its whole subtree
 * (every key it minted, theirs, ...) across its rotations, so each cap holds across delegation.
 */
import type { Knex } from 'knex';
import { LINEAGE_OF_KEY_SQL, spendingKeysSql } from '../keys/ancestry';
import { balanceOf, ensureAccount, lockAccount, type BillingTenant, type LedgerTransaction, type TransactionType } from './ledger';
import { monthStart, nextMonthStart } from './periods';

export type HoldRefusal =
  | { code: 'insufficient_credits'; availableCents: number; requiredCents: number }
  | { code: 'agent_cap_exceeded'; spentCents: number; capCents: number; cycleResetAt: Date | null; requiredCents?: number };

export type HoldOutcome = { ok: true; holdId: string; heldCents: number } | { ok: false; refusal: HoldRefusal };

/** Charge types that count as a key's spend. */
export const SPEND_TYPES: readonly TransactionType[] = ['call_charge', 'sms_charge', 'number_fee'];

/**
 * What counts against each key's caps in the UTC month of `at`: the charges of its rotation chain
 * and of every key below it. Keys without charges are absent.
 */
export async function monthlySpendByKey(db: Knex, keyIds: readonly string[], at: Date): Promise<Map<string, number>> {
  if (keyIds.length === 0) return new Map();
  const { rows } = await db.raw(
    `select k.id,
            (select coalesce(-sum(t.amount_cents), 0) from ledger_transactions t
              where t.actor_key_id in (${spendingKeysSql('k.lineage_id')})
                and t.type = any(?) and t.created_at >= ? and t.created_at < ?)::bigint as spent
       from api_keys k where k.id = any(?::uuid[])`,
    [[...SPEND_TYPES], monthStart(at), nextMonthStart(at), [...keyIds]],
  );
  return new Map(
    (rows as Array<{ id: string; spent: string }>).filter((row) => Number(row.spent) !== 0).map((row) => [row.id, Number(row.spent)]),
  );
}

/**
 * Records every key's spend in the UTC month `period` (`YYYY-MM`, starting at `start`), recomputed from the
 * ledger on every run: a re-run picks up postings stamped in the month but committed after
 * an earlier close, and writes the same figures otherwise, so the record converges.
 * Returns how many keys' records were written.
 */
export async function closeSpendPeriod(db: Knex, month: { period: string; start: Date }, now: Date): Promise<number> {
  const result = await db.raw(
    `insert into spend_periods (key_id, period, workspace_id, environment, spent_cents, closed_at)
     select actor_key_id, ?, workspace_id, environment, -sum(amount_cents), ?
       from ledger_transactions
      where actor_key_id is not null and type = any(?) and created_at >= ? and created_at < ?
      group by actor_key_id, workspace_id, environment
     on conflict (key_id, period) do update set spent_cents = excluded.spent_cents, closed_at = excluded.closed_at
      where spend_periods.spent_cents <> excluded.spent_cents`,
    [month.period, now, [...SPEND_TYPES], month.start, nextMonthStart(month.start)],
  );
  return result.rowCount ?? 0;
}

interface KeyLimits {
  id: string;
  spend_limit_cents: string | null;
  spend_reset_period: 'monthly' | null;
  monthly_cap_cents: string | null;
}

/** Charges posted since `from` (all time when null) by the key's subtree and rotation chain, plus what their active holds set aside. */
async function keySpend(trx: Knex.Transaction, keyId: string, from: Date | null, until: Date | null): Promise<number> {
  const spendingKeys = spendingKeysSql(LINEAGE_OF_KEY_SQL);
  const charges = trx('ledger_transactions')
    .whereRaw(`actor_key_id in (${spendingKeys})`, [keyId, keyId])
    .whereIn('type', [...SPEND_TYPES]);
  if (from) charges.andWhere('created_at', '>=', from);
  if (until) charges.andWhere('created_at', '<', until);
  const [{ spent }] = await charges.select(trx.raw('coalesce(-sum(amount_cents), 0)::bigint as spent'));
  const [{ held }] = await trx('spend_holds')
    .whereRaw(`key_id in (${spendingKeys})`, [keyId, keyId])
    .andWhere({ status: 'active' })
    .select(trx.raw('coalesce(sum(amount_cents), 0)::bigint as held'));
  return Number(spent) + Number(held);
}

/** The tightest limit the key is under, checked for `amountCents` more; undefined when within all. */
async function capRefusal(trx: Knex.Transaction, key: KeyLimits, amountCents: number, at: Date): Promise<HoldRefusal | undefined> {
  const caps: Array<{ cap: number; from: Date | null; until: Date | null }> = [];
  if (key.monthly_cap_cents !== null) caps.push({ cap: Number(key.monthly_cap_cents), from: monthStart(at), until: nextMonthStart(at) });
  if (key.spend_limit_cents !== null) {
    const monthly = key.spend_reset_period === 'monthly';
    caps.push({ cap: Number(key.spend_limit_cents), from: monthly ? monthStart(at) : null, until: monthly ? nextMonthStart(at) : null });
  }
  for (const { cap, from, until } of caps) {
    const spent = await keySpend(trx, key.id, from, until);
    if (spent + amountCents > cap)
      return { code: 'agent_cap_exceeded', spentCents: spent, capCents: cap, cycleResetAt: until, requiredCents: amountCents };
  }
  return undefined;
}

/** Called with the account lock held. The acting key's caps first, then each capped ancestor's, nearest first. */
async function capsRefusal(trx: Knex.Transaction, keyId: string, amountCents: number, at: Date): Promise<HoldRefusal | undefined> {
  // The key and its ancestors that carry a cap, in one query; checked nearest first.
  const capped = await trx<KeyLimits & { depth: number }>('api_keys')
    .whereRaw('id = any(array[?]::uuid[] || (select a.ancestor_ids from api_keys a where a.id = ?))', [keyId, keyId])
    .andWhere((q) => q.whereNotNull('spend_limit_cents').orWhereNotNull('monthly_cap_cents'))
    .select('id', 'spend_limit_cents', 'spend_reset_period', 'monthly_cap_cents', trx.raw('cardinality(ancestor_ids) as depth'))
    .orderBy('depth', 'desc');
  for (const limits of capped) {
    const refusal = await capRefusal(trx, limits, amountCents, at);
    if (refusal) return refusal;
  }
  return undefined;
}

/*
 * Each posting on a hold is one statement (a function of migration 0019) run in autocommit, so a
 * workspace's account row is locked for that statement and its commit only. The function decides
 * availability from the account row (`balance_cents - held_cents`, kept by the same statements),
 * under its lock. A key under a cap (its own or an ancestor's) is answered `capped`: the caps are then
 * checked here, in a transaction holding the account lock, and the function is called again inside it.
 */
export interface HoldStatementRow {
  outcome: 'held' | 'insufficient_credits' | 'capped' | 'no_account' | 'no_active_hold';
  hold_id: string | null;
  hold_cents: string | null;
  available_cents: string | null;
}

export type PlaceHoldInput = { tenant: BillingTenant; keyId: string | null; reference: string; amountCents: number; at: Date };
type ExtendHoldInput = { tenant: BillingTenant; reference: string; totalCents: number; at: Date };

/** Runs one of migration 0019's hold functions, whose first two parameters name the account. */
async function holdStatement(
  db: Knex,
  fn: 'ledger_place_hold' | 'ledger_extend_hold',
  tenant: BillingTenant,
  args: Knex.RawBinding[],
): Promise<HoldStatementRow> {
  const params = [tenant.workspaceId, tenant.environment, ...args];
  const { rows } = await db.raw(`select * from ${fn}(${params.map(() => '?').join(', ')})`, params);
  return rows[0];
}

const placeHoldStatement = (db: Knex, input: PlaceHoldInput, capsChecked: boolean) =>
  holdStatement(db, 'ledger_place_hold', input.tenant, [input.keyId, input.reference, input.amountCents, input.at, capsChecked]);

const extendHoldStatement = (db: Knex, input: ExtendHoldInput, capsChecked: boolean) =>
  holdStatement(db, 'ledger_extend_hold', input.tenant, [input.reference, input.totalCents, capsChecked]);

/** The outcome of a statement that did not answer `capped`; `requiredCents` is what a refusal says was asked for. */
function holdOutcome(row: HoldStatementRow, reference: string, requiredCents: (heldCents: number) => number): HoldOutcome {
  switch (row.outcome) {
    case 'held':
      return { ok: true, holdId: row.hold_id!, heldCents: Number(row.hold_cents) };
    case 'insufficient_credits':
      return {
        ok: false,
        refusal: {
          code: 'insufficient_credits',
          availableCents: Number(row.available_cents),
          requiredCents: requiredCents(Number(row.hold_cents)),
        },
      };
    case 'no_active_hold':
      throw new Error(`no active hold ${reference}`);
    default:
      throw new Error(`unexpected hold outcome ${row.outcome} for ${reference}`);
  }
}

/**
 * Whether a reservation of `amountCents` by `keyId` would be refused at `at`, by the rules `placeHold`
 * applies (the available balance, then every cap over the key), reading only: nothing is held. A
 * campaign paused for funds asks it to know whether funds have returned (src/domain/campaigns/dispatch.ts).
 */
export async function holdRefusalNow(
  trx: Knex.Transaction,
  input: { tenant: BillingTenant; keyId: string | null; amountCents: number; at: Date },
): Promise<HoldRefusal | undefined> {
  const { balanceCents, heldCents } = await balanceOf(trx, input.tenant);
  if (balanceCents - heldCents < input.amountCents)
    return { code: 'insufficient_credits', availableCents: balanceCents - heldCents, requiredCents: input.amountCents };
  return input.keyId ? capsRefusal(trx, input.keyId, input.amountCents, input.at) : undefined;
}

/** The hold of `reference` (e.g. `call:<id>`) as it stands, if one was placed. */
export async function findHold(
  db: Knex,
  reference: string,
): Promise<{ status: 'active' | 'settled' | 'released'; amountCents: number } | undefined> {
  const hold = await db('spend_holds').where({ reference }).first('status', 'amount_cents');
  return hold && { status: hold.status, amountCents: Number(hold.amount_cents) };
}

/** Holds `amountCents` for `reference` (e.g. `call:<id>`). Placing the same reference again is a no-op. */
export async function placeHold(db: Knex, input: PlaceHoldInput): Promise<HoldOutcome> {
  return (await placeHoldBy(db, input, (runner, capsChecked) => placeHoldStatement(runner, input, capsChecked))).outcome;
}

/**
 * `placeHold` through the caller's own statement, one that calls `ledger_place_hold` with `input`'s values and
 * `capsChecked` among writes of its own that it makes only when the hold is placed (a message and its records:
 * ../messages/store.ts), so that the hold and what it pays for commit together in one round trip. The protocol is
 * placeHold's: an account is created when there is none, and a key under a cap has its caps checked under the account
 * lock, in a transaction the statement then runs in. Returns the outcome and the statement's last row.
 */
export async function placeHoldBy<Row extends HoldStatementRow>(
  db: Knex,
  input: PlaceHoldInput,
  statement: (runner: Knex, capsChecked: boolean) => Promise<Row>,
): Promise<{ outcome: HoldOutcome; row: Row }> {
  assertCents(input.amountCents);
  let row = await statement(db, false);
  if (row.outcome === 'no_account') {
    await ensureAccount(db, input.tenant);
    row = await statement(db, false);
  }
  if (row.outcome !== 'capped') return { outcome: holdOutcome(row, input.reference, () => input.amountCents), row };
  return db.transaction(async (trx) => {
    // The account lock first, so every hold of a workspace is decided one at a time; the caps are read under it.
    await lockAccount(trx, input.tenant);
    const existing = await trx('spend_holds').where({ reference: input.reference }).first('id');
    // A hold already placed is not decided again (the statement finds it and answers it held).
    if (!existing) {
      const refusal = await capsRefusal(trx, input.keyId!, input.amountCents, input.at);
      if (refusal) return { outcome: { ok: false, refusal } as HoldOutcome, row };
    }
    const checked = await statement(trx, true);
    return { outcome: holdOutcome(checked, input.reference, () => input.amountCents), row: checked };
  });
}

/**
 * Raises an active hold to `totalCents` (minute by minute during a call). Idempotent: a hold
 * already at or above the total is left alone, so a retried extension holds nothing twice.
 */
export async function extendHold(db: Knex, input: ExtendHoldInput): Promise<HoldOutcome> {
  assertCents(input.totalCents);
  const more = (heldCents: number) => input.totalCents - heldCents;
  const row = await extendHoldStatement(db, input, false);
  if (row.outcome !== 'capped') return holdOutcome(row, input.reference, more);
  return db.transaction(async (trx) => {
    await lockAccount(trx, input.tenant);
    const hold = await trx('spend_holds')
      .where({ reference: input.reference, workspace_id: input.tenant.workspaceId, environment: input.tenant.environment })
      .forUpdate()
      .first('id', 'key_id', 'amount_cents', 'status');
    if (!hold || hold.status !== 'active') throw new Error(`no active hold ${input.reference}`);
    if (more(Number(hold.amount_cents)) <= 0) return { ok: true, holdId: hold.id, heldCents: Number(hold.amount_cents) };
    const refusal = await capsRefusal(trx, hold.key_id, more(Number(hold.amount_cents)), input.at);
    if (refusal) return { ok: false, refusal };
    return holdOutcome(await extendHoldStatement(trx, input, true), input.reference, more);
  });
}

/**
 * Ends a hold with the exact charge: posts it to the ledger (reference `<hold reference>:settle`),
 * records the usage and releases what was not used, in one statement. Repeating it returns the first posting.
 */
export async function settleHold(
  db: Knex,
  input: {
    tenant: BillingTenant;
    reference: string;
    chargeCents: number;
    type: TransactionType;
    description: string;
    lineId?: string | null;
    referenceId?: string;
    referenceType?: string;
    /** The billable usage behind the charge, recorded with it for the usage endpoints. */
    usage?: { kind: 'call' | 'sms_outbound'; seconds?: number };
    at: Date;
  },
): Promise<{ transaction: LedgerTransaction | null; heldCents: number }> {
  assertCents(input.chargeCents);
  const { rows } = await db.raw(
    'select r.outcome, r.hold_cents, (r.posted).* from ledger_settle_hold(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) r',
    [
      input.tenant.workspaceId,
      input.tenant.environment,
      input.reference,
      input.chargeCents,
      input.type,
      input.description,
      input.lineId ?? null,
      input.referenceId ?? null,
      input.referenceType ?? null,
      input.usage?.kind ?? null,
      input.usage?.seconds ?? null,
      input.at,
    ],
  );
  const { outcome, hold_cents: heldCents, ...posted } = rows[0] as { outcome: string; hold_cents: string } & LedgerTransaction;
  if (outcome !== 'settled') throw new Error(`no hold ${input.reference}`);
  return { transaction: posted.id ? posted : null, heldCents: Number(heldCents) };
}

/** Releases the active hold of `reference`, if any (one statement, as the postings above). */
export async function releaseHold(db: Knex, input: { tenant: BillingTenant; reference: string; at: Date }): Promise<void> {
  await db.raw('select ledger_release_hold(?, ?, ?, ?)', [input.tenant.workspaceId, input.tenant.environment, input.reference, input.at]);
}

function assertCents(cents: number): void {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`amount must be integer cents, got ${cents}`);
}
