import { ServiceError } from '@temporalio/client';
import { loggableError, toApiError } from '../../api/middleware/errorMapping';

describe('error mapping', () => {
  const pgError = (code: string, message: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(message), { code, severity: 'ERROR', routine: 'x', ...extra });

  it("a value Postgres refuses is the caller's 422, anything else of the database a 500", () => {
    for (const code of ['22P02', '22003', '22007', '22008', '22001', '22021', '54000']) {
      expect(toApiError(pgError(code, 'bad')).toBody().error.code).toBe('validation_error');
      expect(toApiError(pgError(code, 'bad')).status).toBe(422);
    }
    expect(toApiError(pgError('40P01', 'deadlock detected')).status).toBe(500);
    expect(toApiError(pgError('22012', 'division by zero')).status).toBe(500);
  });

  /** A service error as the Temporal client raises it: the gRPC error (code, details, metadata) as its cause. */
  const temporalError = (code: number) =>
    new ServiceError('Unexpected error while making gRPC request', {
      cause: Object.assign(new Error('grpc'), { code, details: 'grpc', metadata: {} }),
    });

  it('Temporal RESOURCE_EXHAUSTED (too many in-flight updates) is 429 with Retry-After', () => {
    const mapped = toApiError(temporalError(8));
    expect(mapped.status).toBe(429);
    expect(mapped.code).toBe('rate_limited');
    expect(mapped.headers['Retry-After']).toBe('1');
  });

  it('Temporal unreachable or past its deadline is 503 service_unavailable with Retry-After; other Temporal errors stay 500', () => {
    for (const code of [14, 4]) {
      const mapped = toApiError(temporalError(code));
      expect([mapped.status, mapped.code, mapped.headers['Retry-After']]).toEqual([503, 'service_unavailable', '1']);
    }
    expect(toApiError(temporalError(13)).status).toBe(500);
  });

  it('logs of a data error carry no quoted input', () => {
    const logged = loggableError(pgError('22P02', 'select $1 - invalid input syntax for type uuid: "+14155550123"', { detail: 'x' }));
    expect(JSON.stringify(logged)).not.toMatch(/14155550123|detail/);
    const other = new Error('boom');
    expect(loggableError(other)).toBe(other);
  });
});
