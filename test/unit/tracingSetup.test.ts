import { otlpConfigured } from '../../src/platform/tracing/setup';

describe('whether tracing is on', () => {
  it('is off without an OTLP endpoint', () => {
    expect(otlpConfigured({})).toBe(false);
    expect(otlpConfigured({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
  });

  it('is on with either endpoint variable', () => {
    expect(otlpConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(otlpConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });

  it('OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off whatever the endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(otlpConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(otlpConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(otlpConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });
});
