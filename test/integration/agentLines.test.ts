import { customer } from '../support/customer';
import { eventually } from '../support/eventually';
import { spokenCalls } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * Agent lines (issue 29, item 4; docs/decisions/calls.md "Agent lines (issue 29)"): an agent that drives its calls
 * only through the API or MCP needs neither a webhook URL nor a system prompt, and what the caller says while no
 * wait is pending is kept for its next wait. The same scenario on a webhook line (before agent lines) lost the
 * sentence to the `message` event: the wait timed out.
 */
describe('agent lines: the agent drives each call through live control', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, receiver } = ctx;
  const { lines, calls } = customer(ctx, { line: () => ({ name: 'Agent line', mode: 'agent' }) });
  const { sim } = spokenCalls(ctx);
  const transcribed = (id: string, texts: string[]) =>
    eventually(async () => {
      const said = ((await calls.get(id)).transcript ?? []).filter((entry) => entry.role === 'user').map((entry) => entry.text);
      return texts.every((text) => said.includes(text)) ? said : undefined;
    });

  it('needs no webhook_url or system_prompt; sentences said before any wait come on the next waits, oldest first', async () => {
    const line = await lines.create();
    expect(line).toMatchObject({ mode: 'agent', webhook_url: null });
    const placed = await calls.place(line.id, '+14155552781');
    expect(placed.status).toBe(201);
    const id = placed.body.call.id;
    await calls.untilStatus(id, ['in_progress']);

    await sim.calls.say(id, 'Hello? Who is this?');
    await sim.calls.say(id, 'Are you there?');
    // Both heard (in the transcript as said) while no wait was pending.
    expect(await transcribed(id, ['Hello? Who is this?', 'Are you there?'])).toEqual(['Hello? Who is this?', 'Are you there?']);

    expect((await calls.wait(id, { timeout_seconds: 5 })).body).toMatchObject({
      call_id: id,
      timed_out: false,
      call_ended: false,
      response_text: 'Hello? Who is this?',
    });
    expect((await calls.wait(id, { timeout_seconds: 5 })).body).toMatchObject({ timed_out: false, response_text: 'Are you there?' });
    // Nothing left: the next wait listens (and times out).
    expect((await calls.wait(id, { timeout_seconds: 1 })).body).toMatchObject({ timed_out: true, response_text: null });

    await calls.hangUp(id);
    const ended = await calls.untilStatus(id, ['completed']);
    // Priced as webhook mode: 13 cents a minute in zone A, per second.
    expect(ended.charge_cents).toBe(Math.ceil((13 * ended.duration_sec!) / 60));
    // Each sentence once in the transcript, in the order said.
    expect(ended.transcript!.map((entry) => entry.text)).toEqual(['Hello? Who is this?', 'Are you there?']);
  });

  it('a webhook_url gets lifecycle events only (never message); begin_message is spoken at the answer; speak-and-wait takes the kept sentence', async () => {
    const line = await lines.create({
      webhook_url: receiver.url,
      status_callback_url: receiver.url,
      begin_message: 'Hi, this is Ava calling for Acme.',
    });
    const id = (await calls.place(line.id, '+14155552782')).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    await eventually(async () =>
      (await sim.calls.speech(id)).some((s) => s.text === 'Hi, this is Ava calling for Acme.') ? true : undefined,
    );

    await sim.calls.say(id, 'Oh, hi.');
    await transcribed(id, ['Oh, hi.']);
    const asked = await calls.speak(id, { text: 'Is now a good time?', wait_for_response: true, timeout_seconds: 5 });
    expect(asked.body).toMatchObject({ spoke: true, timed_out: false, response_text: 'Oh, hi.' });

    await calls.hangUp(id);
    const eventsOfCall = () => receiver.requests.filter((r) => r.body.call_id === id).map((r) => String(r.body.event));
    const lifecycle = ['call_ended', 'call_outgoing', 'call_started'];
    await eventually(async () => (lifecycle.every((event) => eventsOfCall().includes(event)) ? true : undefined));
    // As on a webhook line, and nothing else: the caller's sentence was no `message`.
    expect(eventsOfCall().sort()).toEqual(lifecycle);
  });

  it('an inbound call: the agent takes it with a line wait, and what the caller said first is its first wait’s answer', async () => {
    const line = await lines.create();
    const incoming = h.request('POST', `/api/v1/lines/${line.id}/calls/wait`, { key: ctx.tenant.keys.test, body: { timeout_seconds: 20 } });
    expect((await sim.calls.ring('+14155550177', line.phone_number)).status).toBe(201);
    const taken = (await incoming).body as { call: { id: string }; timed_out: boolean };
    expect(taken.timed_out).toBe(false);
    const id = taken.call.id;
    await calls.untilStatus(id, ['in_progress']);

    await sim.calls.say(id, 'Hi, I am calling about my order.');
    await transcribed(id, ['Hi, I am calling about my order.']);
    expect((await calls.wait(id, { timeout_seconds: 5 })).body).toMatchObject({
      timed_out: false,
      response_text: 'Hi, I am calling about my order.',
    });
    await sim.calls.hangUp(id);
    expect(await calls.untilStatus(id, ['completed'])).toMatchObject({ direction: 'inbound', end_cause: 'caller_hangup' });
  });

  it('refuses the fields that would hand an agent line’s calls to another driver, with the validation envelope', async () => {
    for (const [field, value] of [
      ['system_prompt', 'You are a receptionist.'],
      ['audio_handler_url', 'wss://agent.example.com/audio'],
      ['tools', [{ type: 'hang_up' }]],
    ] as const) {
      const refused = await lines.post({ [field]: value });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('validation_error');
      expect(refused.body.error.details).toEqual([expect.objectContaining({ field, message: expect.stringMatching(/agent line/) })]);
    }

    // A hosted line becomes an agent line once its prompt is cleared in the same change.
    const hosted = await lines.create({ mode: 'hosted', system_prompt: 'You are a receptionist.' });
    const kept = await h.request('PATCH', `/api/v1/lines/${hosted.id}`, { key: ctx.tenant.keys.test, body: { mode: 'agent' } });
    expect(kept.status).toBe(422);
    expect(kept.body.error.details).toEqual([expect.objectContaining({ field: 'system_prompt' })]);
    const cleared = await h.request('PATCH', `/api/v1/lines/${hosted.id}`, {
      key: ctx.tenant.keys.test,
      body: { mode: 'agent', system_prompt: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.line).toMatchObject({ mode: 'agent', system_prompt: null });
  });
});
