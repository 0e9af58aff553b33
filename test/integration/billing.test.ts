import crypto from 'node:crypto';
import { holdRefusalError } from '../../api/billingErrors';
import { extendHold, placeHold, settleHold, type HoldOutcome, type HoldRefusal } from '../../src/domain/billing/holds';
import { balanceOf, post, SIGNUP_CREDIT_CENTS, type BillingTenant } from '../../src/domain/billing/ledger';
import { creditAccount } from '../support/ledger';
import { createWorkspace } from '../../src/domain/workspaces/service';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { callChargeCents, oneMinuteReserveCents } from '../../src/domain/billing/pricing';
import { runCommand } from '../../src/main/cli';
import { useSuite } from '../support/suite';

/** The recordings settings' redaction as a workspace has it until it sets one (issue 32 item 5): nothing redacted. */
const NO_REDACTION = { kinds: [], custom: [], webhooks: false };

function refusalOf(outcome: HoldOutcome): HoldRefusal {
  if (outcome.ok) throw new Error('expected a refusal');
  return outcome.refusal;
}

/** Ledger, reservations and caps, and the billing endpoints. */
describe('billing', () => {
  const { h, tenant } = useSuite({ worker: true });
  let account: BillingTenant;
  beforeEach(() => {
    account = { workspaceId: tenant.workspaceId, environment: 'test' };
  });

  const credit = (cents: number) => creditAccount(h.db, account, cents);
  const ledgerSum = async () =>
    Number(
      (await h.db('ledger_transactions').where({ workspace_id: account.workspaceId, environment: 'test' }).sum('amount_cents as s'))[0].s,
    );
  const agentKey = async (monthlyCapCents: number | null) => {
    const res = await h.request('POST', '/v1/keys', {
      key: tenant.keys.serviceTest,
      body: { name: 'agent', monthly_cap_cents: monthlyCapCents },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    return res.body.key.id as string;
  };

  describe('ledger', () => {
    it('opens the test environment with the signup credit and the live one empty (issue 27, H5)', async () => {
      // A workspace as the CLI (or a verified signup) makes it; the suite's tenants carry fixture live funds.
      const { owner } = await createWorkspace(h.db, { name: 'Fresh', ownerEmail: `fresh+${crypto.randomUUID()}@example.test` });
      const keyOf = async (environment: 'test' | 'live') =>
        (await mintUserKey(h.db, { user: owner, environment, kind: 'standard', name: environment })).plaintext;
      const opened = { test: SIGNUP_CREDIT_CENTS, live: 0 };
      for (const environment of ['test', 'live'] as const) {
        const key = await keyOf(environment);
        const res = await h.request('GET', '/api/v1/billing/balance', { key });
        const cents = opened[environment];
        expect(res.body).toEqual({ credits: cents, cents, currency: 'USD', held_cents: 0, available_cents: cents });
        const txns = await h.request('GET', '/api/v1/billing/transactions', { key });
        expect(txns.body).toMatchObject({
          has_more: false,
          next_cursor: null,
          transactions: environment === 'test' ? [{ type: 'signup_credit', amount_credits: 500, balance_after_credits: 500 }] : [],
        });
      }
    });

    it('posts a reference once, however often it is retried, and the balance is the sum of the ledger', async () => {
      const posting = {
        tenant: account,
        type: 'refund' as const,
        amountCents: 123,
        description: 'refund',
        idempotencyRef: `refund:${crypto.randomUUID()}`,
        at: new Date(),
      };
      const results = await Promise.all(Array.from({ length: 10 }, () => post(h.db, posting)));
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      expect((await balanceOf(h.db, account)).balanceCents).toBe(SIGNUP_CREDIT_CENTS + 123);
      expect(await ledgerSum()).toBe(SIGNUP_CREDIT_CENTS + 123);
      await expect(post(h.db, { ...posting, idempotencyRef: 'x', amountCents: 1.5 })).rejects.toThrow(RangeError);
    });
  });

  describe('reservations', () => {
    it('holds, settles the exact per-second charge, and releases the rest', async () => {
      const reserve = oneMinuteReserveCents('webhook', 'A');
      const reference = `call:${crypto.randomUUID()}`;
      expect(await placeHold(h.db, { tenant: account, keyId: null, reference, amountCents: reserve, at: new Date() })).toMatchObject({
        ok: true,
        heldCents: 13,
      });
      expect(await balanceOf(h.db, account)).toEqual({ balanceCents: 500, heldCents: 13 });
      const extended = await extendHold(h.db, { tenant: account, reference, totalCents: 2 * reserve, at: new Date() });
      expect(extended).toMatchObject({ ok: true, heldCents: 26 });
      const charge = callChargeCents('webhook', 'A', 61_000);
      const settle = () =>
        settleHold(h.db, {
          tenant: account,
          reference,
          chargeCents: charge,
          type: 'call_charge',
          description: 'Call',
          usage: { kind: 'call', seconds: 61 },
          at: new Date(),
        });
      const first = await settle();
      const again = await settle();
      expect(again.transaction?.id).toBe(first.transaction?.id);
      expect(first.heldCents).toBe(26);
      expect(await balanceOf(h.db, account)).toEqual({ balanceCents: 500 - 14, heldCents: 0 });
      expect(await ledgerSum()).toBe(500 - 14);
    });

    it('refuses a hold the balance cannot cover: insufficient_credits', async () => {
      const outcome = await placeHold(h.db, {
        tenant: account,
        keyId: null,
        reference: `call:${crypto.randomUUID()}`,
        amountCents: 501,
        at: new Date(),
      });
      expect(outcome).toEqual({ ok: false, refusal: { code: 'insufficient_credits', availableCents: 500, requiredCents: 501 } });
      const error = holdRefusalError(refusalOf(outcome));
      expect(error).toMatchObject({ status: 402, code: 'insufficient_credits' });
    });

    it('50 concurrent holds can never pass the balance', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, () =>
          placeHold(h.db, { tenant: account, keyId: null, reference: `call:${crypto.randomUUID()}`, amountCents: 26, at: new Date() }),
        ),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(Math.floor(500 / 26));
      const { balanceCents, heldCents } = await balanceOf(h.db, account);
      expect(heldCents).toBeLessThanOrEqual(balanceCents);
    });

    it('50 concurrent holds racing against an agent key’s monthly cap never exceed it', async () => {
      await credit(100_000);
      const keyId = await agentKey(1000);
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, () =>
          placeHold(h.db, { tenant: account, keyId, reference: `call:${crypto.randomUUID()}`, amountCents: 26, at: new Date() }),
        ),
      );
      const granted = outcomes.filter((o) => o.ok);
      expect(granted).toHaveLength(Math.floor(1000 / 26));
      const refused = outcomes.find((o) => !o.ok);
      expect(refused).toMatchObject({ ok: false, refusal: { code: 'agent_cap_exceeded', capCents: 1000, spentCents: 38 * 26 } });
    });

    it('counts spend per UTC month exactly at the boundary; cycle_reset_at is the next boundary', async () => {
      await credit(100_000);
      const keyId = await agentKey(100);
      const lastMs = new Date('2026-01-31T23:59:59.999Z');
      const firstMs = new Date('2026-02-01T00:00:00.000Z');
      const reference = `call:${crypto.randomUUID()}`;
      await placeHold(h.db, { tenant: account, keyId, reference, amountCents: 100, at: lastMs });
      await settleHold(h.db, { tenant: account, reference, chargeCents: 100, type: 'call_charge', description: 'Call', at: lastMs });

      const sameMonth = await placeHold(h.db, {
        tenant: account,
        keyId,
        reference: `call:${crypto.randomUUID()}`,
        amountCents: 1,
        at: lastMs,
      });
      expect(sameMonth).toEqual({
        ok: false,
        refusal: { code: 'agent_cap_exceeded', spentCents: 100, capCents: 100, cycleResetAt: firstMs, requiredCents: 1 },
      });
      const error = holdRefusalError(refusalOf(sameMonth));
      expect(error.details).toEqual([
        { field: 'spent_cents', message: '100' },
        { field: 'cap_cents', message: '100' },
        { field: 'cycle_reset_at', message: '2026-02-01T00:00:00.000Z' },
      ]);
      expect(error.message).toBe('Monthly cap reached ($1.00). Cycle resets 2026-02-01T00:00:00.000Z.');

      const nextMonth = await placeHold(h.db, {
        tenant: account,
        keyId,
        reference: `call:${crypto.randomUUID()}`,
        amountCents: 100,
        at: firstMs,
      });
      expect(nextMonth.ok).toBe(true);
    });

    it('a lifetime grant spend limit never resets', async () => {
      await credit(100_000);
      const minted = await h.request('POST', '/api-tokens', {
        key: tenant.keys.test,
        body: { name: 'capped', grant: { scopes: ['calls:create'], spendLimit: { amountCents: 50, resetPeriod: null } } },
      });
      const keyId = minted.body.api_token.id;
      const reference = `call:${crypto.randomUUID()}`;
      await placeHold(h.db, { tenant: account, keyId, reference, amountCents: 50, at: new Date('2026-01-10T00:00:00Z') });
      await settleHold(h.db, {
        tenant: account,
        reference,
        chargeCents: 40,
        type: 'call_charge',
        description: 'Call',
        at: new Date('2026-01-10T00:01:00Z'),
      });
      const later = await placeHold(h.db, {
        tenant: account,
        keyId,
        reference: `call:${crypto.randomUUID()}`,
        amountCents: 11,
        at: new Date('2027-06-01T00:00:00Z'),
      });
      expect(later).toEqual({
        ok: false,
        refusal: { code: 'agent_cap_exceeded', spentCents: 40, capCents: 50, cycleResetAt: null, requiredCents: 11 },
      });
      expect(holdRefusalError(refusalOf(later)).message).toBe('Spend limit reached ($0.50). This limit does not reset.');
    });

    it('the key record shows this month’s spend', async () => {
      await credit(10_000);
      const keyId = await agentKey(5000);
      const reference = `call:${crypto.randomUUID()}`;
      await placeHold(h.db, { tenant: account, keyId, reference, amountCents: 26, at: new Date() });
      await settleHold(h.db, { tenant: account, reference, chargeCents: 17, type: 'call_charge', description: 'Call', at: new Date() });
      const key = await h.request('GET', `/v1/keys/${keyId}`, { key: tenant.keys.serviceTest });
      expect(key.body.key.monthly_spend_cents).toBe(17);
    });
  });

  describe('endpoints', () => {
    it('pages transactions newest first, every row exactly once, even when timestamps tie', async () => {
      const at = new Date('2026-03-01T12:00:00.000Z');
      for (let i = 0; i < 45; i += 1)
        await post(h.db, {
          tenant: account,
          type: 'refund',
          amountCents: 1,
          description: `r${i}`,
          idempotencyRef: `tie:${crypto.randomUUID()}`,
          at,
        });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { transactions: Array<{ id: string }>; next_cursor: string | null; has_more: boolean } } = await h.request(
          'GET',
          `/api/v1/billing/transactions?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { key: tenant.keys.test },
        );
        seen.push(...page.body.transactions.map((t) => t.id));
        cursor = page.body.next_cursor;
        expect(page.body.has_more).toBe(cursor !== null);
      } while (cursor);
      expect(seen).toHaveLength(46);
      expect(new Set(seen).size).toBe(46);
      expect((await h.request('GET', '/api/v1/billing/transactions?limit=101', { key: tenant.keys.test })).status).toBe(422);
      expect((await h.request('GET', '/api/v1/billing/transactions?cursor=yesterday', { key: tenant.keys.test })).status).toBe(422);
    });

    it('refuses line-scoped keys the account’s transactions', async () => {
      const line = (
        await h.request('POST', '/api/v1/lines', {
          key: tenant.keys.test,
          body: { name: 'l', mode: 'webhook', webhook_url: 'https://a.example.test' },
        })
      ).body.line;
      const scoped = await h.request('POST', '/v1/keys', {
        key: tenant.keys.serviceTest,
        body: { name: 's', line_id: line.id },
        headers: { 'idempotency-key': crypto.randomUUID() },
      });
      const res = await h.request('GET', '/api/v1/billing/transactions', { key: scoped.body.key.plaintext_key });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'agent_scope_error', details: [{ field: 'line_id', message: line.id }] });
    });

    it('reports usage per day and per month, dense and oldest first', async () => {
      const now = h.clock.now();
      const today = now.toISOString().slice(0, 10);
      await h.db('usage_records').insert([
        {
          workspace_id: account.workspaceId,
          environment: 'test',
          kind: 'call',
          seconds: 90,
          cost_cents: 20,
          reference: crypto.randomUUID(),
          occurred_at: now,
        },
        {
          workspace_id: account.workspaceId,
          environment: 'test',
          kind: 'sms_outbound',
          cost_cents: 1,
          reference: crypto.randomUUID(),
          occurred_at: now,
        },
        {
          workspace_id: account.workspaceId,
          environment: 'test',
          kind: 'sms_inbound',
          cost_cents: 0,
          reference: crypto.randomUUID(),
          occurred_at: now,
        },
        {
          workspace_id: account.workspaceId,
          environment: 'live',
          kind: 'call',
          seconds: 60,
          cost_cents: 13,
          reference: crypto.randomUUID(),
          occurred_at: now,
        },
      ]);
      const daily = await h.request('GET', '/api/v1/usage/daily?days=3', { key: tenant.keys.test });
      expect(daily.body.daily).toHaveLength(3);
      expect(daily.body.daily[2]).toEqual({
        date: today,
        calls: 1,
        minutes: 1.5,
        sms_inbound: 1,
        sms_outbound: 1,
        cost_credits: 21,
        cost_cents: 21,
      });
      expect(daily.body.daily[0]).toMatchObject({ calls: 0, cost_credits: 0 });
      const monthly = await h.request('GET', '/api/v1/usage/monthly?months=2', { key: tenant.keys.test });
      expect(monthly.body.monthly[1]).toMatchObject({ month: today.slice(0, 7), calls: 1, cost_credits: 21 });
      expect((await h.request('GET', '/api/v1/usage/daily?days=0', { key: tenant.keys.test })).status).toBe(422);
    });

    it('reads and changes settings; members cannot change them', async () => {
      // Auto-recharge starts off in the test environment (M7); live has it on.
      expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body).toEqual({
        default_webhook_url: null,
        auto_recharge_enabled: false,
        auto_recharge_threshold_cents: 500,
        auto_recharge_amount_cents: 2000,
        // No narrowing of the calling window until the workspace sets one (issue 31).
        calling_window: null,
        // Issue 32: only the recording and transcript are kept until the workspace asks for the events too, and the
        // carrier keeps its copy until the workspace asks for it to be deleted once stored.
        recordings: { store_events: false, retention_days: null, delete_at_carrier: false, redaction: NO_REDACTION },
      });
      const keepEvents = await h.request('PATCH', '/api/v1/settings', {
        key: tenant.keys.test,
        body: { recordings: { store_events: true } },
      });
      expect(keepEvents.body.recordings).toEqual({
        store_events: true,
        retention_days: null,
        delete_at_carrier: false,
        redaction: NO_REDACTION,
      });
      // The recordings settings change field by field: what a PATCH does not name stays.
      expect((await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { recordings: {} } })).body.recordings).toEqual({
        store_events: true,
        retention_days: null,
        delete_at_carrier: false,
        redaction: NO_REDACTION,
      });
      const deleteAtCarrier = await h.request('PATCH', '/api/v1/settings', {
        key: tenant.keys.test,
        body: { recordings: { delete_at_carrier: true } },
      });
      expect(deleteAtCarrier.body.recordings).toEqual({
        store_events: true,
        retention_days: null,
        delete_at_carrier: true,
        redaction: NO_REDACTION,
      });
      // The live environment's settings are its own.
      expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.live })).body.recordings).toEqual({
        store_events: false,
        retention_days: null,
        delete_at_carrier: false,
        redaction: NO_REDACTION,
      });
      for (const recordings of [
        { store_events: 'yes' },
        { delete_at_carrier: 'yes' },
        { delete_at_carrier: 1 },
        { delete_at_carrier: null },
      ]) {
        const refused = await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { recordings } });
        expect(refused.status).toBe(422);
      }
      expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body.recordings).toEqual({
        store_events: true,
        retention_days: null,
        delete_at_carrier: true,
        redaction: NO_REDACTION,
      });
      const patched = await h.request('PATCH', '/api/v1/settings', {
        key: tenant.keys.test,
        body: { default_webhook_url: 'https://hooks.example.test/all', auto_recharge_threshold_cents: 1000 },
      });
      expect(patched.body).toMatchObject({ default_webhook_url: 'https://hooks.example.test/all', auto_recharge_threshold_cents: 1000 });
      expect(
        (await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { auto_recharge_amount_cents: 100 } })).status,
      ).toBe(422);
      expect(
        (await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { default_webhook_url: 'ftp://x.example.test' } }))
          .status,
      ).toBe(422);
      const cleared = await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { default_webhook_url: null } });
      expect(cleared.body.default_webhook_url).toBeNull();
      // Live settings are separate.
      expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.live })).body.auto_recharge_threshold_cents).toBe(500);
      const member = await runCommand(h.db, ['user', 'add'], {
        workspace: tenant.workspaceId,
        email: `m+${Date.now()}@example.test`,
        role: 'member',
      });
      const memberKey = await runCommand(h.db, ['key', 'create'], {
        workspace: tenant.workspaceId,
        user: String(member.user_id),
        env: 'test',
      });
      expect(
        (await h.request('PATCH', '/api/v1/settings', { key: String(memberKey.key), body: { auto_recharge_enabled: false } })).status,
      ).toBe(403);
    });

    it('serves the voice catalog', async () => {
      const res = await h.request('GET', '/api/v1/voices', { key: tenant.keys.test });
      expect(res.body.voices).toHaveLength(13);
      expect(res.body.voices).toContainEqual(expect.objectContaining({ slug: 'aria', languages: ['multi'] }));
      expect(res.body.voices).toContainEqual(expect.objectContaining({ slug: 'hebrew-warm', languages: ['he'] }));
    });
  });
});
