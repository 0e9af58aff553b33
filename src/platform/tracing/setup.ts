import { context, propagation, trace } from '@opentelemetry/api';
import { detectResourcesSync, envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/**
 * The exporter, the instrumentation and the Node provider, loaded when tracing starts: a process that does not
 * trace never loads them (about 0.1 s of CPU at every start).
 */
function tracingSdk() {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded when tracing starts, as said above */
  return {
    ...(require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')),
    ...(require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation')),
    ...(require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici')),
    ...(require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node')),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** What a process has for tracing: on with a provider and its processor, or off (the API's no-ops). */
export type Tracing =
  | { enabled: true; resource: Resource; processor: SpanProcessor; shutdown(): Promise<void> }
  | { enabled: false; shutdown(): Promise<void> };

export interface TracingOptions {
  env?: NodeJS.ProcessEnv;
  /** Spans go here instead of OTLP, and tracing is on whatever the environment says (tests). */
  exporter?: SpanExporter;
}

let active: Tracing = { enabled: false, shutdown: async () => undefined };

/** Whether this process set up tracing (the Temporal interceptors are only added when it did). */
export function tracingEnabled(): boolean {
  return active.enabled;
}

export function currentTracing(): Tracing {
  return active;
}

/**
 * On when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * and OTEL_SDK_DISABLED is not `true`; the exporter, sampler (OTEL_TRACES_SAMPLER), limits and resource
 * (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) are then read from the standard variables by the SDK.
 */
export function otlpConfigured(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  if ((env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Registers the global tracer provider (W3C trace context propagation, AsyncLocalStorage context)
 * and the outbound fetch instrumentation, once per process. Off, nothing is registered and every
 * span the code opens is the API's no-op.
 */
export function startTracing(service: string, options: TracingOptions = {}): Tracing {
  const env = options.env ?? process.env;
  if (active.enabled) return active;
  if (!options.exporter && !otlpConfigured(env)) return active;
  const { OTLPTraceExporter, NodeTracerProvider, registerInstrumentations, UndiciInstrumentation } = tracingSdk();
  const resource = Resource.default()
    .merge(new Resource({ [ATTR_SERVICE_NAME]: `switchboard-${service}` }))
    .merge(detectResourcesSync({ detectors: [envDetectorSync] }));
  // Tests read spans as soon as they end; a deployment batches them (OTEL_BSP_* tune the batches).
  const processor = options.exporter ? new SimpleSpanProcessor(options.exporter) : new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  const unregister = registerInstrumentations({ tracerProvider: provider, instrumentations: [new UndiciInstrumentation()] });
  const tracing: Tracing = {
    enabled: true,
    resource,
    processor,
    async shutdown() {
      unregister();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      active = { enabled: false, shutdown: async () => undefined };
    },
  };
  active = tracing;
  return tracing;
}
