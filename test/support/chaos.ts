import { createTenant, eventually, type Harness, type Tenant } from './harness';
import type { Receiver } from './receiver';

/**
 * What the chaos suites (callDurability, rollingRestart) start from and what they check once the
 * processes were crashed, restarted or rolled under call load.
 */

/** Two workspaces (line creation is limited to 10 an hour per workspace), auto-charge off: the signup credit covers every call. */
export async function chaosTenants(h: Harness): Promise<Tenant[]> {
  const tenants = [await createTenant(h.db), await createTenant(h.db)];
  for (const tenant of tenants)
    await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { auto_recharge_enabled: false } });
  return tenants;
}

/** Waits until every call is `completed`, then expects each settled once (its charge, if any) with its hold settled. The call rows. */
export async function expectCompletedAndSettledOnce(h: Harness, callIds: string[], timeoutMs: number) {
  const finals = await eventually(
    async () => {
      const rows = await h.db('calls').whereIn('id', callIds);
      return rows.length === callIds.length && rows.every((r) => r.status === 'completed') ? rows : undefined;
    },
    timeoutMs,
    'every call to complete',
  );
  for (const call of finals) {
    const charges = await h.db('ledger_transactions').where({ idempotency_ref: `call:${call.id}:settle` });
    expect(charges.length).toBe(Number(call.charge_cents) > 0 ? 1 : 0);
    if (charges.length) expect(Number(charges[0].amount_cents)).toBe(-Number(call.charge_cents));
    expect(
      await h
        .db('spend_holds')
        .where({ reference: `call:${call.id}` })
        .first(),
    ).toMatchObject({ status: 'settled' });
  }
  return finals;
}

/** Waits until the receiver got a `call_ended` for every call. */
export async function untilEveryCallEnded(receiver: Receiver, callIds: string[], timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      const ended = receiver.requests.filter((r) => r.body.event === 'call_ended');
      return callIds.every((id) => ended.some((r) => r.body.call_id === id)) ? true : undefined;
    },
    timeoutMs,
    'every call_ended to be delivered',
  );
}
