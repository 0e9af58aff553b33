import { CallEvents } from '../../workflows/calls/events';
import type { SignalledCallEvent } from '../../workflows/definitions/calls';

const sentence = (text: string, at: number): SignalledCallEvent => ({ type: 'call.utterance', text, at });

/** A carrier's redelivery of a sentence or transfer outcome is known (the call's signal handler then drops it). */
describe('CallEvents.repeats', () => {
  it('knows a sentence taken lately by its time and text, and nothing else', () => {
    const events = new CallEvents();
    const hello = sentence('Hello', 1_000);
    expect(events.repeats(hello)).toBe(false);
    events.add(hello);
    expect(events.repeats({ ...hello })).toBe(true);
    // The same words at another time are another sentence; another text at the same time too.
    expect(events.repeats(sentence('Hello', 1_001))).toBe(false);
    expect(events.repeats(sentence('Hi', 1_000))).toBe(false);
    // Events folded idempotently are never called repeats.
    const answered: SignalledCallEvent = { type: 'call.answered', at: 1_000 };
    events.add(answered);
    expect(events.repeats(answered)).toBe(false);
  });

  it('knows a transfer outcome by its time and result', () => {
    const events = new CallEvents();
    events.add({ type: 'call.transfer', at: 5, answered: true });
    expect(events.repeats({ type: 'call.transfer', at: 5, answered: true })).toBe(true);
    expect(events.repeats({ type: 'call.transfer', at: 5, answered: false })).toBe(false);
  });

  it('remembers the latest 32 and carries them into the next run; a run carried before them starts with none', () => {
    const events = new CallEvents();
    for (let i = 0; i < 33; i += 1) events.add(sentence(`s${i}`, i));
    expect(events.repeats(sentence('s0', 0))).toBe(false);
    expect(events.repeats(sentence('s1', 1))).toBe(true);
    const next = new CallEvents(events.carry([]));
    expect(next.repeats(sentence('s32', 32))).toBe(true);
    expect(next.sentences).toHaveLength(33);
    // A key stays small whatever the sentence's length: what a continued run carries does not grow with the text.
    const long = new CallEvents();
    for (let i = 0; i < 40; i += 1) long.add(sentence('x'.repeat(10_000), i));
    expect(JSON.stringify(long.carry([]).taken).length).toBeLessThan(32 * 100);
    expect(long.repeats(sentence('x'.repeat(10_000), 39))).toBe(true);
    const carriedBefore = new CallEvents({ sentences: [], playback: [] });
    expect(carriedBefore.repeats(sentence('s32', 32))).toBe(false);
  });
});
