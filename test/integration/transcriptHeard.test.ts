import { customer, HOSTED_DESK } from '../support/customer';
import { eventually } from '../support/harness';
import { spokenCalls } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * The transcript says what the caller heard (issue 29, from the portal and MCP walk): a reply the
 * caller talked over keeps only its played part, marked `interrupted`, the same text the
 * `interrupted` event and the speak answer report; the agent's key presses are entries of their own.
 */
describe('the transcript records what the caller heard and the keys the agent pressed', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, receiver } = ctx;
  const { lines, calls } = customer(ctx, { line: () => ({ name: 'Line' }) });
  const { sim, speech } = spokenCalls(ctx);
  const LONG = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen';

  it('hosted: a reply the caller talks over is kept as far as it was heard, as the interrupted event says', async () => {
    const line = await lines.create({ ...HOSTED_DESK, webhook_url: receiver.url });
    const id = (await calls.place(line.id, '+14155552681')).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    await eventually(async () => (speech(id)?.[0]?.state === 'done' ? true : undefined), 20_000, 'the begin message');

    h.simulator.state.calls.wordsPerSecond = 4;
    await sim.model.reply({ match: 'count', reply: `${LONG}.` });
    await sim.calls.say(id, 'Please count for me');
    await eventually(async () =>
      speech(id).some((s) => s.text.startsWith('one two') && s.played_text.split(' ').length >= 3) ? true : undefined,
    );
    await sim.calls.bargeIn(id, 'Enough');
    const interrupted = await eventually(async () =>
      receiver.requests.find((r) => r.body.event === 'interrupted' && r.body.call_id === id),
    );
    const heard = String(interrupted.body.partial_response_text);
    expect(heard).toMatch(/^one two three/);
    expect(heard).not.toContain('sixteen');
    const call = await eventually(async () => {
      const current = await calls.get(id);
      return current.transcript?.some((e) => e.interrupted) ? current : undefined;
    });
    const cut = call.transcript!.find((e) => e.interrupted)!;
    expect(cut).toEqual({ role: 'assistant', text: heard, timestamp: expect.any(String), interrupted: true });
    // Entries the caller heard whole are unchanged.
    expect(call.transcript![0]).toEqual({ role: 'assistant', text: 'Bonjour, Chez Marie.', timestamp: expect.any(String) });
    await calls.hangUp(id);
  });

  it('webhook mode: a `{text}` reply talked over is cut to what was heard', async () => {
    const line = await lines.create({ mode: 'webhook', webhook_url: receiver.url });
    receiver.replyTo('Count please', LONG);
    const id = (await calls.place(line.id, '+14155552682')).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    h.simulator.state.calls.wordsPerSecond = 4;
    await sim.calls.say(id, 'Count please');
    await eventually(async () =>
      speech(id).some((s) => s.text.startsWith('one two') && s.played_text.split(' ').length >= 3) ? true : undefined,
    );
    await sim.calls.bargeIn(id, 'Stop now');
    const interrupted = await eventually(async () =>
      receiver.requests.find((r) => r.body.event === 'interrupted' && r.body.call_id === id),
    );
    const heard = String(interrupted.body.partial_response_text);
    const call = await eventually(async () => {
      const current = await calls.get(id);
      return current.transcript?.length === 3 && current.transcript.some((e) => e.interrupted) ? current : undefined;
    });
    expect(call.transcript!.map((e) => [e.role, e.text, e.interrupted ?? false])).toEqual([
      ['user', 'Count please', false],
      ['assistant', heard, true],
      ['user', 'Stop now', false],
    ]);
    expect(heard.length).toBeLessThan(LONG.length);
    await calls.hangUp(id);
  });

  it('live control: a speak talked over and the agent’s key presses are in the transcript', async () => {
    const line = await lines.create({ mode: 'webhook', webhook_url: receiver.url });
    const id = (await calls.place(line.id, '+14155552683')).body.call.id;
    await calls.untilStatus(id, ['in_progress']);

    expect((await calls.press(id, { digits: '12#' })).body).toMatchObject({ pressed: true, digits: '12#' });
    h.simulator.state.calls.wordsPerSecond = 4;
    const speaking = calls.speak(id, { text: LONG, wait_for_response: true, timeout_seconds: 10 });
    await eventually(async () =>
      speech(id).some((s) => s.text.startsWith('one two') && s.played_text.split(' ').length >= 2) ? true : undefined,
    );
    await sim.calls.bargeIn(id, 'Hold on');
    const cut = (await speaking).body;
    expect(cut).toMatchObject({ interrupted: true, response_text: 'Hold on' });

    const call = await calls.untilTranscript(id, 3);
    expect(call.transcript!.map(({ role, text, interrupted, kind }) => ({ role, text, interrupted, kind }))).toEqual([
      { role: 'assistant', text: '12#', interrupted: undefined, kind: 'dtmf' },
      { role: 'assistant', text: cut.partial_response_text, interrupted: true, kind: undefined },
      { role: 'user', text: 'Hold on', interrupted: undefined, kind: undefined },
    ]);
    await calls.hangUp(id);
  });
});
