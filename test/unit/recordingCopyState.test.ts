import { CarrierAuthError, CarrierRejectedError } from '../../src/adapters/carrier/port';
import {
  ChecksumMismatchError,
  StoreCredentialsRefusedError,
  StoreRequestRefusedError,
  StoreUnavailableError,
} from '../../src/adapters/storage/port';
import {
  CarrierRecordingUnreachableError,
  copyFailureReason,
  isFinalCopyFailure,
  openingAtCarrier,
} from '../../src/domain/recordings/copyState';
import { recordingStorageOf, type CopyFailure } from '../../src/domain/recordings/rules';

/** Issue 32: the copy's state (docs/decisions/recordings.md "The copy's state, for the API and the portal"). */
describe('the copy’s failure classes', () => {
  it('names each failure by a class, and says which are final', async () => {
    const unreachable = await openingAtCarrier(() => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:443'))).catch((e) => e);
    const refused = await openingAtCarrier(() => Promise.reject(new CarrierAuthError('401'))).catch((e) => e);
    expect(unreachable).toBeInstanceOf(CarrierRecordingUnreachableError);
    expect(refused).toBeInstanceOf(CarrierAuthError);
    const cases: Array<[unknown, string, boolean]> = [
      [new StoreUnavailableError('down'), 'store_unavailable', false],
      [new StoreCredentialsRefusedError('InvalidAccessKeyId'), 'credentials_refused', false],
      [new ChecksumMismatchError('other bytes'), 'checksum_mismatch', false],
      [unreachable, 'carrier_unavailable', false],
      [refused, 'carrier_refused', true],
      [new CarrierRejectedError('no such recording'), 'carrier_refused', true],
      [new StoreRequestRefusedError('400'), 'store_refused', true],
      [new Error('anything else'), 'error', false],
    ];
    expect(cases.map(([err]) => [copyFailureReason(err), isFinalCopyFailure(err)])).toEqual(
      cases.map(([, reason, final]) => [reason, final]),
    );
  });
});

describe('recordingStorageOf', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, s));
  const failure = (fields: Partial<CopyFailure>): CopyFailure => ({
    kind: 'recording',
    reason: 'store_unavailable',
    attempts: 1,
    retrying: true,
    firstFailedAt: at(0),
    lastFailedAt: at(0),
    ...fields,
  });
  const stored = [
    { kind: 'transcript' as const, sizeBytes: 120, storedAt: at(5) },
    { kind: 'recording' as const, sizeBytes: 4096, storedAt: at(4) },
  ];

  it('is none with nothing to store, pending with something left, stored once all is, recording first', () => {
    expect(recordingStorageOf({ stored: [], failures: [], pending: [], deletedAt: null }).state).toBe('none');
    expect(recordingStorageOf({ stored: [], failures: [], pending: ['recording'], deletedAt: null }).state).toBe('pending');
    expect(recordingStorageOf({ stored, failures: [], pending: [], deletedAt: null })).toEqual({
      state: 'stored',
      objects: [
        { kind: 'recording', size_bytes: 4096, stored_at: at(4).toISOString() },
        { kind: 'transcript', size_bytes: 120, stored_at: at(5).toISOString() },
      ],
      attempts: 0,
      failing_since: null,
      last_failure: null,
      deleted_at: null,
    });
  });

  it('is retrying with the latest failure and the earliest start, failed when every failing object is refused for good', () => {
    const failures = [
      failure({ kind: 'recording', reason: 'credentials_refused', attempts: 7, firstFailedAt: at(1), lastFailedAt: at(30) }),
      failure({ kind: 'transcript', reason: 'store_unavailable', attempts: 3, firstFailedAt: at(10), lastFailedAt: at(20) }),
    ];
    expect(recordingStorageOf({ stored: [], failures, pending: ['recording', 'transcript'], deletedAt: null })).toMatchObject({
      state: 'retrying',
      attempts: 7,
      failing_since: at(1).toISOString(),
      last_failure: { kind: 'recording', reason: 'credentials_refused', at: at(30).toISOString() },
    });
    const refused = [failure({ reason: 'carrier_refused', retrying: false })];
    expect(recordingStorageOf({ stored: [], failures: refused, pending: ['recording'], deletedAt: null }).state).toBe('failed');
    // A failure of an object no longer pending says nothing.
    expect(recordingStorageOf({ stored, failures, pending: [], deletedAt: null }).state).toBe('stored');
  });

  it('is deleted once the retention deleted the call’s objects, whatever failed before', () => {
    expect(recordingStorageOf({ stored: [], failures: [failure({})], pending: [], deletedAt: at(9) })).toEqual({
      state: 'deleted',
      objects: [],
      attempts: 0,
      failing_since: null,
      last_failure: null,
      deleted_at: at(9).toISOString(),
    });
  });
});
