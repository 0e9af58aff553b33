import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type Koa from 'koa';
import type { AppState } from '../context';
import { TRACER_NAME } from '../../src/platform/tracing/http';
import { tracingEnabled } from '../../src/platform/tracing/setup';

/**
 * The SERVER span of a request, continuing an incoming W3C `traceparent`; everything the request
 * does (logs, Temporal starts and updates, outbound calls) runs inside it. Named `METHOD route`
 * once the router has matched. With tracing off there is no span to open (the API's would be a
 * no-op), so the request passes straight on: a layer less on every request (issue 33, "GET").
 */
export function traceRequest(): Koa.Middleware<AppState> {
  // Not an async function itself: with tracing off, an async layer would still cost its own promise and ticks.
  return (ctx, next) => (tracingEnabled() ? traced(ctx, next) : next());
}

async function traced(ctx: Koa.ParameterizedContext<AppState>, next: Koa.Next): Promise<void> {
  const parent = propagation.extract(context.active(), ctx.headers);
  const attributes = { 'http.request.method': ctx.method, 'url.path': ctx.path, 'url.scheme': ctx.protocol };
  const span = trace.getTracer(TRACER_NAME).startSpan(ctx.method, { kind: SpanKind.SERVER, attributes }, parent);
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute;
    if (route) {
      span.updateName(`${ctx.method} ${String(route)}`);
      span.setAttribute('http.route', String(route));
    }
    span.setAttribute('http.response.status_code', ctx.status);
    if (ctx.state.requestId) span.setAttribute('switchboard.request_id', ctx.state.requestId);
    if (ctx.state.principal) span.setAttribute('switchboard.workspace_id', ctx.state.principal.workspaceId);
    if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}
