import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { stopProcess, waitForPort } from '../../dev/infra/proc';
import { freePort } from '../../src/platform/net/freePort';
import { createActiveLine, eventually, webhookLine } from '../support/harness';
import { calleeOpenAt } from '../support/callingHours';
import { useSuite } from '../support/suite';

interface Exported {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans: Array<{ spans: Array<{ traceId: string; name: string }> }>;
  }>;
}

/** An OTLP/HTTP (JSON) trace collector: what the API process exports when pointed at it. */
async function startCollector() {
  const batches: Exported[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') batches.push(JSON.parse(raw) as Exported);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const spans = () =>
    batches.flatMap((b) =>
      b.resourceSpans.flatMap((r) => {
        const service = r.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
        return r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, service })));
      }),
    );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, batches, spans, close: () => server.close() };
}

/**
 * The API and worker processes (src/main/api.ts, src/main/worker.ts) as deployed: tracing follows the OTEL_* variables.
 * Without them nothing is exported and log lines carry no trace id; with an endpoint the request's
 * span (continuing the caller's `traceparent`) reaches the collector and its log line carries
 * `trace_id` beside `request_id`.
 */
describe('tracing in the API and worker processes', () => {
  const { h, tenant } = useSuite({ tenant: 'file' });
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let api: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-tracing-'));

  beforeAll(async () => {
    collector = await startCollector();
  });
  afterEach(async () => {
    if (api) await stopProcess(api, 1_000);
    if (worker) await stopProcess(worker, 1_000);
    api = worker = undefined;
  });
  afterAll(async () => {
    collector.close();
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  /** Starts the API with `env`, sends one request with a `traceparent`, and returns its access-log line. */
  async function oneRequest(name: string, env: NodeJS.ProcessEnv, traceId: string) {
    const port = await freePort();
    const logFile = path.join(logDir, `${name}.log`);
    api = h.spawnApiProcess(logFile, port, env);
    await waitForPort('127.0.0.1', port, 60_000, api);
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/lines`, {
      headers: { authorization: `Bearer ${tenant.keys.test}`, traceparent: `00-${traceId}-${crypto.randomBytes(8).toString('hex')}-01` },
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    return eventually(
      async () =>
        fs
          .readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((line) => line.msg === 'request' && line.request_id === requestId),
      10_000,
      'the request’s log line',
    );
  }

  /**
   * Stops the API as a deployment does (SIGTERM): its drain shuts tracing down, which exports
   * every span still batched before the process exits 0. Nothing can reach the collector later.
   */
  async function stoppedCleanly() {
    await stopProcess(api!, 10_000);
    expect(api!.exitCode).toBe(0);
  }

  // The jest process has none of them; the child inherits its environment.
  const noOtel = Object.fromEntries(
    Object.keys(process.env)
      .filter((k) => k.startsWith('OTEL_'))
      .map((k) => [k, undefined]),
  );

  it('with no OTEL_* variables exports nothing and logs no trace id', async () => {
    const traceId = crypto.randomBytes(16).toString('hex');
    const line = await oneRequest('off', noOtel, traceId);
    expect(line.request_id).toMatch(/^req_/);
    expect(line).not.toHaveProperty('trace_id');
    await stoppedCleanly();
    expect(collector.batches).toHaveLength(0);
  });

  it('with OTEL_SDK_DISABLED=true exports nothing even with an endpoint', async () => {
    const traceId = crypto.randomBytes(16).toString('hex');
    const env = { ...noOtel, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SDK_DISABLED: 'true', OTEL_BSP_SCHEDULE_DELAY: '100' };
    const line = await oneRequest('disabled', env, traceId);
    expect(line).not.toHaveProperty('trace_id');
    await stoppedCleanly();
    expect(collector.batches).toHaveLength(0);
  });

  it("with an OTLP endpoint exports the request's span in the caller's trace and logs trace_id with request_id", async () => {
    const traceId = crypto.randomBytes(16).toString('hex');
    const env = {
      ...noOtel,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'switchboard-api-e2e',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const line = await oneRequest('on', env, traceId);
    expect(line).toMatchObject({
      trace_id: traceId,
      request_id: expect.stringMatching(/^req_/),
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const span = await eventually(
      async () => collector.spans().find((s) => s.traceId === traceId && s.name === 'GET /api/v1/lines'),
      10_000,
      'the exported request span',
    );
    expect(span.service).toBe('switchboard-api-e2e');
  });

  it('the worker process exports the call workflow and its activities into the trace the API request began', async () => {
    const env = { ...noOtel, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
    const workerLog = path.join(logDir, 'worker.log');
    worker = h.spawnWorkerProcess(workerLog, env);
    await eventually(
      async () => (fs.existsSync(workerLog) && fs.readFileSync(workerLog, 'utf8').includes('"msg":"worker started"') ? true : undefined),
      60_000,
      'the worker to start',
    );
    // Provisioned by that worker, untraced: the API in this process does not trace.
    const line = await createActiveLine(h, tenant.keys.test, webhookLine({ webhook_url: 'https://agent.example.test/hooks' }));
    const port = await freePort();
    api = h.spawnApiProcess(path.join(logDir, 'api-call.log'), port, env);
    await waitForPort('127.0.0.1', port, 60_000, api);
    const traceId = crypto.randomBytes(16).toString('hex');
    const send = (method: string, route: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${port}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${tenant.keys.test}`,
          'content-type': 'application/json',
          traceparent: `00-${traceId}-${crypto.randomBytes(8).toString('hex')}-01`,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // That API process judges calling hours on its real clock: a callee whose window is open now.
    const placed = await send('POST', '/api/v1/calls', { line_id: line.id, to_number: calleeOpenAt(new Date()) });
    expect(placed.status).toBe(201);
    const id = ((await placed.json()) as { call: { id: string } }).call.id;
    await eventually(async () => ((await h.temporal.workflow.getHandle(id).describe()).historyLength > 5 ? true : undefined));
    expect((await send('POST', `/api/v1/calls/${id}/hangup`)).status).toBe(200);
    const inTrace = await eventually(
      async () => {
        const spans = collector.spans().filter((s) => s.traceId === traceId);
        return spans.some((s) => s.name === 'RunWorkflow:callWorkflow') ? spans : undefined;
      },
      30_000,
      'the workflow span',
    );
    const services = (name: string) => inTrace.filter((s) => s.name === name).map((s) => s.service);
    expect(services('POST /api/v1/calls')).toEqual(['switchboard-api']);
    expect(services('StartWorkflow:callWorkflow')).toEqual(['switchboard-api']);
    expect(services('RunWorkflow:callWorkflow')).toEqual(['switchboard-worker']);
    expect(services('RunActivity:placeCall')).toContain('switchboard-worker');
  });
});
