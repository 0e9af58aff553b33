import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/** The instrumentation scope of the spans Switchboard opens itself (docs/operations.md "Tracing"). */
export const TRACER_NAME = 'switchboard';

/**
 * A CLIENT span around an outbound request made with node:http (customer webhooks): `send` gets
 * the W3C `traceparent` headers to add. The URL is recorded without its query, which may hold a
 * customer's token. With tracing off the span is the API's no-op and the headers are empty.
 */
export async function outboundHttpSpan<T extends { statusCode?: number }>(
  method: string,
  url: URL,
  send: (traceHeaders: Record<string, string>) => Promise<T>,
): Promise<T> {
  const attributes = {
    'http.request.method': method,
    'url.full': `${url.origin}${url.pathname}`,
    'server.address': url.hostname,
    'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
  };
  return trace.getTracer(TRACER_NAME).startActiveSpan(method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const traceHeaders: Record<string, string> = {};
    propagation.inject(context.active(), traceHeaders);
    try {
      const response = await send(traceHeaders);
      if (response.statusCode !== undefined) {
        span.setAttribute('http.response.status_code', response.statusCode);
        if (response.statusCode >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      return response;
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}
