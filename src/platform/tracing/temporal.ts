import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { currentTracing } from './setup';

/**
 * Temporal's OpenTelemetry interceptors, loaded on first use: a process that does not trace and runs no worker, such as
 * the API by default, never loads them (about 0.07 s at its start, and at the start of every test file).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, as said above
const interceptors = () => require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');

/**
 * Bundled into every workflow bundle (the worker's, the tests', the replayer's), whether tracing is
 * on or not: the workflow code is then the same either way. The module only traces a workflow whose
 * start, signal or update carried a trace context, so untraced calls replay exactly as before.
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('./workflowInterceptors')];

/** The Temporal client's interceptors: starts, signals and updates carry the active trace context. */
export function tracingClientInterceptors(): WorkflowClientInterceptor[] {
  return currentTracing().enabled ? [new (interceptors().OpenTelemetryWorkflowClientInterceptor)()] : [];
}

/** Activities continue the trace of the workflow task that scheduled them (off: none added). */
export function tracingActivityInterceptors(): ActivityInterceptorsFactory[] {
  if (!currentTracing().enabled) return [];
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = interceptors();
  return [
    (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) }),
  ];
}

/** Drops the spans of a traced workflow when this worker does not trace. */
const DROP: SpanProcessor = {
  onStart: () => undefined,
  onEnd: (_span: ReadableSpan) => undefined,
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

/**
 * The sink workflow spans leave the isolate by. Always registered: a workflow started by a traced
 * API on a worker that does not trace hands its spans to a sink that drops them.
 */
export function tracingSinks(): InjectedSinks<OpenTelemetrySinks> {
  const tracing = currentTracing();
  const { makeWorkflowExporter } = interceptors();
  return {
    exporter: tracing.enabled ? makeWorkflowExporter(tracing.processor, tracing.resource) : makeWorkflowExporter(DROP, Resource.empty()),
  };
}
