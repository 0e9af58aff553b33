import { DEFAULT_RING_MS, placedCallPlan, TRANSFER_RING_TIMEOUT_MS, transferPlan } from '../../../simulator/carrier/destinations';

/** What a destination does when the simulated carrier calls it, placed or transferred to. */
describe('simulator: destinations', () => {
  const reserved = '+14155550142';
  const ordinary = '+14155552345';

  it('answers an unconfigured number and never connects the reserved 555-01xx range', () => {
    expect(placedCallPlan(ordinary, undefined)).toEqual({ outcome: 'answer', ringMs: DEFAULT_RING_MS });
    expect(placedCallPlan(reserved, undefined)).toEqual({ outcome: 'never_connect', ringMs: DEFAULT_RING_MS });
  });

  it('plays a placed call by the outcome and ring time set for its destination, reserved or not', () => {
    expect(placedCallPlan(reserved, { outcome: 'busy', ringMs: 50 })).toEqual({ outcome: 'busy', ringMs: 50 });
    expect(placedCallPlan(ordinary, { outcome: 'no_answer', ringMs: 900 })).toEqual({ outcome: 'no_answer', ringMs: 900 });
  });

  it('connects a transfer only to a destination that answers within the dial timeout', () => {
    expect(transferPlan(ordinary, undefined)).toEqual({ answers: true, afterMs: DEFAULT_RING_MS });
    expect(transferPlan(reserved, undefined)).toEqual({ answers: false, afterMs: DEFAULT_RING_MS });
    expect(transferPlan(ordinary, { outcome: 'busy', ringMs: 10 })).toEqual({ answers: false, afterMs: 10 });
    expect(transferPlan(ordinary, { outcome: 'answer', ringMs: TRANSFER_RING_TIMEOUT_MS })).toEqual({
      answers: true,
      afterMs: TRANSFER_RING_TIMEOUT_MS,
    });
    expect(transferPlan(ordinary, { outcome: 'answer', ringMs: TRANSFER_RING_TIMEOUT_MS + 1 })).toEqual({
      answers: false,
      afterMs: TRANSFER_RING_TIMEOUT_MS,
    });
  });
});
