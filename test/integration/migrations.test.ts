import { up as backfillSignupCredit } from '../../src/db/migrations/0008_backfill_signup_credit';
import { balanceOf } from '../../src/billing/ledger';
import { useHarness } from '../support/harness';

describe('migrations', () => {
  const ctx = useHarness();

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
});
