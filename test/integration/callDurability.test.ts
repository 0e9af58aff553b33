import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { stopProcess } from '../../src/infra/proc';
import { createTenant, eventually, startHarness, webhookLine, type Harness, type Tenant } from '../support/harness';
import { startReceiver, type Receiver } from '../support/receiver';

/**
 * Twenty calls while the worker process is SIGKILLed again and again: every call must reach a
 * final state, be settled exactly once, and have its call_ended delivered with one event_id.
 */
describe('call durability under worker crashes', () => {
  let h: Harness;
  /** Two workspaces: line creation is limited to 10 an hour per workspace. */
  let tenants: Tenant[];
  let receiver: Receiver;
  let worker: ChildProcess;
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-call-durability-'));
  const spawnWorker = () => h.spawnWorkerProcess(path.join(logDir, 'worker.log'));

  beforeAll(async () => {
    h = await startHarness();
    tenants = [await createTenant(h.db), await createTenant(h.db)];
    receiver = await startReceiver();
    // No auto-charge noise: the signup credit covers every call.
    for (const tenant of tenants) await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { auto_recharge_enabled: false } });
    worker = spawnWorker();
  });
  afterAll(async () => {
    await stopProcess(worker);
    await receiver.close();
    await h.close();
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  async function crash(): Promise<void> {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGKILL');
    await exited;
    worker = spawnWorker();
  }

  it('every call ends, is settled once, and announces its end once per event id', async () => {
    const CALLS = 20;
    const lines = [];
    for (let i = 0; i < CALLS; i += 1) {
      const res = await h.request('POST', '/api/v1/lines', { key: tenants[i % 2].keys.test, body: webhookLine({ webhook_url: receiver.url }) });
      expect(res.status).toBe(201);
      lines.push({ ...res.body.line, key: tenants[i % 2].keys.test });
    }
    const callIds: string[] = [];
    const driving = lines.map(async (line, i) => {
      const placed = await h.request('POST', '/api/v1/calls', { key: line.key, body: { line_id: line.id, to_number: `+1415555${2700 + i}` } });
      expect(placed.status).toBe(201);
      const id = placed.body.call.id as string;
      callIds.push(id);
      await eventually(async () => ((await h.db('calls').where({ id }).first()).status === 'in_progress' ? true : undefined), 90_000, `call ${i} to connect`);
      await new Promise((resolve) => setTimeout(resolve, 300 + ((i * 137) % 1700)));
      // Half hang up through the API, half are hung up by the callee.
      if (i % 2 === 0) await h.request('POST', `/api/v1/calls/${id}/hangup`, { key: line.key });
      else await fetch(`${h.simulator.url}/control/calls/${id}/hangup`, { method: 'POST' });
    });
    // Crash the worker at staggered points while the calls are dialled, talking and ending.
    const crashes = (async () => {
      for (const delay of [400, 900, 1500, 2300]) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        await crash();
      }
    })();
    await Promise.all([...driving, crashes]);

    const finals = await eventually(
      async () => {
        const rows = await h.db('calls').whereIn('id', callIds);
        return rows.length === CALLS && rows.every((r) => r.status === 'completed') ? rows : undefined;
      },
      120_000,
      'every call to complete',
    );
    for (const call of finals) {
      const charges = await h.db('ledger_transactions').where({ idempotency_ref: `call:${call.id}:settle` });
      expect(charges.length).toBe(Number(call.charge_cents) > 0 ? 1 : 0);
      if (charges.length) expect(Number(charges[0].amount_cents)).toBe(-Number(call.charge_cents));
      expect(await h.db('spend_holds').where({ reference: `call:${call.id}` }).first()).toMatchObject({ status: 'settled' });
    }
    await eventually(
      async () => {
        const ended = receiver.requests.filter((r) => r.body.event === 'call_ended');
        return callIds.every((id) => ended.some((r) => r.body.call_id === id)) ? true : undefined;
      },
      120_000,
      'every call_ended to be delivered',
    );
    for (const id of callIds) {
      const eventIds = new Set(receiver.requests.filter((r) => r.body.event === 'call_ended' && r.body.call_id === id).map((r) => r.body.event_id));
      expect(eventIds.size).toBe(1);
    }
  }, 300_000);
});
