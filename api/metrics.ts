import client from 'prom-client';

/** Process-wide Prometheus registry for the API, exposed at GET /metrics. */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

export const httpRequestDuration = new client.Histogram({
  name: 'switchboard_http_request_duration_seconds',
  help: 'API request latency by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [registry],
});
