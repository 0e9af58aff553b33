import {
  batchInputBytes,
  DEFAULT_DISPATCH_LIMITS,
  MESSAGE_BATCH_MAX,
  MESSAGE_BATCH_MAX_BYTES,
  nextBatchLength,
} from '../../src/domain/messages/dispatch';
import type { SendMessageInput } from '../../workflows/definitions/messages';

const input = (text: string): SendMessageInput => ({
  messageId: '0f6c1c43-2a55-4d84-9c55-6f0b8a1b2c3d',
  workspaceId: '6a1e2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b',
  environment: 'live',
  lineId: 'b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e',
  from: '+14155550100',
  to: '+447700900123',
  text,
  segments: 10,
  chargeCents: 1000,
});

describe('how many messages a send batch takes (docs/decisions/sms.md "Accepted messages are sent in batches")', () => {
  it.each([
    ['1,600 emoji', '😀'.repeat(800)],
    ['1,600 control characters (escaped as \\u0001 in JSON)', '\u0001'.repeat(1_600)],
    ['1,600 quotes', '"'.repeat(1_600)],
    ['a short text', 'On my way'],
  ])('counts a message at no less than its JSON in the workflow input: %s', (_label, text) => {
    const message = input(text);
    expect(batchInputBytes(message)).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(message)));
  });

  it('so a batch of the largest texts stays within the byte budget, and one of typical texts fills its count', () => {
    const largest = Array.from({ length: 1_000 }, () => batchInputBytes(input('\u0001'.repeat(1_600))));
    const length = nextBatchLength(largest, 0, DEFAULT_DISPATCH_LIMITS);
    expect(length).toBeLessThan(MESSAGE_BATCH_MAX);
    expect(largest.slice(0, length).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(MESSAGE_BATCH_MAX_BYTES);
    const typical = Array.from({ length: 1_000 }, () =>
      batchInputBytes(input('Your table for 4 is confirmed for 7:30 pm. Reply C to cancel.')),
    );
    expect(nextBatchLength(typical, 0, DEFAULT_DISPATCH_LIMITS)).toBe(MESSAGE_BATCH_MAX);
  });

  it('takes at least one message, even one over the budget, and starts where it is told', () => {
    expect(nextBatchLength([10, 20, 30], 1, { batchMax: 5, batchMaxBytes: 40 })).toBe(1);
    expect(nextBatchLength([100], 0, { batchMax: 5, batchMaxBytes: 40 })).toBe(1);
    expect(nextBatchLength([10, 10, 10, 10], 0, { batchMax: 3, batchMaxBytes: 1_000 })).toBe(3);
    expect(nextBatchLength([], 0, { batchMax: 3, batchMaxBytes: 1_000 })).toBe(0);
  });
});
