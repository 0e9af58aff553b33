/**
 * Workflow interceptors (bundled into the workflow isolate: deterministic code only). They hand
 * each call to Temporal's OpenTelemetry interceptors only when it carries a trace context: the
 * workflow's start, a signal or an update from a traced client, or an activity, child, signal or
 * continue-as-new scheduled inside a traced span. Untraced work runs exactly as without them
 * (no span, no header, no SDK flag), so histories recorded before tracing keep replaying.
 */
import { context, trace } from '@opentelemetry/api';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Headers, WorkflowInterceptors } from '@temporalio/workflow';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';

const TRACE_HEADER = '_tracer-data';

function carriesTrace(headers: Headers): boolean {
  const payload = headers[TRACE_HEADER];
  if (payload === undefined) return false;
  const carrier = defaultPayloadConverter.fromPayload<Record<string, string> | null>(payload);
  return typeof carrier?.traceparent === 'string';
}

function insideSpan(): boolean {
  return trace.getSpan(context.active()) !== undefined;
}

export const interceptors = (): WorkflowInterceptors => {
  // Made on first use: their tracer provider is only built in workflows that are traced.
  let inbound: OpenTelemetryInboundInterceptor | undefined;
  let outbound: OpenTelemetryOutboundInterceptor | undefined;
  let traced = false;
  const otelIn = () => {
    traced = true;
    return (inbound ??= new OpenTelemetryInboundInterceptor());
  };
  const otelOut = () => (outbound ??= new OpenTelemetryOutboundInterceptor());
  return {
    inbound: [
      {
        execute: (input, next) => (carriesTrace(input.headers) ? otelIn().execute(input, next) : next(input)),
        handleSignal: (input, next) => (carriesTrace(input.headers) ? otelIn().handleSignal(input, next) : next(input)),
        handleUpdate: (input, next) => (carriesTrace(input.headers) ? otelIn().handleUpdate(input, next) : next(input)),
        validateUpdate: (input, next) => (carriesTrace(input.headers) ? otelIn().validateUpdate(input, next) : next(input)),
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => (traced && insideSpan() ? otelOut().scheduleActivity(input, next) : next(input)),
        scheduleLocalActivity: (input, next) => (traced && insideSpan() ? otelOut().scheduleLocalActivity(input, next) : next(input)),
        startChildWorkflowExecution: (input, next) =>
          traced && insideSpan() ? otelOut().startChildWorkflowExecution(input, next) : next(input),
        signalWorkflow: (input, next) => (traced && insideSpan() ? otelOut().signalWorkflow(input, next) : next(input)),
        continueAsNew: (input, next) => (traced && insideSpan() ? otelOut().continueAsNew(input, next) : next(input)),
        getLogAttributes: (input, next) => (traced ? otelOut().getLogAttributes(input, next) : next(input)),
      },
    ],
    internals: [{ dispose: (input, next) => (traced ? new OpenTelemetryInternalsInterceptor().dispose(input, next) : next(input)) }],
  };
};
