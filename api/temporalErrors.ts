import { isGrpcServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApiError } from './errors';

/** gRPC status codes Temporal answers with when it cannot take a request now. */
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;

/** The gRPC status behind a Temporal client error (it wraps the service error as `cause`). */
function grpcStatusOf(err: unknown): number | undefined {
  for (let current = err; current instanceof Error; current = (current as { cause?: unknown }).cause) {
    if (isGrpcServiceError(current)) return current.code;
  }
  return undefined;
}

/**
 * A Temporal refusal that means "not now" as the API's answer, or undefined for anything else:
 * a limit (`RESOURCE_EXHAUSTED`: the namespace's rate, or too many requests in flight on one
 * call's workflow) is 429 `rate_limited`; an unreachable or overloaded server is 503
 * `service_unavailable`. Both carry `Retry-After`; neither changed anything.
 */
export function temporalBusyError(err: unknown): ApiError | undefined {
  const status = grpcStatusOf(err);
  if (status === RESOURCE_EXHAUSTED) return new ApiError(429, 'rate_limited', 'Too many requests for this call right now; retry shortly', undefined, { 'Retry-After': '1' });
  if (status === UNAVAILABLE || status === DEADLINE_EXCEEDED || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
    return new ApiError(503, 'service_unavailable', 'The call service is busy; retry shortly', undefined, { 'Retry-After': '1' });
  }
  return undefined;
}
