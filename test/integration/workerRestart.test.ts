import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { stopProcess } from '../../dev/infra/proc';
import { workflowIds } from '../../workflows/definitions/ids';
import { createTenant, eventually, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/**
 * Durability: a workflow started through the API survives SIGKILL of the worker process
 * in the middle of a carrier call, and completes with its effects applied exactly once.
 */
describe('worker killed mid-workflow', () => {
  const { h } = useSuite({ tenant: 'none', overrides: { lineProvisionWaitMs: 200 } });
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-worker-'));
  const workerLog = path.join(logDir, 'worker.log');

  afterAll(() => fs.rmSync(logDir, { recursive: true, force: true }));

  const spawnWorker = (): ChildProcess => h.spawnWorkerProcess(workerLog);

  it('resumes after SIGKILL and applies the number exactly once', async () => {
    const tenant = await createTenant(h.db);
    h.simulator.state.provisionFault = 'hold';
    let worker = spawnWorker();

    const created = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
    expect(created.status).toBe(201);
    expect(created.body.line.status).toBe('provisioning');
    const lineId: string = created.body.line.id;

    // The worker is inside the carrier call when it dies.
    await eventually(async () => (h.simulator.state.heldCount > 0 ? true : undefined), 30_000, 'the carrier call to start');
    const killed = new Promise((resolve) => worker.once('exit', (_code, signal) => resolve(signal)));
    worker.kill('SIGKILL');
    expect(await killed).toBe('SIGKILL');

    // The carrier finishes the request whose answer nobody will read.
    h.simulator.state.provisionFault = 'normal';
    h.simulator.state.releaseHeld();

    worker = spawnWorker();
    const active = await eventually(
      async () => {
        const got = await h.request('GET', `/api/v1/lines/${lineId}`, { key: tenant.keys.test });
        return got.body.line.status === 'active' ? got.body.line : undefined;
      },
      60_000,
      'the line to become active after the restart',
    );

    // The retried call reached the carrier again (2 requests) but bought no second number.
    const allocations = [...h.simulator.state.numbers.values()].filter((n) => n.idempotency_key === `line:${lineId}`);
    expect(allocations).toHaveLength(1);
    expect(allocations[0].requests).toBe(2);
    expect(active.phone_number).toBe(allocations[0].phone_number);
    expect(await h.db('lines').where({ phone_number: active.phone_number }).count<{ count: string }[]>('id as count')).toEqual([
      { count: '1' },
    ]);

    const handle = h.temporal.workflow.getHandle(workflowIds.provisionLine(lineId));
    expect(await handle.result()).toEqual({ status: 'active', phoneNumber: active.phone_number });
    const history = await handle.fetchHistory();
    const completedActivities = (history.events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
    expect(completedActivities).toBe(2); // provisionNumber once (after its retry), activateLine once

    // SIGTERM is a graceful shutdown: the worker drains and exits 0.
    const exit = new Promise((resolve) => worker.once('exit', (code) => resolve(code)));
    await stopProcess(worker);
    expect(await exit).toBe(0);
    expect(fs.readFileSync(workerLog, 'utf8')).toContain('worker stopped');
  }, 120_000);
});
