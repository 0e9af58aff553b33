import type { Knex } from 'knex';

/**
 * Ledger postings in one round trip (issue 14). The account row carries what its active holds
 * set aside (`held_cents`, kept by the same statements that change the holds), so availability is
 * `balance_cents - held_cents` read under the row lock instead of a SUM over the holds. Placing,
 * extending, settling and releasing a hold are each one PL/pgSQL function, called in autocommit:
 * the account row lock is held for that one statement and its commit, not for several client
 * round trips. Each statement inside a function takes a fresh snapshot (read committed), so what
 * it reads after the lock is what the previous holder committed, as in the multi-statement path.
 *
 * Cap rules stay in src/domain/billing/holds.ts: a function meeting a key under a cap (the key or
 * one of its ancestors) answers `capped`, and the caller checks the caps under the account lock
 * and calls it again with `p_caps_checked`. Creating an account is left to the caller too
 * (`no_account`), which knows each environment's defaults.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table billing_accounts add column held_cents bigint not null default 0');
  await backfillHeldCents(knex);
  await knex.raw('alter table billing_accounts add constraint billing_accounts_held_not_negative check (held_cents >= 0)');

  // Whether the key, or a key above it, carries a spend limit or a monthly cap.
  await knex.raw(`
    create function ledger_key_capped(p_key uuid) returns boolean language sql stable as $$
      select exists (
        select 1 from api_keys k
         where k.id = any(array[p_key] || (select a.ancestor_ids from api_keys a where a.id = p_key))
           and (k.spend_limit_cents is not null or k.monthly_cap_cents is not null))
    $$`);

  // outcome: held (new, or the existing hold of the reference) | insufficient_credits | capped | no_account
  await knex.raw(`
    create function ledger_place_hold(
      p_workspace uuid, p_environment text, p_key uuid, p_reference text, p_amount bigint, p_at timestamptz, p_caps_checked boolean,
      out outcome text, out hold_id uuid, out hold_cents bigint, out available_cents bigint
    ) language plpgsql as $$
    declare
      v_balance bigint;
      v_held bigint;
    begin
      select a.balance_cents, a.held_cents into v_balance, v_held from billing_accounts a
       where a.workspace_id = p_workspace and a.environment = p_environment for update;
      if not found then outcome := 'no_account'; return; end if;
      select h.id, h.amount_cents into hold_id, hold_cents from spend_holds h where h.reference = p_reference;
      if found then outcome := 'held'; return; end if;
      if p_key is not null and not p_caps_checked and ledger_key_capped(p_key) then outcome := 'capped'; return; end if;
      if v_balance - v_held < p_amount then
        outcome := 'insufficient_credits'; available_cents := v_balance - v_held; return;
      end if;
      insert into spend_holds (workspace_id, environment, key_id, reference, amount_cents, status, created_at)
      values (p_workspace, p_environment, p_key, p_reference, p_amount, 'active', p_at)
      returning id, amount_cents into hold_id, hold_cents;
      update billing_accounts a set held_cents = a.held_cents + p_amount
       where a.workspace_id = p_workspace and a.environment = p_environment;
      outcome := 'held';
    end
    $$`);

  // outcome: held (raised to p_total, or already at or above it) | insufficient_credits | capped | no_active_hold
  // hold_cents is the hold's amount after the call (before it when refused).
  await knex.raw(`
    create function ledger_extend_hold(
      p_workspace uuid, p_environment text, p_reference text, p_total bigint, p_caps_checked boolean,
      out outcome text, out hold_id uuid, out hold_cents bigint, out available_cents bigint
    ) language plpgsql as $$
    declare
      v_balance bigint;
      v_held bigint;
      v_key uuid;
      v_status text;
    begin
      select a.balance_cents, a.held_cents into v_balance, v_held from billing_accounts a
       where a.workspace_id = p_workspace and a.environment = p_environment for update;
      if not found then outcome := 'no_active_hold'; return; end if;
      select h.id, h.amount_cents, h.key_id, h.status into hold_id, hold_cents, v_key, v_status from spend_holds h
       where h.reference = p_reference and h.workspace_id = p_workspace and h.environment = p_environment for update;
      if not found or v_status <> 'active' then outcome := 'no_active_hold'; return; end if;
      if p_total <= hold_cents then outcome := 'held'; return; end if;
      if v_key is not null and not p_caps_checked and ledger_key_capped(v_key) then outcome := 'capped'; return; end if;
      if v_balance - v_held < p_total - hold_cents then
        outcome := 'insufficient_credits'; available_cents := v_balance - v_held; return;
      end if;
      update spend_holds h set amount_cents = p_total where h.id = hold_id;
      update billing_accounts a set held_cents = a.held_cents + (p_total - hold_cents)
       where a.workspace_id = p_workspace and a.environment = p_environment;
      hold_cents := p_total;
      outcome := 'held';
    end
    $$`);

  // outcome: settled (posted null when nothing was charged) | no_hold. Repeating it returns the first posting.
  await knex.raw(`
    create function ledger_settle_hold(
      p_workspace uuid, p_environment text, p_reference text, p_charge bigint, p_type text, p_description text,
      p_line_id uuid, p_reference_id text, p_reference_type text, p_usage_kind text, p_usage_seconds integer, p_at timestamptz,
      out outcome text, out hold_cents bigint, out posted ledger_transactions
    ) language plpgsql as $$
    declare
      v_hold_id uuid;
      v_key uuid;
      v_status text;
      v_released bigint := 0;
      v_balance bigint;
    begin
      perform 1 from billing_accounts a where a.workspace_id = p_workspace and a.environment = p_environment for update;
      select h.id, h.key_id, h.amount_cents, h.status into v_hold_id, v_key, hold_cents, v_status from spend_holds h
       where h.reference = p_reference and h.workspace_id = p_workspace and h.environment = p_environment for update;
      if not found then outcome := 'no_hold'; return; end if;
      outcome := 'settled';
      if v_status = 'active' then
        update spend_holds h set status = 'settled', closed_at = p_at where h.id = v_hold_id;
        v_released := hold_cents;
      end if;
      if p_usage_kind is not null then
        insert into usage_records (workspace_id, environment, line_id, key_id, kind, seconds, cost_cents, reference, occurred_at)
        values (p_workspace, p_environment, p_line_id, v_key, p_usage_kind, p_usage_seconds, p_charge, p_reference, p_at)
        on conflict (reference) do nothing;
      end if;
      if p_charge <> 0 then
        select * into posted from ledger_transactions t where t.idempotency_ref = p_reference || ':settle';
        if found then p_charge := 0; end if;
      end if;
      if p_charge = 0 then
        if v_released <> 0 then
          update billing_accounts a set held_cents = a.held_cents - v_released
           where a.workspace_id = p_workspace and a.environment = p_environment;
        end if;
        return;
      end if;
      update billing_accounts a set held_cents = a.held_cents - v_released, balance_cents = a.balance_cents - p_charge, updated_at = p_at
       where a.workspace_id = p_workspace and a.environment = p_environment
      returning a.balance_cents into v_balance;
      insert into ledger_transactions (workspace_id, environment, type, amount_cents, balance_after_cents, description, idempotency_ref,
                                       reference_id, reference_type, actor_key_id, line_id, created_at)
      values (p_workspace, p_environment, p_type, -p_charge, v_balance, p_description, p_reference || ':settle',
              p_reference_id, p_reference_type, v_key, p_line_id, p_at)
      returning * into posted;
    end
    $$`);

  // Releases the active hold of the reference, if any.
  await knex.raw(`
    create function ledger_release_hold(p_workspace uuid, p_environment text, p_reference text, p_at timestamptz) returns void
    language plpgsql as $$
    declare
      v_amount bigint;
    begin
      perform 1 from billing_accounts a where a.workspace_id = p_workspace and a.environment = p_environment for update;
      update spend_holds h set status = 'released', closed_at = p_at
       where h.reference = p_reference and h.workspace_id = p_workspace and h.environment = p_environment and h.status = 'active'
      returning h.amount_cents into v_amount;
      if found then
        update billing_accounts a set held_cents = a.held_cents - v_amount
         where a.workspace_id = p_workspace and a.environment = p_environment;
      end if;
    end
    $$`);
}

/** Sets every account's `held_cents` to what its active holds set aside; returns how many accounts changed. */
export async function backfillHeldCents(knex: Knex): Promise<number> {
  const result = await knex.raw(`
    update billing_accounts a
       set held_cents = coalesce(h.held, 0)
      from billing_accounts b
      left join (select workspace_id, environment, sum(amount_cents) as held from spend_holds where status = 'active'
                  group by workspace_id, environment) h on h.workspace_id = b.workspace_id and h.environment = b.environment
     where a.workspace_id = b.workspace_id and a.environment = b.environment and a.held_cents is distinct from coalesce(h.held, 0)`);
  return result.rowCount ?? 0;
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function if exists ledger_release_hold(uuid, text, text, timestamptz)');
  await knex.raw(
    'drop function if exists ledger_settle_hold(uuid, text, text, bigint, text, text, uuid, text, text, text, integer, timestamptz)',
  );
  await knex.raw('drop function if exists ledger_extend_hold(uuid, text, text, bigint, boolean)');
  await knex.raw('drop function if exists ledger_place_hold(uuid, text, uuid, text, bigint, timestamptz, boolean)');
  await knex.raw('drop function if exists ledger_key_capped(uuid)');
  await knex.raw('alter table billing_accounts drop constraint if exists billing_accounts_held_not_negative');
  await knex.raw('alter table billing_accounts drop column if exists held_cents');
}
