import { ratePerMinuteCents, type Zone } from '../../src/domain/billing/pricing';
import { recoveredSettlement } from '../../src/domain/calls/recover';
import { settleCall, type CallSettlementInput } from '../../src/domain/calls/settlement';
import type { LineMode } from '../../src/domain/lines/rules';
import { settlementOf } from '../../workflows/calls/settle';

const ANSWERED = Date.UTC(2026, 10, 28, 12, 0, 0);
const SECOND = 1000;

describe('settling an ended call (src/domain/calls/settlement.ts)', () => {
  const call = (fields: Partial<CallSettlementInput>): CallSettlementInput => ({
    mode: 'webhook',
    zone: 'A',
    to: '+14155552671',
    answeredAt: ANSWERED,
    endedAt: ANSWERED + 30 * SECOND,
    requestedAt: ANSWERED - 5 * SECOND,
    heardAt: ANSWERED + 31 * SECOND,
    heldCents: 13,
    status: 'completed',
    endCause: 'caller_hangup',
    ...fields,
  });

  it('charges each started second at the minute rate, and says so in the ledger line, the usage and call_ended', () => {
    expect(settleCall(call({ endedAt: ANSWERED + 30 * SECOND + 1 }))).toEqual({
      endedAt: ANSWERED + 30 * SECOND + 1,
      durationSec: 31,
      chargeCents: 7, // 13 * 31 / 60 = 6.7, rounded up
      description: 'Call to +14155552671 (31 s)',
      usage: { kind: 'call', seconds: 31 },
      callEnded: { duration_sec: 31, cause: 'caller_hangup', status: 'completed' },
    });
  });

  it('never charges more than was held', () => {
    const settled = settleCall(call({ endedAt: ANSWERED + 90 * SECOND, heardAt: ANSWERED + 91 * SECOND, heldCents: 13 }));
    expect(settled).toMatchObject({ durationSec: 90, chargeCents: 13 });
  });

  it('trusts the reported end only between the answer and when the end was heard (L7)', () => {
    expect(settleCall(call({ endedAt: ANSWERED + 600 * SECOND, heardAt: ANSWERED + 20 * SECOND }))).toMatchObject({
      endedAt: ANSWERED + 20 * SECOND,
      durationSec: 20,
    });
    expect(settleCall(call({ endedAt: ANSWERED - 60 * SECOND }))).toMatchObject({ endedAt: ANSWERED, durationSec: 0, chargeCents: 0 });
  });

  it('an unanswered call is free and sends no call_ended', () => {
    const settled = settleCall(call({ answeredAt: null, endedAt: ANSWERED, status: 'no_answer', endCause: 'ring_timeout' }));
    expect(settled).toMatchObject({ durationSec: 0, chargeCents: 0, callEnded: null, description: 'Call to +14155552671 (0 s)' });
  });
});

/**
 * Review section 7, change 1: the call workflow (workflows/calls/settle.ts `finish`) and crash
 * recovery (src/domain/calls/recover.ts) settle a call by the same rule, so a call ended by the
 * sweeper costs what it would have cost had its workflow ended it at the same moment.
 */
describe('the call workflow and crash recovery settle the same call the same way', () => {
  const cases: Array<{ mode: LineMode; zone: Zone; talkMs: number; minutesHeld: number }> = [
    { mode: 'webhook', zone: 'A', talkMs: 30 * SECOND, minutesHeld: 1 },
    { mode: 'webhook', zone: 'A', talkMs: 60 * SECOND, minutesHeld: 1 },
    { mode: 'hosted', zone: 'B', talkMs: 61.2 * SECOND, minutesHeld: 2 },
    { mode: 'audio', zone: 'C', talkMs: 400, minutesHeld: 1 },
    // Past what was held (a refused extension): both stop at the hold.
    { mode: 'hosted', zone: 'C', talkMs: 125 * SECOND, minutesHeld: 2 },
    { mode: 'webhook', zone: 'B', talkMs: 15 * 60 * SECOND, minutesHeld: 15 },
  ];

  it.each(cases)('$mode line, zone $zone, $talkMs ms talked, $minutesHeld minute(s) held', ({ mode, zone, talkMs, minutesHeld }) => {
    const reservePerMinuteCents = ratePerMinuteCents(mode, zone);
    const to = '+442071838750';
    const endedAt = ANSWERED + talkMs;
    const byWorkflow = settlementOf(
      {
        input: { mode, zone, to, reservePerMinuteCents },
        answeredAt: ANSWERED,
        requestedAt: ANSWERED - 8 * SECOND,
        funding: { minutesHeld },
      },
      'completed',
      'service_error',
      endedAt,
      endedAt + 150,
    );
    const byRecovery = recoveredSettlement(
      { mode, zone, to_number: to, created_at: new Date(ANSWERED - 9 * SECOND), started_at: new Date(ANSWERED) },
      reservePerMinuteCents * minutesHeld,
      new Date(endedAt),
    );
    expect(byRecovery).toEqual(byWorkflow);
    expect(byRecovery.chargeCents).toBeLessThanOrEqual(reservePerMinuteCents * minutesHeld);
    expect(byRecovery.chargeCents).toBeGreaterThan(0);
  });

  it('a call never answered is free either way, with no call_ended', () => {
    const byWorkflow = settlementOf(
      {
        input: { mode: 'webhook', zone: 'A', to: '+14155552671', reservePerMinuteCents: 13 },
        answeredAt: null,
        requestedAt: ANSWERED,
        funding: { minutesHeld: 1 },
      },
      'failed',
      'service_error',
      ANSWERED + 20 * SECOND,
      ANSWERED + 20 * SECOND,
    );
    const byRecovery = recoveredSettlement(
      { mode: 'webhook', zone: 'A', to_number: '+14155552671', created_at: new Date(ANSWERED), started_at: null },
      13,
      new Date(ANSWERED + 20 * SECOND),
    );
    expect(byRecovery).toEqual(byWorkflow);
    expect(byRecovery).toMatchObject({ chargeCents: 0, durationSec: 0, callEnded: null });
  });

  it('recovery charges a call found past any call length for that length at most, as its workflow would have ended it there', () => {
    const byRecovery = recoveredSettlement(
      { mode: 'webhook', zone: 'A', to_number: '+14155552671', created_at: new Date(ANSWERED), started_at: new Date(ANSWERED) },
      10_000,
      new Date(ANSWERED + 3 * 60 * 60 * SECOND),
    );
    expect(byRecovery).toMatchObject({ durationSec: 900, chargeCents: 13 * 15 });
  });
});
