import type { DataConverter } from '@temporalio/common';
import { dataConverterWith, payloadCodecOf } from '../../src/platform/temporal/client';

/**
 * The data converter of a test's own Temporal clients and workers (time-skipping environments,
 * servers a test starts itself): payloads encrypted with the run's TEMPORAL_PAYLOAD_KEY
 * (test/support/globalSetup.ts), as every deployment's are.
 */
export function testDataConverter(): DataConverter {
  return dataConverterWith(payloadCodecOf({ temporalPayloadKey: process.env.TEMPORAL_PAYLOAD_KEY }));
}

/**
 * Where in a history the codec's ciphertext is (a payload's field path, as `transformHistoryPayloads`
 * gives it): every payload but the server's search attributes, the interceptors' headers and the SDK
 * core's own marker data (a patch's id, a local activity's bookkeeping: core writes and reads those
 * itself); a local activity's result in its marker is encrypted. Checked against a real run's history
 * in test/integration/payloadEncryption.test.ts.
 */
export function encryptedByClientsAndWorkers(path: ReadonlyArray<string | number>): boolean {
  return (
    !path.some((key) => key === 'searchAttributes' || key === 'header') &&
    (!path.includes('markerRecordedEventAttributes') || path.includes('result'))
  );
}
