import { isGrpcServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApiError, errors } from '../errors';

/**
 * What a failure that is not an ApiError becomes on the wire, and what of it may be logged.
 * The one place where driver and SDK errors are translated (used by the error middleware).
 */

/**
 * SQLSTATEs that mean "the request carried a value Postgres cannot take": input syntax (22P02),
 * out of range (22003, 22008), bad datetime (22007), too long (22001), bytes the encoding refuses
 * (22021, 22P05), bad LIMIT/OFFSET (2201W, 2201X), and values too big to index (54000). Each root
 * cause is also validated before the query; this is the net under those checks, so a value that
 * slips past them is still the caller's 4xx and not a 500.
 */
const DATABASE_INPUT_ERRORS = new Set([
  '22P02',
  '22003',
  '22007',
  '22008',
  '22001',
  '22021',
  '22P05',
  '2201W',
  '2201X',
  '22025',
  '22019',
  '54000',
]);

interface DatabaseErrorLike {
  code: string;
  severity: string;
  routine?: string;
  table?: string;
  column?: string;
  constraint?: string;
  schema?: string;
  message: string;
}

export function databaseError(err: unknown): DatabaseErrorLike | undefined {
  const candidate = err as Partial<DatabaseErrorLike> | null;
  if (!candidate || typeof candidate !== 'object') return undefined;
  return typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code) && typeof candidate.severity === 'string'
    ? (candidate as DatabaseErrorLike)
    : undefined;
}

export function isDatabaseInputError(err: unknown): boolean {
  const db = databaseError(err);
  return db !== undefined && DATABASE_INPUT_ERRORS.has(db.code);
}

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
 * workflow, such as a call's live-control updates) is 429 `rate_limited`; an unreachable or overloaded server is 503
 * `service_unavailable`. Both carry `Retry-After`; neither changed anything.
 */
export function temporalBusyError(err: unknown): ApiError | undefined {
  const status = grpcStatusOf(err);
  if (status === RESOURCE_EXHAUSTED)
    return new ApiError(429, 'rate_limited', 'Too many requests in flight right now; retry shortly', undefined, { 'Retry-After': '1' });
  if (status === UNAVAILABLE || status === DEADLINE_EXCEEDED || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
    return new ApiError(503, 'service_unavailable', 'The service is busy; retry shortly', undefined, { 'Retry-After': '1' });
  }
  return undefined;
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isDatabaseInputError(err)) {
    return errors.validation(
      [{ message: 'A value in the request is malformed or out of range' }],
      'The request has a value the service cannot store or compare',
    );
  }
  const busy = temporalBusyError(err);
  if (busy) return busy;
  // Errors raised by Koa itself (e.g. ctx.throw, http-errors) carry an HTTP status.
  const status = (err as { status?: number; expose?: boolean }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(status, status === 404 ? 'not_found' : 'bad_request', (err as Error).message);
  }
  return errors.internal();
}

/**
 * A failure as it may be logged: a database error keeps its SQLSTATE and where it happened, not
 * the values it quotes (`detail` names the conflicting values, class 22 messages quote the input),
 * so no request data (phone numbers, texts) reaches the logs. Anything else is logged whole.
 */
export function loggableError(err: unknown): unknown {
  const db = databaseError(err);
  if (!db) return err;
  const message = db.code.startsWith('22') ? db.message.replace(/"[^"]*"/g, '"[redacted]"') : db.message;
  return {
    type: 'DatabaseError',
    code: db.code,
    severity: db.severity,
    routine: db.routine,
    schema: db.schema,
    table: db.table,
    column: db.column,
    constraint: db.constraint,
    message,
  };
}
