import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { stopProcess } from '../../dev/infra/proc';
import { CLOSE_MARGIN_MS } from '../../src/platform/lifecycle/drain';
import { workflowIds } from '../../workflows/definitions/ids';
import { createTenant, eventually, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/**
 * SIGTERM drains a worker process whose activity outlives the shutdown grace (a carrier call that
 * does not answer): after the grace the worker stops waiting for it and exits 0, and the attempt,
 * reported failed by the shutdown, is retried at once on another worker with its effect applied once.
 */
describe('worker drain past its grace', () => {
  const GRACE_SECONDS = 2;
  const { h } = useSuite({ tenant: 'none', overrides: { lineProvisionWaitMs: 200 } });
  const children: ChildProcess[] = [];
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-worker-drain-'));
  const spawnWorker = (name: string) => {
    const child = h.spawnWorkerProcess(path.join(logDir, `${name}.log`), { WORKER_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) });
    children.push(child);
    return child;
  };

  afterAll(async () => {
    for (const child of children) await stopProcess(child, 1_000);
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  it('exits 0 after the grace, and the held carrier call is retried on the next worker', async () => {
    const tenant = await createTenant(h.db);
    h.simulator.state.provisionFault = 'hold';
    const first = spawnWorker('worker-1');
    const exited = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    const created = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
    expect(created.status).toBe(201);
    const lineId: string = created.body.line.id;
    await eventually(async () => (h.simulator.state.heldCount > 0 ? true : undefined), 60_000, 'the carrier call to start');

    const signalledAt = Date.now();
    first.kill('SIGTERM');
    expect(await exited).toBe(0);
    const drainMs = Date.now() - signalledAt;
    expect(drainMs).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000);
    expect(drainMs).toBeLessThan(GRACE_SECONDS * 1000 + CLOSE_MARGIN_MS);
    expect(fs.readFileSync(path.join(logDir, 'worker-1.log'), 'utf8')).toContain('"msg":"worker stopped"');

    h.simulator.state.provisionFault = 'normal';
    h.simulator.state.releaseHeld();
    spawnWorker('worker-2');
    const active = await eventually(
      async () => {
        const got = await h.request('GET', `/api/v1/lines/${lineId}`, { key: tenant.keys.test });
        return got.body.line.status === 'active' ? got.body.line : undefined;
      },
      60_000,
      'the line to become active on the next worker',
    );
    const allocations = [...h.simulator.state.numbers.values()].filter((n) => n.idempotency_key === `line:${lineId}`);
    expect(allocations).toHaveLength(1);
    expect(active.phone_number).toBe(allocations[0].phone_number);

    // The second attempt followed the first's shutdown failure, not its start-to-close timeout.
    const history = await h.temporal.workflow.getHandle(workflowIds.provisionLine(lineId)).fetchHistory();
    const started = (history.events ?? []).map((e) => e.activityTaskStartedEventAttributes).find((a) => a && a.attempt === 2);
    expect(started?.lastFailure?.message).toMatch(/shutting down/);
  }, 120_000);
});
