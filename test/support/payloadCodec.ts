import { Client, Connection } from '@temporalio/client';
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

/**
 * What `up`'s summary promises an operator about payloads, checked against the running stack: the
 * Temporal server holds `workflowId`'s input encrypted, and the printed codec endpoint and token
 * (the `temporal` CLI's `--codec-endpoint` / `--codec-auth`) decrypt it; without the token it refuses.
 */
export async function expectSummaryCodecDecrypts(summary: string, workflowId: string, expected: string): Promise<void> {
  const printed = /--address (\S+) --codec-endpoint (\S+) --codec-auth "Bearer (\S+)"/.exec(summary);
  if (!printed) throw new Error(`the summary names no codec endpoint:\n${summary}`);
  const [, address, endpoint, token] = printed;
  const connection = await Connection.connect({ address });
  try {
    const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
    const [payload] = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads!;
    const base64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('base64');
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, base64(v)])),
          data: base64(payload.data),
        },
      ],
    });
    expect(Buffer.from(payload.metadata!.encoding!).toString()).toBe('binary/encrypted');
    expect(Buffer.from(payload.data!).includes(expected)).toBe(false);
    const decode = (headers: Record<string, string>) =>
      fetch(`${endpoint}/decode`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await decode({})).status).toBe(401);
    const decoded = await decode({ authorization: `Bearer ${token}` });
    expect(decoded.status).toBe(200);
    const [plain] = ((await decoded.json()) as { payloads: Array<{ data: string }> }).payloads;
    expect(Buffer.from(plain.data, 'base64').toString('utf8')).toContain(expected);
  } finally {
    await connection.close();
  }
}
