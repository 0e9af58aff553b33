import crypto from 'node:crypto';
import { context, ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Worker } from '@temporalio/worker';
import { startTracing, type Tracing } from '../../src/platform/tracing/setup';
import { tracingSinks } from '../../src/platform/tracing/temporal';
import { eventually, webhookLine } from '../support/harness';
import { CALLEE, customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { testDataConverter } from '../support/payloadCodec';
import { useSuite } from '../support/suite';

/**
 * One trace from the customer's request to the customer's receiver: the API's server span (continuing
 * the caller's `traceparent`), the Temporal start, the call's workflow, its first turn and the
 * `message` webhook POST, collected from the in-process API and worker by an in-memory exporter.
 */
describe('tracing a call', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  // Before the harness: its Temporal client and worker take the interceptors only when tracing is on.
  beforeAll(() => {
    tracing = startTracing('test', { exporter });
  });
  afterAll(async () => tracing.shutdown());
  const ctx = useSuite({ worker: true, receiver: true });
  const { receiver } = ctx;
  beforeAll(() =>
    receiver.respondWith((req) => (req.body.event === 'message' ? { status: 200, body: JSON.stringify({ text: 'Sure.' }) } : undefined)),
  );
  const { lines, calls } = customer(ctx, { line: () => webhookLine({ webhook_url: receiver.url }) });
  const sim = simulator(ctx);

  it("spans the API request, the workflow, the first turn and the message webhook in the caller's trace", async () => {
    const line = await lines.create();
    const traceId = crypto.randomBytes(16).toString('hex');
    // The customer's own trace: the request goes out with its `traceparent` (the fetch is instrumented).
    const callerSpan = { traceId, spanId: crypto.randomBytes(8).toString('hex'), traceFlags: TraceFlags.SAMPLED, isRemote: true };
    const placed = await context.with(trace.setSpanContext(ROOT_CONTEXT, callerSpan), () =>
      ctx.h.request('POST', '/api/v1/calls', { key: ctx.tenant.keys.test, body: { line_id: line.id, to_number: CALLEE } }),
    );
    expect(placed.status).toBe(201);
    const id = placed.body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    expect((await sim.calls.say(id, 'Do you have a table?', 'en')).status).toBe(202);
    const [message] = await eventually(async () => {
      const found = receiver.requests.filter((r) => r.body.event === 'message' && r.body.call_id === id);
      return found.length > 0 ? found : undefined;
    });
    // The customer's receiver can continue the trace too.
    expect(String(message.headers.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    await calls.hangUp(id);
    await calls.untilStatus(id, ['completed']);

    // The workflow's own span ends with the workflow.
    const spans = await eventually(async () => {
      const inTrace = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
      return inTrace.some((s) => s.name.startsWith('RunWorkflow:')) ? inTrace : undefined;
    });
    const one = (name: string | RegExp, kind?: SpanKind): ReadableSpan => {
      const found = spans.filter(
        (s) => (typeof name === 'string' ? s.name === name : name.test(s.name)) && (kind === undefined || s.kind === kind),
      );
      if (found.length === 0) throw new Error(`no span ${name} in ${spans.map((s) => s.name).join(', ')}`);
      return found[0];
    };
    const server = one('POST /api/v1/calls', SpanKind.SERVER);
    expect(server.attributes).toMatchObject({ 'http.route': '/api/v1/calls', 'http.response.status_code': 201 });
    expect(server.attributes['switchboard.request_id']).toBe(placed.headers.get('x-request-id'));
    const start = one(/^StartWorkflow:/);
    expect(start.parentSpanId).toBe(server.spanContext().spanId);
    expect(start.attributes.temporalWorkflowId).toBe(id);
    const workflow = one(/^RunWorkflow:/);
    expect(workflow.parentSpanId).toBe(start.spanContext().spanId);
    const turn = one('RunActivity:takeMessageTurn');
    const scheduled = one('StartActivity:takeMessageTurn');
    expect(turn.parentSpanId).toBe(scheduled.spanContext().spanId);
    expect(turn.attributes.temporalWorkflowId).toBe(id);
    // The POST that reached the receiver with the message is a span of this trace.
    const webhook = spans.find((s) => s.spanContext().spanId === String(message.headers.traceparent).split('-')[2]);
    expect(webhook).toBeDefined();
    expect(webhook!.kind).toBe(SpanKind.CLIENT);
    expect(webhook!.name).toBe('POST');
    expect(webhook!.attributes).toMatchObject({
      'url.full': receiver.url,
      'http.request.method': 'POST',
      'http.response.status_code': 200,
    });
    // Every span of the request and the call hangs off the request's span, through the workflow.
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const ancestors = (span: ReadableSpan): string[] => {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      return parent ? [parent.name, ...ancestors(parent)] : [];
    };
    expect(ancestors(webhook!)).toEqual(expect.arrayContaining([turn.name, workflow.name, start.name, server.name]));
    // A traced call's history replays on the same code (the interceptors add only headers to it).
    const history = await ctx.h.temporal.workflow.getHandle(id).fetchHistory();
    // Its payloads are encrypted as every history's is: the replay worker decrypts with the run's key.
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! }, sinks: tracingSinks(), dataConverter: testDataConverter() },
      history,
      id,
    );
  });
});
