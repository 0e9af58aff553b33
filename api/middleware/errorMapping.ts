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
const DATABASE_INPUT_ERRORS = new Set(['22P02', '22003', '22007', '22008', '22001', '22021', '22P05', '2201W', '2201X', '22025', '22019', '54000']);

/** gRPC status RESOURCE_EXHAUSTED, as Temporal reports a workflow's in-flight update limit or a namespace's rate limit. */
const GRPC_RESOURCE_EXHAUSTED = 8;

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
  return typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code) && typeof candidate.severity === 'string' ? (candidate as DatabaseErrorLike) : undefined;
}

export function isDatabaseInputError(err: unknown): boolean {
  const db = databaseError(err);
  return db !== undefined && DATABASE_INPUT_ERRORS.has(db.code);
}

function isResourceExhausted(err: unknown): boolean {
  const codeOf = (e: unknown) => (e && typeof e === 'object' ? (e as { code?: unknown }).code : undefined);
  return codeOf(err) === GRPC_RESOURCE_EXHAUSTED || codeOf((err as { cause?: unknown } | null)?.cause) === GRPC_RESOURCE_EXHAUSTED;
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isDatabaseInputError(err)) {
    return errors.validation([{ message: 'A value in the request is malformed or out of range' }], 'The request has a value the service cannot store or compare');
  }
  if (isResourceExhausted(err)) {
    return new ApiError(429, 'rate_limited', 'Too many requests are in flight for this resource; retry shortly', undefined, { 'Retry-After': '1' });
  }
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
  return { type: 'DatabaseError', code: db.code, severity: db.severity, routine: db.routine, schema: db.schema, table: db.table, column: db.column, constraint: db.constraint, message };
}
