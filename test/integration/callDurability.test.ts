import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { loadConfig } from '../../src/platform/config';
import { stopProcess } from '../../dev/infra/proc';
import { freePort } from '../../src/platform/net/freePort';
import { ensureTemporalCli, startDevServer, type DevServer } from '../../dev/infra/temporal';
import { chaosTenants, expectCompletedAndSettledOnce, retrying, untilEveryCallEnded } from '../support/chaos';
import { createActiveLine, eventually, webhookLine, type Tenant } from '../support/harness';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * Twenty calls while the worker process is SIGKILLed again and again, the API is restarted and
 * the Temporal server itself is restarted: every call must reach a final state, be settled
 * exactly once, and have its call_ended delivered with one event_id. This suite runs its own
 * Temporal dev server (persisting to a file) so it can restart it.
 */
describe('call durability under worker crashes', () => {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-call-durability-'));
  let temporalServer: DevServer;
  let restartTemporalServer: () => Promise<void>;
  beforeAll(async () => {
    const cli = ensureTemporalCli(loadConfig().toolCacheDir, () => undefined);
    const port = await freePort();
    const options = { cli, port, dbFile: path.join(logDir, 'temporal.db'), logFile: path.join(logDir, 'temporal.log') };
    temporalServer = await startDevServer(options);
    restartTemporalServer = async () => {
      await temporalServer.stop();
      temporalServer = await startDevServer(options);
    };
  });
  // The suite's own server has only the default namespace (not the jest worker's of the shared server).
  const { h, receiver } = useSuite({
    receiver: true,
    tenant: 'none',
    overrides: () => ({ temporalAddress: temporalServer.address, temporalNamespace: 'default' }),
  });
  let tenants: Tenant[];
  let worker: ChildProcess;
  const spawnWorker = () => h.spawnWorkerProcess(path.join(logDir, 'worker.log'));
  const sim = simulator({ h });
  beforeAll(async () => {
    tenants = await chaosTenants(h);
    worker = spawnWorker();
  });
  afterAll(async () => {
    await stopProcess(worker);
    await temporalServer.stop();
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
      const line = await createActiveLine(h, tenants[i % 2].keys.test, webhookLine({ webhook_url: receiver.url }));
      lines.push({ ...line, key: tenants[i % 2].keys.test });
    }
    const callIds: string[] = [];
    const driving = lines.map(async (line, i) => {
      const idempotencyKey = `durability-${line.id}`;
      const placed = await retrying(() =>
        h.request('POST', '/api/v1/calls', {
          key: line.key,
          body: { line_id: line.id, to_number: `+1415555${2700 + i}` },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      );
      expect({ status: placed.status, body: placed.body }).toMatchObject({ status: 201 });
      const id = placed.body.call.id as string;
      callIds.push(id);
      await eventually(
        async () => ((await h.db('calls').where({ id }).first()).status === 'in_progress' ? true : undefined),
        90_000,
        `call ${i} to connect`,
      );
      await new Promise((resolve) => setTimeout(resolve, 300 + ((i * 137) % 1700))); // pacing: each call talks for its own while before it ends
      // Half hang up through the API, half are hung up by the callee.
      if (i % 2 === 0) await retrying(() => h.request('POST', `/api/v1/calls/${id}/hangup`, { key: line.key }));
      else await sim.calls.hangUp(id);
    });
    // While the calls are dialled, talking and ending: crash the worker, restart the API, crash
    // the worker again, then restart the Temporal server (with the worker down meanwhile).
    const crashes = (async () => {
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      await pause(400); // pacing: the chaos lands while calls are dialled, talking and ending
      await crash();
      await pause(500); // pacing: the chaos lands while calls are dialled, talking and ending
      await h.restartApi();
      await pause(600); // pacing: the chaos lands while calls are dialled, talking and ending
      await crash();
      await pause(800); // pacing: the chaos lands while calls are dialled, talking and ending
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGKILL');
      await exited;
      await restartTemporalServer();
      worker = spawnWorker();
    })();
    await Promise.all([...driving, crashes]);

    await expectCompletedAndSettledOnce(h, callIds, 120_000);
    await untilEveryCallEnded(receiver, callIds, 120_000);
    for (const id of callIds) {
      const eventIds = new Set(
        receiver.requests.filter((r) => r.body.event === 'call_ended' && r.body.call_id === id).map((r) => r.body.event_id),
      );
      expect(eventIds.size).toBe(1);
    }
  }, 300_000);
});
