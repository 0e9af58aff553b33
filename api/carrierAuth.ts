import crypto from 'node:crypto';
import type { AppContext, AppDeps } from './context';
import { ApiError } from './errors';

/** The carrier's callbacks carry the shared carrier secret as a bearer token, compared in constant time. */
export function assertCarrier(ctx: AppContext, deps: AppDeps): void {
  const expected = Buffer.from(`Bearer ${deps.config.carrierEventsSecret}`);
  const presented = Buffer.from(ctx.get('authorization'));
  if (presented.length !== expected.length || !crypto.timingSafeEqual(presented, expected)) throw new ApiError(401, 'unauthorized', 'Invalid carrier credentials');
}
