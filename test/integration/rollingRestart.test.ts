import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { stopProcess } from '../../dev/infra/proc';
import { chaosTenants, expectCompletedAndSettledOnce, untilEveryCallEnded } from '../support/chaos';
import { eventually, webhookLine, type Tenant } from '../support/harness';
import { until } from '../support/waits';
import { customer, type Line } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A worker process of the roll, with how it ended. */
interface RunningWorker {
  name: string;
  child: ChildProcess;
  log: string;
  exit: Promise<number | null>;
}

/**
 * A rolling restart of the workers under a steady call load: two worker processes; SIGTERM the
 * first, wait for it to exit, start its replacement, then the same for the second, while every
 * call keeps taking turns. No turn and no event may be lost: every caller sentence is answered
 * and written to the transcript, every lifecycle event reaches the receiver under one event_id,
 * every call ends and is settled once, and each worker exits 0 within its shutdown grace.
 */
describe('rolling restart of the workers under call load', () => {
  const GRACE_SECONDS = 10;
  const CALLS = 12;
  const MIN_TURNS = 3;
  const { h, receiver } = useSuite({ receiver: true, tenant: 'none' });
  let tenants: Tenant[];
  const workers: RunningWorker[] = [];
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-rolling-restart-'));
  const sim = simulator({ h });

  function startWorker(name: string): RunningWorker {
    const log = path.join(logDir, `${name}.log`);
    const child = h.spawnWorkerProcess(log, { WORKER_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) });
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const worker = { name, child, log, exit };
    workers.push(worker);
    return worker;
  }
  const started = (worker: RunningWorker) =>
    eventually(
      async () => (fs.existsSync(worker.log) && fs.readFileSync(worker.log, 'utf8').includes('"msg":"worker started"') ? true : undefined),
      60_000,
      `${worker.name} to start`,
    );
  /** Every worker's log lines at warn or above (pino levels 40+), the last 20 of each: why a turn may have been lost. */
  function workerTrouble(): string {
    return workers
      .map((worker) => {
        const lines = fs.existsSync(worker.log) ? fs.readFileSync(worker.log, 'utf8').split('\n') : [];
        const trouble = lines.filter((line) => /"level":(4|5|6)\d/.test(line)).slice(-20);
        return `${worker.name} (${worker.log}):\n${trouble.join('\n') || '(nothing at warn or above)'}`;
      })
      .join('\n');
  }
  const lastSpeech = new Map<string, unknown>();

  /** SIGTERM, then the time until the process exited. */
  async function drain(worker: RunningWorker): Promise<{ code: number | null; ms: number }> {
    const at = Date.now();
    worker.child.kill('SIGTERM');
    const code = await worker.exit;
    return { code, ms: Date.now() - at };
  }

  beforeAll(async () => {
    tenants = await chaosTenants(h);
    // The agent takes a moment to answer, so turns are in flight when a worker is told to stop.
    receiver.respondWith((req) =>
      req.body.event === 'message'
        ? { status: 200, body: JSON.stringify({ text: `Reply to ${String(req.body.text)}` }), delayMs: 400 }
        : undefined,
    );
    await sim.calls.setWordsPerSecond(40);
  });
  afterAll(async () => {
    for (const worker of workers) await stopProcess(worker.child, 1_000);
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  it('loses no turn and no event, and each worker exits 0 within its grace', async () => {
    const first = [startWorker('worker-1'), startWorker('worker-2')];
    await Promise.all(first.map(started));
    const customers = tenants.map((tenant) => customer(() => ({ h, tenant }), { line: () => webhookLine({ webhook_url: receiver.url }) }));
    const lines: Array<{ line: Line; key: string; calls: (typeof customers)[number]['calls'] }> = [];
    for (let i = 0; i < CALLS; i += 1) {
      const tenant = i % 2;
      lines.push({ line: await customers[tenant].lines.create(), key: tenants[tenant].keys.test, calls: customers[tenant].calls });
    }

    let rolled = false;
    const turnsOf = new Map<string, string[]>();
    const driving = lines.map(async ({ line, key, calls }, i) => {
      const placed = await calls.place(line.id, `+1415555${2800 + i}`);
      expect(placed.status).toBe(201);
      const id: string = placed.body.call.id;
      await calls.untilStatus(id, ['in_progress'], 60_000);
      const said: string[] = [];
      turnsOf.set(id, said);
      // Talk until the roll is over, and at least MIN_TURNS times.
      while (said.length < MIN_TURNS || !rolled) {
        const text = `Call ${i} turn ${said.length + 1}`;
        said.push(text);
        expect((await sim.calls.say(id, text)).status).toBe(202);
        await until(
          async () => {
            const speech = await sim.calls.speech(id);
            lastSpeech.set(id, speech.slice(-6));
            return speech.some((s) => s.text === `Reply to ${text}` && s.state === 'done');
          },
          `the reply to "${text}" on call ${id}`,
          // A lost turn is told by the workers: their warnings and errors, and what the simulator heard on the call.
          {
            timeoutMs: 90_000,
            intervalMs: 100,
            detail: () => `${workerTrouble()}\nspeech on the call: ${JSON.stringify(lastSpeech.get(id) ?? [])}`,
          },
        );
        await pause(200 + ((i * 137) % 500)); // pacing: the caller speaks again after a varied while
      }
      // Half hang up through the API, half are hung up by the callee.
      if (i % 2 === 0) expect((await h.request('POST', `/api/v1/calls/${id}/hangup`, { key })).status).toBe(200);
      else await sim.calls.hangUp(id);
      return id;
    });

    // The roll, once every call is talking.
    const roll = (async () => {
      await eventually(async () => (turnsOf.size === CALLS ? true : undefined), 90_000, 'every call to connect');
      await pause(1_000); // pacing: the roll starts while calls are talking
      const exits = [];
      for (const [old, name] of [
        [first[0], 'worker-1b'],
        [first[1], 'worker-2b'],
      ] as const) {
        exits.push(await drain(old));
        await started(startWorker(name));
        await pause(1_000); // pacing: each new worker takes work before the next old one drains
      }
      rolled = true;
      return exits;
    })();
    const [callIds, exits] = await Promise.all([Promise.all(driving), roll]);

    for (const exit of exits) {
      expect(exit.code).toBe(0);
      expect(exit.ms).toBeLessThan(GRACE_SECONDS * 1000);
    }
    for (const worker of first) {
      const log = fs.readFileSync(worker.log, 'utf8');
      expect(log).toContain('"msg":"draining"');
      expect(log).toContain('"msg":"worker stopped"');
    }

    // Every call ended, was settled once, and its transcript has every turn, in order, once.
    const finals = await expectCompletedAndSettledOnce(h, callIds, 90_000);
    for (const call of finals) {
      const said = turnsOf.get(call.id)!;
      const transcript = (call.transcript as Array<{ role: string; text: string }>).map((t) => [t.role, t.text]);
      expect(transcript).toEqual(
        said.flatMap((text) => [
          ['user', text],
          ['assistant', `Reply to ${text}`],
        ]),
      );
    }

    // Every event of every call reached the receiver, each under one event_id.
    await untilEveryCallEnded(receiver, callIds, 90_000);
    const eventIds = (id: string, event: string, text?: string) =>
      new Set(
        receiver.requests
          .filter((r) => r.body.call_id === id && r.body.event === event && (text === undefined || r.body.text === text))
          .map((r) => r.body.event_id),
      );
    for (const id of callIds) {
      expect(eventIds(id, 'call_started').size).toBe(1);
      expect(eventIds(id, 'call_ended').size).toBe(1);
      for (const text of turnsOf.get(id)!) expect(eventIds(id, 'message', text).size).toBe(1);
      expect(eventIds(id, 'interrupted').size).toBe(0);
    }
  }, 300_000);
});
