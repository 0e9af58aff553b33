import { createTenant, eventually, type Harness, type Tenant, type TestResponse } from './harness';
import type { Receiver } from './receiver';
import { until } from './waits';

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
 * A client that retries while the API restarts: network failures, 5xx and `idempotency_in_progress` (a request the
 * killed API was running holds its key until its lease lapses), for up to `timeoutMs`, polled by the suite's one
 * polling loop (`until`). Past it, the last answer is returned (for the test's own expectation to name) or the last
 * network failure thrown.
 */
export async function retrying(send: () => Promise<TestResponse>, timeoutMs = 30_000): Promise<TestResponse> {
  let last: { res: TestResponse } | { err: unknown } | undefined;
  const answered = async () => {
    try {
      const res = await send();
      last = { res };
      return res.status < 500 && res.body?.error?.code !== 'idempotency_in_progress';
    } catch (err) {
      // Node's fetch rejects with its own realm's TypeError, which is not the TypeError of
      // jest's sandbox, so match on the name rather than with instanceof.
      if ((err as { name?: unknown } | null)?.name !== 'TypeError') throw err;
      last = { err };
      return false;
    }
  };
  try {
    await until(answered, 'the API to answer', { timeoutMs, intervalMs: 100 });
  } catch (timedOut) {
    if (last && 'err' in last) throw last.err;
    if (!last) throw timedOut;
  }
  return (last as { res: TestResponse }).res;
}
