import crypto from 'node:crypto';
import { up as backfillSignupCredit } from '../../src/platform/db/migrations/0008_backfill_signup_credit';
import type { ApiKeyRow } from '../../src/domain/keys/store';
import { backfillKeyAncestry } from '../../src/platform/db/migrations/0012_key_ancestry';
import { disableUntouchedTestAutoRecharge, giveFirstTestLinesTheirGrace } from '../../src/platform/db/migrations/0015_billing_environments';
import { balanceOf } from '../../src/domain/billing/ledger';
import { createTenant } from '../support/harness';
import { useSuite } from '../support/suite';

describe('migrations', () => {
  const ctx = useSuite();

  it('0008 gives workspaces from before the ledger their account and signup credit, once', async () => {
    const { h, tenant } = ctx;
    // A workspace as it was before migration 0004: no billing account, no ledger.
    await h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId }).del();
    await h.db('billing_accounts').where({ workspace_id: tenant.workspaceId }).del();
    await backfillSignupCredit(h.db);
    await backfillSignupCredit(h.db);
    for (const environment of ['test', 'live'] as const) {
      expect(await balanceOf(h.db, { workspaceId: tenant.workspaceId, environment })).toEqual({ balanceCents: 500, heldCents: 0 });
      const rows = await h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId, environment });
      expect(rows).toMatchObject([{ type: 'signup_credit', amount_cents: '500', balance_after_cents: '500' }]);
    }
  });

  it('0012 gives existing keys their minting chain and rotation lineage, and revokes what sits under a revoked key', async () => {
    const { h, tenant } = ctx;
    const token = async (key: string, scopes: string[]) =>
      (await h.request('POST', '/api-tokens', { key, body: { name: 't', grant: { scopes } } })).body;
    const child = await token(tenant.keys.test, ['keys:admin', 'read']);
    const grandchild = await token(child.key, ['read']);
    const agent = (
      await h.request('POST', '/v1/keys', {
        key: tenant.keys.serviceTest,
        body: { name: 'a' },
        headers: { 'idempotency-key': crypto.randomUUID() },
      })
    ).body.key;
    const rotated = (
      await h.request('POST', `/v1/keys/${agent.id}/rotate`, {
        key: tenant.keys.serviceTest,
        headers: { 'idempotency-key': crypto.randomUUID() },
      })
    ).body.key;
    const keys = () => h.db<ApiKeyRow>('api_keys').where({ workspace_id: tenant.workspaceId });
    const expected = Object.fromEntries((await keys()).map((k) => [k.id, { ancestor_ids: k.ancestor_ids, lineage_id: k.lineage_id }]));
    expect(expected[grandchild.api_token.id].ancestor_ids).toEqual([child.api_token.parent_key_id, child.api_token.id]);
    expect(expected[rotated.id].lineage_id).toBe(agent.id);

    // As the rows stood before the migration: no chain, each key its own lineage, revocation not cascaded.
    await keys().update({ ancestor_ids: [], lineage_id: h.db.raw('id') });
    await h.db('api_keys').where({ id: child.api_token.id }).update({ revoked_at: new Date() });
    await backfillKeyAncestry(h.db);
    await backfillKeyAncestry(h.db);
    const after = await keys();
    expect(Object.fromEntries(after.map((k) => [k.id, { ancestor_ids: k.ancestor_ids, lineage_id: k.lineage_id }]))).toEqual(expected);
    expect(after.find((k) => k.id === grandchild.api_token.id)!.revoked_at).not.toBeNull();
    expect(
      after
        .filter((k) => k.revoked_at)
        .map((k) => k.id)
        .sort(),
    ).toEqual([child.api_token.id, grandchild.api_token.id, agent.id].sort());
  });

  it('0015 switches auto-recharge off in test accounts still at the shipped defaults, and only there', async () => {
    const { h, tenant } = ctx;
    const chose = await createTenant(h.db);
    const account = (workspaceId: string, environment: string) =>
      h.db('billing_accounts').where({ workspace_id: workspaceId, environment });
    // As 0004 left them: on, 500, 2000 everywhere; one owner had chosen a threshold of their own.
    await h.db('billing_accounts').whereIn('workspace_id', [tenant.workspaceId, chose.workspaceId]).update({ auto_recharge_enabled: true });
    await account(chose.workspaceId, 'test').update({ auto_recharge_threshold_cents: 1000 });
    await disableUntouchedTestAutoRecharge(h.db);
    expect((await account(tenant.workspaceId, 'test').first()).auto_recharge_enabled).toBe(false);
    expect((await account(tenant.workspaceId, 'live').first()).auto_recharge_enabled).toBe(true);
    expect((await account(chose.workspaceId, 'test').first()).auto_recharge_enabled).toBe(true);
  });

  it('0015 gives the first test line of each user the 30-day grace, once', async () => {
    const { h, tenant } = ctx;
    const insert = async (name: string, createdAt: string) =>
      (
        await h
          .db('lines')
          .insert({
            workspace_id: tenant.workspaceId,
            user_id: tenant.owner.id,
            environment: 'test',
            name,
            mode: 'webhook',
            status: 'released',
            created_at: new Date(createdAt),
          })
          .returning('id')
      )[0].id;
    const first = await insert('first', '2026-01-01T00:00:00Z');
    const second = await insert('second', '2026-01-02T00:00:00Z');
    await giveFirstTestLinesTheirGrace(h.db);
    await giveFirstTestLinesTheirGrace(h.db);
    const grace = async (id: string) => (await h.db('lines').where({ id }).first()).grace_ends_at;
    expect(await grace(first)).toEqual(new Date('2026-01-31T00:00:00Z'));
    expect(await grace(second)).toBeNull();
  });
});
