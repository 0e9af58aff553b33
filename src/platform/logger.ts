import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino from 'pino';

/**
 * One structured logger for every process. Credentials never reach a log line:
 * auth headers are redacted by path, and callers mask phone numbers with `maskPhone`.
 */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info', destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceFields,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        '*.plaintext_key',
        '*.key',
        '*.secret',
        '*.webhook_secret',
        'plaintext_key',
        'webhook_secret',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The active span's ids on every line, so a log line leads to its trace. With tracing off there
 * is never an active span (the API's no-op context), and lines carry nothing extra.
 */
function traceFields(): Record<string, string> {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}

/** Keeps the country code and the last two digits: enough to correlate, not enough to identify a caller. */
export function maskPhone(e164: string | null | undefined): string | null {
  if (!e164) return null;
  if (e164.length <= 5) return '***';
  return `${e164.slice(0, 2)}${'*'.repeat(e164.length - 4)}${e164.slice(-2)}`;
}

export type Logger = pino.Logger;
