import type { Config } from '../config';
import { sameSecret } from '../crypto/sameSecret';

/** What a `GET /metrics` request may see: the metrics, a 401, or a 404 (the endpoint does not exist). */
export type MetricsAccess = 'allowed' | 'unauthorized' | 'not_found';

/**
 * The one rule for every process's `/metrics` (API and worker; security review L5): with
 * METRICS_TOKEN set, its bearer, compared in constant time; unset, the dev profile only, and
 * elsewhere the endpoint does not exist.
 */
export function metricsAccess(config: Pick<Config, 'metricsToken' | 'profile'>, authorization: string | undefined): MetricsAccess {
  const token = config.metricsToken;
  if (!token) return config.profile === 'dev' ? 'allowed' : 'not_found';
  const presented = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
  return sameSecret(presented, token) ? 'allowed' : 'unauthorized';
}

export const METRICS_UNAUTHORIZED_MESSAGE = 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>';
