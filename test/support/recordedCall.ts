import type { Harness } from './harness';
import type { customer } from './customer';
import { until } from './waits';

type Customer = ReturnType<typeof customer>;

/**
 * A call placed on a new recording line that has spoken, then hung up: its id. It waits for the call's first transcript
 * entry before the hang-up, so the carrier's recording holds audio, not only the answer.
 */
export async function placeRecordedCall(h: Harness, { lines, calls }: Pick<Customer, 'lines' | 'calls'>): Promise<string> {
  const line = await lines.create();
  const id = (await calls.place(line.id)).body.call.id as string;
  await calls.untilStatus(id, ['in_progress']);
  await until(
    async () => {
      const row = await h.db('calls').where({ id }).first('transcript');
      return Array.isArray(row?.transcript) && row.transcript.length > 0;
    },
    `call ${id}'s first transcript entry`,
    { timeoutMs: 30_000 },
  );
  expect((await calls.hangUp(id)).status).toBe(200);
  return id;
}
