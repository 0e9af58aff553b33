import crypto from 'node:crypto';
import { runCommand } from '../../src/main/cli';
import { eventually, untilLineActive, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/**
 * Number fees (D17, L7): $2.50 per number per UTC month, billed in arrears by the monthly
 * workflow, the first line of each environment free for its 30-day grace. Each test bills
 * months of its own year, so no other test's lines fall into them.
 */
describe('monthly number fees', () => {
  const { h, tenant } = useSuite({ worker: true });
  afterEach(() => h.clock.freeze(null));

  /** A line created through the API at `at`, its number assigned then (the worker's clock is real time). */
  async function lineAt(key: string, at: string, name: string, number: Record<string, string> = {}): Promise<string> {
    h.clock.freeze(new Date(at));
    const created = await h.request('POST', '/api/v1/lines', { key, body: webhookLine({ name, ...number }) });
    expect(created.status).toBe(201);
    const id = created.body.line.id as string;
    await untilLineActive(h.temporal, id, async () => (await h.request('GET', `/api/v1/lines/${id}`, { key })).body.line);
    await h
      .db('lines')
      .where({ id })
      .update({ activated_at: new Date(at) });
    return id;
  }
  const billMonthBefore = (nominalTime: string) =>
    h.temporal.workflow.execute('postNumberFeesWorkflow', {
      taskQueue: h.config.taskQueue,
      workflowId: `fees-${crypto.randomUUID()}`,
      args: [{ nominalTime }],
    });
  const balance = async (key: string) => (await h.request('GET', '/api/v1/billing/balance', { key })).body.cents as number;
  const fees = async (key: string) => {
    const res = await h.request('GET', '/api/v1/billing/transactions?limit=100', { key });
    return (res.body.transactions as Array<{ type: string; amount_cents: number; reference_id: string; description: string }>).filter(
      (t) => t.type === 'number_fee',
    );
  };

  it('bills each line per month after its grace, in arrears, once; a released line pays for its last month; the balance may go negative', async () => {
    await runCommand(h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
    // Keep the card out of it: this test reads exact balances.
    await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.live, body: { auto_recharge_enabled: false } });
    const firstLive = await lineAt(tenant.keys.live, '2020-03-10T12:00:00Z', 'first live'); // free until 2020-04-09 12:00
    const secondLive = await lineAt(tenant.keys.live, '2020-03-10T12:00:00Z', 'second live');
    const firstTest = await lineAt(tenant.keys.test, '2020-03-10T12:00:00Z', 'first test'); // test lines bill as live ones
    const secondTest = await lineAt(tenant.keys.test, '2020-03-10T12:00:00Z', 'second test');
    h.clock.freeze(new Date('2020-04-15T00:00:00Z'));
    expect((await h.request('DELETE', `/api/v1/lines/${secondLive}`, { key: tenant.keys.live })).status).toBe(200);

    // March: only the lines out of grace.
    expect(await billMonthBefore('2020-04-01T01:00:00Z')).toMatchObject({ period: '2020-03', posted: 2 });
    expect(await billMonthBefore('2020-04-01T01:00:00Z')).toMatchObject({ period: '2020-03', posted: 0 });
    expect(await fees(tenant.keys.live)).toMatchObject([
      { amount_cents: -250, reference_id: secondLive, description: expect.stringContaining('2020-03') },
    ]);
    expect(await fees(tenant.keys.test)).toMatchObject([{ amount_cents: -250, reference_id: secondTest }]);
    expect(await balance(tenant.keys.live)).toBe(500 - 250);
    expect(await balance(tenant.keys.test)).toBe(500 - 250);

    // April: the first lines' grace has ended; the released line pays for the month it left in.
    await billMonthBefore('2020-05-01T01:00:00Z');
    // May: the released line pays nothing more.
    await billMonthBefore('2020-06-01T01:00:00Z');
    // Re-running any month posts nothing twice.
    for (const nominal of ['2020-04-01T01:00:00Z', '2020-05-01T01:00:00Z', '2020-06-01T01:00:00Z']) await billMonthBefore(nominal);

    const liveFees = await fees(tenant.keys.live);
    expect(liveFees.map((f) => [f.reference_id, f.description.slice(-7)]).sort()).toEqual(
      [
        [secondLive, '2020-03'],
        [secondLive, '2020-04'],
        [firstLive, '2020-04'],
        [firstLive, '2020-05'],
      ].sort(),
    );
    expect(await fees(tenant.keys.test)).toHaveLength(1 + 2 + 2);
    expect((await fees(tenant.keys.test)).filter((f) => f.reference_id === firstTest)).toHaveLength(2);
    // Postpaid: unpaid fees take the balance below zero rather than being skipped.
    expect(await balance(tenant.keys.live)).toBe(500 - 4 * 250);
    expect(await balance(tenant.keys.test)).toBe(500 - 5 * 250);
  });

  it('bills a toll-free number $5.00 a month and a local one $2.50 (issue 26)', async () => {
    // The user's first test line has its grace: a third line, toll-free, pays from its first month.
    await lineAt(tenant.keys.test, '2022-06-10T00:00:00Z', 'first');
    const local = await lineAt(tenant.keys.test, '2022-06-10T00:00:00Z', 'local');
    const tollFree = await lineAt(tenant.keys.test, '2022-06-10T00:00:00Z', 'toll-free', { number_type: 'toll_free' });
    h.clock.freeze(null);
    await billMonthBefore('2022-07-01T01:00:00Z');
    const byLine = Object.fromEntries((await fees(tenant.keys.test)).map((f) => [f.reference_id, f.amount_cents]));
    expect(byLine).toEqual({ [local]: -250, [tollFree]: -500 });
  });

  it('a fee that takes a carded account below its threshold wakes auto-charge', async () => {
    await runCommand(h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
    await lineAt(tenant.keys.live, '2021-01-05T00:00:00Z', 'first');
    await lineAt(tenant.keys.live, '2021-01-05T00:00:00Z', 'second');
    h.clock.freeze(null);
    // (The previous test's lines are billed for this month too: assert on this tenant only.)
    expect(await billMonthBefore('2021-02-01T01:00:00Z')).toMatchObject({ period: '2021-01' });
    expect(await fees(tenant.keys.live)).toHaveLength(1);
    const recharges = () =>
      h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId, environment: 'live', type: 'auto_recharge' });
    await eventually(async () => ((await recharges()).length === 1 ? true : undefined));
    expect(await balance(tenant.keys.live)).toBe(500 - 250 + 2000);
  });

  it('refuses a nominal time that is not a date', async () => {
    await expect(billMonthBefore('not a date')).rejects.toThrow();
  });
});
