import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/platform/config';
import { freePort } from '../../src/platform/net/freePort';
import { ensureTemporalCli, startDevServer, type DevServer } from '../../dev/infra/temporal';
import { customer } from '../support/customer';
import { callHold } from '../support/ledger';
import { eventually, webhookLine } from '../support/harness';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';
import { untilWaitingForCaller } from '../support/callWorkflow';

/**
 * A call whose history grows long goes on in a fresh run (continue-as-new, security review M1).
 * This suite runs its own Temporal dev server that suggests continuing as new after 120 history
 * events (Temporal's default is 4,096), so a short conversation crosses runs.
 */
describe('a long call continues as new', () => {
  let server: DevServer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-continue-as-new-'));
  beforeAll(async () => {
    const cli = ensureTemporalCli(loadConfig().toolCacheDir, () => undefined);
    server = await startDevServer({
      cli,
      port: await freePort(),
      dbFile: path.join(dir, 'temporal.db'),
      logFile: path.join(dir, 'temporal.log'),
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 120 },
    });
  });
  // The suite's own server has only the default namespace (not the jest worker's of the shared server).
  const ctx = useSuite({
    worker: true,
    receiver: true,
    tenant: 'file',
    overrides: () => ({ temporalAddress: server.address, temporalNamespace: 'default' }),
  });
  const { h, receiver } = ctx;
  const { lines, calls } = customer(ctx, { line: () => webhookLine({ webhook_url: receiver.url, begin_message: 'Hello.' }) });
  const sim = simulator(ctx);
  beforeAll(() =>
    receiver.respondWith((req) =>
      req.body.event === 'message' ? { status: 200, body: JSON.stringify({ text: `You said: ${String(req.body.text)}` }) } : undefined,
    ),
  );
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its turns, transcript, control requests and single settlement across runs', async () => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id;
    const handle = h.temporal.workflow.getHandle(id);
    await eventually(async () => ((await h.db('calls').where({ id }).first()).status === 'in_progress' ? true : undefined));
    const firstRunId = (await handle.describe()).runId;
    h.simulator.state.calls.wordsPerSecond = 40;
    const speech = () => h.simulator.state.calls.speechFor(id) ?? [];
    const spokenDone = (text: string) =>
      eventually(
        async () => (speech().some((s) => s.text === text && s.state === 'done') ? true : undefined),
        20_000,
        `"${text}" to be spoken`,
      );
    await spokenDone('Hello.');

    const TURNS = 24;
    const expected: Array<[string, string]> = [['assistant', 'Hello.']];
    for (let i = 1; i <= TURNS; i += 1) {
      if (i === 12) {
        // A control request waiting for the caller: the sentence is its answer, not a `message`.
        const waiting = calls.wait(id, { timeout_seconds: 20 });
        await untilWaitingForCaller(h.temporal, id);
        await sim.calls.say(id, 'For the control request');
        expect((await waiting).body).toMatchObject({ timed_out: false, response_text: 'For the control request' });
        expected.push(['user', 'For the control request']);
      }
      await sim.calls.say(id, `Turn ${i}`);
      await spokenDone(`You said: Turn ${i}`);
      expected.push(['user', `Turn ${i}`], ['assistant', `You said: Turn ${i}`]);
    }
    // It did go on in another run: the first one ended by continuing as new.
    expect((await handle.describe()).runId).not.toBe(firstRunId);
    const firstRun = await h.temporal.workflow.getHandle(id, firstRunId).fetchHistory();
    expect(firstRun.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();

    const hung = await calls.hangUp(id);
    expect(hung.body.call).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });
    await handle.result();
    const call = await calls.get(id);
    expect(call.transcript!.map((t) => [t.role, t.text])).toEqual(expected);
    // Every turn's `message` once, each with its own event id; the control answer never as a `message`.
    const messages = receiver.requests.filter((r) => r.body.event === 'message' && r.body.call_id === id);
    expect(messages.map((r) => r.body.text)).toEqual(Array.from({ length: TURNS }, (_, i) => `Turn ${i + 1}`));
    expect(new Set(messages.map((r) => r.body.event_id)).size).toBe(TURNS);
    // Every reply was spoken under its own speak id (none refused as a reused id).
    expect(
      speech()
        .filter((s) => s.text.startsWith('You said:'))
        .map((s) => s.state),
    ).toEqual(Array(TURNS).fill('done'));
    // Settled once, within the hold; call_ended once.
    const charges = await h.db('ledger_transactions').where({ idempotency_ref: `call:${id}:settle` });
    expect(charges).toHaveLength(1);
    expect(Number(charges[0].amount_cents)).toBe(-call.charge_cents!);
    expect(await callHold(h.db, id)).toMatchObject({ status: 'settled' });
    await eventually(async () =>
      receiver.requests.some((r) => r.body.event === 'call_ended' && r.body.call_id === id) ? true : undefined,
    );
    expect(receiver.requests.filter((r) => r.body.event === 'call_ended' && r.body.call_id === id)).toHaveLength(1);
  }, 120_000);
});
