import type { Config } from '../../src/platform/config';
import { eventually, useHarness, type Harness, type HarnessOptions, type Tenant } from './harness';
import { startReceiver, type Receiver } from './receiver';

export interface HarnessWithReceiver {
  h: Harness;
  tenant: Tenant;
  /** The customer's webhook receiver, one per file, emptied before each test. */
  receiver: Receiver;
}

/**
 * The setup of the call and message suites: one harness with its in-process worker for the file,
 * a fresh tenant for every test, and a webhook receiver. Read the fields inside tests.
 */
export function useHarnessWithReceiver(options: { overrides?: Partial<Config> } & HarnessOptions = {}): HarnessWithReceiver {
  const ctx = useHarness({ worker: true, ...options }) as HarnessWithReceiver;
  beforeAll(async () => {
    ctx.receiver = await startReceiver();
  });
  afterAll(async () => ctx.receiver?.close());
  beforeEach(() => {
    ctx.receiver.requests.length = 0;
  });
  return ctx;
}

/** A tenant's calls through the public API, as the suites drive them (`untilMs`: how long a status may take). */
export function callsApi(suite: { h: Harness; tenant: Tenant }, untilMs = 20_000) {
  const place = (lineId: string, to = '+14155552671', key = suite.tenant.keys.test) => suite.h.request('POST', '/api/v1/calls', { key, body: { line_id: lineId, to_number: to } });
  const getCall = async (id: string) => (await suite.h.request('GET', `/api/v1/calls/${id}`, { key: suite.tenant.keys.test })).body.call;
  const untilStatus = (id: string, statuses: string[], timeoutMs = untilMs) =>
    eventually(async () => {
      const call = await getCall(id);
      return statuses.includes(call.status) ? call : undefined;
    }, timeoutMs, `call ${id} to reach ${statuses.join('/')}`);
  return { place, getCall, untilStatus };
}
