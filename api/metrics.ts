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

/**
 * Portal signups by outcome (issue 27, H5): `created`, `closed` (SIGNUP_MODE=invite), `invalid`,
 * `email_taken`, `rate_limited` (one client address) and `rate_limited_global` (the deployment's
 * SIGNUP_RATE_PER_HOUR spent). docs/operations.md "Signup alerts" has the alert rules.
 */
export const portalSignups = new client.Counter({
  name: 'switchboard_portal_signups_total',
  help: 'Portal signups by outcome',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
