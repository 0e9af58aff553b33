import { createTenant, eventually, type Harness, type Tenant, type TestResponse } from './harness';
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

/**
 * A client that retries while the API restarts: network failures, 5xx and
 * `idempotency_in_progress` (POSTs carry an Idempotency-Key), for up to 30 s.
 */
export async function retrying(send: () => Promise<TestResponse>): Promise<TestResponse> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const res = await send();
      const transient = res.status >= 500 || res.body?.error?.code === 'idempotency_in_progress';
      if (!transient || attempt >= 300) return res;
    } catch (err) {
      // Node's fetch rejects with its own realm's TypeError, which is not the TypeError of
      // jest's sandbox, so match on the name rather than with instanceof.
      if (attempt >= 300 || (err as { name?: unknown } | null)?.name !== 'TypeError') throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // pacing: the retry interval while the API restarts
  }
}
