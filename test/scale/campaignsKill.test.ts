import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { stopProcess, waitForPort } from '../../dev/infra/proc';
import { freePort } from '../../src/platform/net/freePort';
import { calleesOpenFor } from '../support/callingHours';
import { retrying } from '../support/chaos';
import { createTenant, eventually, type Tenant, type TestResponse } from '../support/harness';
import { creditAccount } from '../support/ledger';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';
import { until } from '../support/waits';
import { createCurrentSecret, sealingKeyOf } from '../../src/domain/lines/secrets';

/** The campaign's retry policy: one more attempt for the busy and the unanswered, a second later. */
const MAX_ATTEMPTS = 2;
const POOL_LINES = 20;
/** Calls ring this long and callees who answer hang up this long after (short calls: the test is about the dials). */
const RING_MS = 20;
const TALK_MS = 100;

interface ContactResult {
  row: number;
  to_number: string;
  status: string;
  outcome: string | null;
  skip_reason: string | null;
  attempts: number;
  call_ids: string[];
}

/**
 * Issue 31's "Done when" (item 3, durable at scale): a campaign of 1,000 contacts on the carrier
 * simulator, dialled by the worker process and fed carrier events by the API process, both killed
 * with SIGKILL mid-run and started again. Every contact ends as its callee made it: dialled exactly
 * as often as the retry policy says (counted from the simulator's own log of calls, not from our
 * rows), nobody twice by accident, every skip with its reason.
 */
describe('a 1,000-contact campaign through kill -9 of the worker and the API', () => {
  const { h, receiver } = useSuite({ tenant: 'none', receiver: true });
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-campaign-kill-'));
  const sim = simulator({ h });
  let worker: ChildProcess | undefined;
  let api: ChildProcess | undefined;
  let apiUrl = '';
  let apiPort = 0;

  afterAll(async () => {
    for (const child of [worker, api]) if (child) await stopProcess(child, 2_000);
    if (process.env.KEEP_LOGS) fs.cpSync(logDir, process.env.KEEP_LOGS, { recursive: true });
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  const spawnWorker = () =>
    h.spawnWorkerProcess(path.join(logDir, 'worker.log'), { PUBLIC_BASE_URL: apiUrl, LOG_LEVEL: process.env.KEEP_LOGS ? 'info' : 'warn' });
  const spawnApi = async () => {
    const started = h.spawnApiProcess(path.join(logDir, 'api.log'), apiPort, { LOG_LEVEL: process.env.KEEP_LOGS ? 'info' : 'warn' });
    await waitForPort('127.0.0.1', apiPort, 60_000, started);
    return started;
  };
  const kill = async (child: ChildProcess) => {
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
  };

  /** The API process, through its restarts (see `retrying`). */
  const send = (method: string, url: string, key: string, body?: unknown, headers: Record<string, string> = {}) =>
    retrying(async (): Promise<TestResponse> => {
      const response = await fetch(`${apiUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
    });

  const doneCount = async (campaignId: string) =>
    Number(
      (await h.db('campaign_contacts').where({ campaign_id: campaignId, status: 'done' }).count<{ count: string }[]>({ count: '*' }))[0]
        .count,
    );

  /** A pool line of the tenant's, active, its calls' events to the customer's endpoint (written as provisioning leaves it: lines.create allows 10 an hour). */
  async function poolLine(tenant: Tenant, webhookUrl: string): Promise<{ id: string; phone_number: string }> {
    const [line] = await h
      .db('lines')
      .insert({
        workspace_id: tenant.workspaceId,
        user_id: tenant.owner.id,
        environment: 'test',
        name: 'Campaign pool line',
        mode: 'webhook',
        webhook_url: webhookUrl,
        phone_number: `+1628${crypto.randomInt(2_000_000, 9_999_999)}`,
        status: 'active',
        activated_at: new Date(),
      })
      .returning<Array<{ id: string; phone_number: string }>>(['id', 'phone_number']);
    // Its signing secret, as provisioning creates it: without one every webhook of the campaign fails and retries.
    await createCurrentSecret(h.db, sealingKeyOf(h.config), line.id, new Date());
    return line;
  }

  it('dials every contact exactly as its outcome requires: none twice, none skipped without a reason', async () => {
    const tenant = await createTenant(h.db);
    // A thousand short calls cost more than the signup credit: the workspace has bought enough.
    await creditAccount(h.db, { workspaceId: tenant.workspaceId, environment: 'test' }, 1_000_000);
    const pool: Array<{ id: string; phone_number: string }> = [];
    for (let i = 0; i < POOL_LINES; i += 1) pool.push(await poolLine(tenant, receiver.url));

    // 995 callees whose window stays open through the run (the worker process judges calling hours on its real clock).
    const numbers = calleesOpenFor(new Date(), 20, 995);
    const busyThenAnswer = numbers.slice(0, 50);
    const neverAnswer = numbers.slice(50, 100);
    const machines = numbers.slice(100, 150);
    const optedOut = numbers.slice(150, 155);
    const invalid = ['not a number', '+1', '12345', '+999999999999', 'call me'];
    const answers = { outcome: 'answer' as const, ringMs: RING_MS, hangUpAfterMs: TALK_MS };
    for (const to of numbers) h.simulator.state.calls.setDestination(to, answers);
    for (const to of busyThenAnswer) h.simulator.state.calls.setDestination(to, { outcome: 'busy', ringMs: RING_MS, then: answers });
    for (const to of neverAnswer) h.simulator.state.calls.setDestination(to, { outcome: 'no_answer', ringMs: RING_MS });
    // Machines listen on: the campaign hangs up on them.
    for (const to of machines) h.simulator.state.calls.setDestination(to, { outcome: 'answer', ringMs: RING_MS, answeredBy: 'machine' });
    // Five callees texted STOP to a pool line (through the suite's API, before the API process takes the carrier's events).
    for (const to of optedOut) await sim.messages.inbound(to, pool[0].phone_number, 'STOP');
    await eventually(
      async () => {
        const rows = await h.db('opt_outs').where({ workspace_id: tenant.workspaceId }).whereIn('phone_number', optedOut);
        return rows.length === optedOut.length ? true : undefined;
      },
      30_000,
      'the opt-outs to be recorded',
    );

    // The API and worker processes, as deployed: the carrier's events go to the API process.
    apiPort = await freePort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    api = await spawnApi();
    h.simulator.state.calls.callbacks!.setBaseUrl(apiUrl);
    worker = spawnWorker();

    const contacts = [...numbers, ...invalid].map((to, index) => ({ to_number: to, metadata: { ref: `c${index}` } }));
    const created = await send(
      'POST',
      '/api/v1/campaigns',
      tenant.keys.test,
      {
        name: 'Kill -9 at scale',
        line_ids: pool.map((line) => line.id),
        contacts,
        answering_machine: { action: 'hang_up' },
        calls_per_minute: 600,
        retry: { max_attempts: MAX_ATTEMPTS, backoff_seconds: 1, on: ['busy', 'no_answer'] },
      },
      { 'idempotency-key': `campaign-kill-${tenant.workspaceId}` },
    );
    expect({ status: created.status, error: created.body?.error }).toEqual({ status: 201, error: undefined });
    const campaignId: string = created.body.campaign.id;
    let done = 0;
    const doneAtLeast = (count: number) => async () => (done = await doneCount(campaignId)) >= count;
    const progress = () => `${done} of 1000 contacts done`;

    // Mid-run: the worker dies (dials, attempts and calls in flight), then the API (carrier events in flight).
    await until(doneAtLeast(250), 'a quarter of the contacts to be done', {
      timeoutMs: 600_000,
      intervalMs: 200,
      detail: progress,
    });
    await kill(worker);
    worker = spawnWorker();
    await until(doneAtLeast(500), 'half of the contacts to be done', {
      timeoutMs: 600_000,
      intervalMs: 200,
      detail: progress,
    });
    await kill(api);
    api = await spawnApi();
    expect(await doneCount(campaignId)).toBeLessThan(1000);

    await until(
      async () => {
        done = await doneCount(campaignId);
        return (await h.db('campaigns').where({ id: campaignId }).first('status')).status === 'completed';
      },
      'the campaign to complete',
      { timeoutMs: 900_000, intervalMs: 250, detail: progress },
    );

    const results: ContactResult[] = [];
    for (let cursor: string | null = null; ;) {
      const page = await send(
        'GET',
        `/api/v1/campaigns/${campaignId}/results?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        tenant.keys.test,
      );
      expect(page.status).toBe(200);
      results.push(...page.body.results);
      cursor = page.body.next_cursor;
      if (!cursor) break;
    }
    expect(results.map((r) => r.row)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));

    // The carrier's own log: every call it was asked to place for these callees (a repeated request for one call id is one call).
    const dials = new Map<string, string[]>();
    for (const call of h.simulator.state.calls.list())
      if (call.direction === 'outbound' && call.call_id) dials.set(call.to, [...(dials.get(call.to) ?? []), call.call_id]);

    const expected = (to: string) => {
      if (invalid.includes(to)) return { outcome: 'skipped', skip_reason: 'invalid_number', attempts: 0 };
      if (optedOut.includes(to)) return { outcome: 'skipped', skip_reason: 'opted_out', attempts: 0 };
      if (busyThenAnswer.includes(to)) return { outcome: 'answered', skip_reason: null, attempts: 2 };
      if (neverAnswer.includes(to)) return { outcome: 'no_answer', skip_reason: null, attempts: MAX_ATTEMPTS };
      if (machines.includes(to)) return { outcome: 'machine', skip_reason: null, attempts: 1 };
      return { outcome: 'answered', skip_reason: null, attempts: 1 };
    };
    const wrong = results.flatMap((result) => {
      const want = expected(result.to_number);
      const dialled = dials.get(result.to_number) ?? [];
      const got = { outcome: result.outcome, skip_reason: result.skip_reason, attempts: result.attempts, dials: dialled.length };
      const ok =
        result.status === 'done' &&
        got.outcome === want.outcome &&
        got.skip_reason === want.skip_reason &&
        got.attempts === want.attempts &&
        got.dials === want.attempts &&
        [...result.call_ids].sort().join() === [...dialled].sort().join();
      return ok ? [] : [{ row: result.row, to: result.to_number, want, got }];
    });
    expect(wrong).toEqual([]);
    // Nobody else was called, and no call was placed twice.
    const campaignNumbers = new Set(results.map((r) => r.to_number));
    expect([...dials.keys()].filter((to) => !campaignNumbers.has(to))).toEqual([]);
    const allCallIds = [...dials.values()].flat();
    expect(new Set(allCallIds).size).toBe(allCallIds.length);
    expect(allCallIds).toHaveLength(840 + 50 * 2 + 50 * MAX_ATTEMPTS + 50);
  }, 1_500_000);
});
