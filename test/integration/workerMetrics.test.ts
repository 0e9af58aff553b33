import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { projectRoot } from '../../src/platform/config';
import { stopProcess } from '../../dev/infra/proc';
import { freePort } from '../../src/platform/net/freePort';
import { CALLEE, customer } from '../support/customer';
import { eventually, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';
import { simulator } from '../support/simulatorControl';

/** The worker process's /metrics (WORKER_METRICS_PORT): the Temporal SDK's runtime metrics and the business counters. */
describe('worker metrics', () => {
  const { h, tenant, receiver } = useSuite({ receiver: true, tenant: 'file', overrides: { lineProvisionWaitMs: 5_000 } });
  let worker: ChildProcess;
  let metricsUrl: string;
  const token = crypto.randomBytes(32).toString('hex');
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-worker-metrics-'));
  const workerLog = path.join(logDir, 'worker.log');
  const { lines, calls } = customer(
    { h, tenant },
    {
      line: () => webhookLine({ webhook_url: receiver.url, status_callback_url: receiver.url }),
    },
  );
  const sim = simulator({ h });

  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    worker = h.spawnWorkerProcess(workerLog, { WORKER_METRICS_PORT: String(port), METRICS_TOKEN: token, HOST: '127.0.0.1' });
    // Served once the worker is ready.
    await eventually(
      async () => ((await scrape(token).catch(() => undefined))?.status === 200 ? true : undefined),
      60_000,
      'worker /metrics',
    );
  }, 90_000);
  afterAll(async () => {
    if (worker) await stopProcess(worker);
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  const scrape = async (bearer?: string) => {
    const res = await fetch(metricsUrl, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
    return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
  };
  const metrics = async () => {
    const res = await scrape(token);
    expect(res.status).toBe(200);
    return res.text;
  };

  it('answers only the METRICS_TOKEN bearer, as the API does', async () => {
    const without = await scrape();
    expect(without.status).toBe(401);
    expect(JSON.parse(without.text).error.code).toBe('unauthorized');
    expect((await scrape(`${token}x`)).status).toBe(401);
    expect((await fetch(metricsUrl.replace('/metrics', '/other'), { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    // The probes (the Helm chart's readiness and liveness) answer without it, and tell only the state.
    for (const [probe, body] of [
      ['/readyz', { status: 'ready' }],
      ['/healthz', { status: 'ok' }],
    ] as const) {
      const res = await fetch(metricsUrl.replace('/metrics', probe));
      expect({ probe, status: res.status, body: await res.json() }).toEqual({ probe, status: 200, body });
    }
    const ok = await scrape(token);
    expect(ok.status).toBe(200);
    expect(ok.contentType).toMatch(/^text\/plain/);
    // The SDK's runtime metrics (merged from its loopback exporter), the process's, the business ones.
    expect(ok.text).toMatch(/^# TYPE temporal_worker_start /m);
    expect(ok.text).toMatch(/^# TYPE temporal_num_pollers /m);
    expect(ok.text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(ok.text).toMatch(/^switchboard_active_calls\{environment="test",status="in_progress"\} \d+$/m);
    // Every business metric docs/operations.md tells operators to watch is served, but for the API's own
    // (api/metrics.ts: HTTP and portal signups), which the API's /metrics serves.
    const documented = new Set(fs.readFileSync(path.join(projectRoot, 'docs/operations.md'), 'utf8').match(/\bswitchboard_[a-z_]+/g));
    const apiOnly = new Set(fs.readFileSync(path.join(projectRoot, 'api/metrics.ts'), 'utf8').match(/\bswitchboard_[a-z_]+/g));
    expect(apiOnly.has('switchboard_portal_signups_total')).toBe(true);
    expect(documented.size).toBeGreaterThanOrEqual(5);
    for (const name of documented)
      if (!apiOnly.has(name) && !name.startsWith('switchboard_http_'))
        expect({ name, served: ok.text.includes(`# TYPE ${name} `) }).toEqual({ name, served: true });
  });

  it('counts a call: active calls, its turn, its deliveries and its charge; the SDK its tasks', async () => {
    const before = await metrics();
    const line = await lines.create();
    const call = await calls.dial(line.id, CALLEE);
    await calls.untilStatus(call.id, ['in_progress']);
    const during = await metrics();
    expect(valueOf(during, 'switchboard_active_calls', { environment: 'test', status: 'in_progress' })).toBeGreaterThanOrEqual(1);

    receiver.respondWith((req) => (req.body.event === 'message' ? { status: 200, body: '{"text":"Hello back"}' } : undefined));
    expect((await sim.calls.say(call.id, 'Hello there')).status).toBe(202);
    await calls.untilTranscript(call.id, 2);
    const ended = await calls.hangUp(call.id);
    expect(ended.body.call.status).toBe('completed');
    await eventually(async () => (receiver.requests.some((r) => r.body.event === 'call_ended') ? true : undefined));

    const after = await metrics();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('switchboard_call_turns_total', { mode: 'webhook', outcome: 'delivered' })).toBe(1);
    expect(delta('switchboard_webhook_deliveries_total', { event_type: 'message', outcome: 'delivered' })).toBe(1);
    for (const eventType of ['call_outgoing', 'call_started', 'call_ended'])
      expect({ eventType, delta: delta('switchboard_webhook_deliveries_total', { event_type: eventType, outcome: 'delivered' }) }).toEqual({
        eventType,
        delta: 1,
      });
    expect(delta('switchboard_ledger_postings_total', { type: 'call_charge' })).toBe(1);
    expect(valueOf(after, 'switchboard_active_calls', { environment: 'test', status: 'in_progress' })).toBeLessThan(
      valueOf(during, 'switchboard_active_calls', { environment: 'test', status: 'in_progress' }),
    );
    // The SDK's task metrics, in seconds (useSecondsForDurations).
    expect(after).toMatch(/^temporal_workflow_task_schedule_to_start_latency_bucket\{.*le="0\.1".*\} \d+$/m);
    expect(after).toMatch(/^temporal_activity_execution_latency_count\{.*\} \d+$/m);
    expect(sumOf(after, 'temporal_workflow_completed') - sumOf(before, 'temporal_workflow_completed')).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it('counts turns by outcome: a failed webhook answer, a hosted reply', async () => {
    const before = await metrics();
    const webhook = await lines.create();
    const call = await calls.dial(webhook.id, CALLEE);
    await calls.untilStatus(call.id, ['in_progress']);
    receiver.respondWith((req) => (req.body.event === 'message' ? { status: 500, body: 'down' } : undefined));
    await sim.calls.say(call.id, 'Anyone there?');
    await calls.untilTranscript(call.id, 1);
    await calls.hangUp(call.id);

    const hosted = await lines.create({ mode: 'hosted', system_prompt: 'You are a desk.', webhook_url: null });
    const hostedCall = await calls.dial(hosted.id, CALLEE);
    await calls.untilStatus(hostedCall.id, ['in_progress']);
    await sim.model.reply({ match: 'open', reply: 'We open at nine.' });
    await sim.calls.say(hostedCall.id, 'When do you open?');
    await calls.untilTranscript(hostedCall.id, 2);
    await calls.hangUp(hostedCall.id);

    const after = await eventually(async () => {
      const text = await metrics();
      return valueOf(text, 'switchboard_ledger_postings_total', { type: 'call_charge' }) -
        valueOf(before, 'switchboard_ledger_postings_total', { type: 'call_charge' }) ===
        2
        ? text
        : undefined;
    });
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('switchboard_call_turns_total', { mode: 'webhook', outcome: 'failed' })).toBe(1);
    expect(delta('switchboard_webhook_deliveries_total', { event_type: 'message', outcome: 'failed' })).toBe(1);
    expect(delta('switchboard_call_turns_total', { mode: 'hosted', outcome: 'replied' })).toBe(1);
  }, 90_000);

  it('stops serving when the worker stops', async () => {
    await stopProcess(worker);
    await expect(scrape(token)).rejects.toThrow();
    expect(fs.readFileSync(workerLog, 'utf8')).toContain('worker metrics served');
  }, 30_000);
});

/** A sample's value (0 when the series is absent), its labels matched exactly as given and any others ignored. */
function valueOf(text: string, name: string, labels: Record<string, string>): number {
  for (const sample of samples(text, name))
    if (Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) return sample.value;
  return 0;
}

function sumOf(text: string, name: string): number {
  return samples(text, name).reduce((sum, sample) => sum + sample.value, 0);
}

function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const found: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}
