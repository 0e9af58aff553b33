import { startEchoAudioHandler } from '../support/echoAudioHandler';
import { eventually } from '../support/harness';
import { customer, HOSTED_DESK } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { untilWaitingForCaller } from '../support/callWorkflow';
import { useSuite } from '../support/suite';

/** Hosted and audio lines, conversation calls and live call control, end to end through the simulator. */
describe('hosted, audio and live-controlled calls', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant, receiver } = ctx;
  beforeEach(async () => {
    await sim.model.reset();
    h.simulator.state.calls.wordsPerSecond = 20;
  });
  const { lines, calls } = customer(ctx, { line: () => ({ name: 'Line' }) });
  const sim = simulator(ctx);
  /** What the caller heard so far (the simulator's state, in this process). */
  const speech = (id: string) => h.simulator.state.calls.speechFor(id)!;

  it('hosted: the model answers each sentence, spoken chunk by chunk in the line’s voice; a barge-in cuts it off; billed at the hosted rate', async () => {
    const line = await lines.create({ ...HOSTED_DESK, webhook_url: receiver.url });
    const placed = await calls.place(line.id, '+14155552671');
    expect(placed.status).toBe(201);
    const id = placed.body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    await eventually(async () => (speech(id)?.[0]?.state === 'done' ? true : undefined), 20_000, 'the begin message');
    expect(speech(id)[0]).toMatchObject({ text: 'Bonjour, Chez Marie.', voice: 'french-louis' });

    await sim.model.reply({ match: 'table', reply: 'Certainly. For how many people? And at what time?' });
    await sim.calls.say(id, 'Do you have a table tonight?');
    await eventually(async () => (speech(id).length === 4 ? true : undefined), 20_000, 'the three sentences of the reply');
    expect(
      speech(id)
        .slice(1)
        .map((s) => [s.text, s.voice]),
    ).toEqual([
      ['Certainly.', 'french-louis'],
      ['For how many people?', 'french-louis'],
      ['And at what time?', 'french-louis'],
    ]);
    const [first] = await sim.model.requests();
    // The line's prompt, and the language the carrier heard the sentence in.
    expect(first.messages[0]).toEqual({
      role: 'system',
      content: 'You are the booking desk of Chez Marie.\n\nThe caller\'s last sentence was in language "en"; answer in that language.',
    });
    expect(first.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Bonjour, Chez Marie.' },
      { role: 'user', content: 'Do you have a table tonight?' },
    ]);

    // A long reply, streamed slowly: the caller talks over it while it plays.
    await eventually(async () => (speech(id).every((s) => s.state === 'done') ? true : undefined));
    const long = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} of our menu today.`).join(' ');
    await sim.model.reply({ match: 'menu', reply: long, token_delay_ms: 60 });
    await sim.calls.say(id, 'What is on the menu?');
    await eventually(
      async () =>
        speech(id).some((s) => s.text.startsWith('Sentence number 2') && s.state === 'speaking' && s.played_text.split(' ').length >= 2)
          ? true
          : undefined,
      20_000,
      'the long reply to play',
    );
    await sim.calls.bargeIn(id, 'Stop, just book it', 'fr');
    const interrupted = await eventually(
      async () => receiver.requests.find((r) => r.body.event === 'interrupted' && r.body.call_id === id),
      20_000,
      'interrupted',
    );
    const heard = String(interrupted.body.partial_response_text);
    expect(heard).toMatch(/^Sentence number 1 of our menu today\. Sentence number/);
    expect(heard.length).toBeLessThan(long.length);
    // The model's stream for that reply was abandoned, and the next sentence got its own reply.
    await eventually(async () => ((await sim.model.requests()).length === 3 ? true : undefined), 20_000, 'the third model request');
    const requests = await sim.model.requests();
    expect(requests[1]).toMatchObject({ disconnected: true });
    expect(requests[2].messages.at(-1)).toEqual({ role: 'user', content: 'Stop, just book it' });
    expect(requests[2].messages[0].content).toContain('was in language "fr"');
    await eventually(
      async () => (speech(id).some((s) => s.text === 'You said: Stop, just book it.') ? true : undefined),
      20_000,
      'the reply to the interruption',
    );
    expect(speech(id).filter((s) => s.text.startsWith('Sentence number 12'))).toEqual([]);
    // No `message` events on a hosted line: the service holds the conversation.
    expect(receiver.requests.filter((r) => r.body.event === 'message')).toEqual([]);

    const ended = (await calls.hangUp(id)).body.call;
    expect(ended).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });
    expect(ended.charge_cents).toBe(Math.ceil((26 * ended.duration_sec!) / 60));
    expect(ended.transcript!.map((t) => t.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
  });

  it('a conversation call uses a system prompt built from the topic, at the hosted rate, within its max duration', async () => {
    const line = await lines.create({ mode: 'webhook', webhook_url: receiver.url });
    const missing = await calls.placeConversation({ line_id: line.id, to_number: '+14155552672' });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details![0].field).toBe('topic');
    const tooLong = await calls.placeConversation({ line_id: line.id, to_number: '+14155552672', topic: 'x', max_duration_seconds: 901 });
    expect(tooLong.status).toBe(422);

    const placed = await calls.placeConversation({
      line_id: line.id,
      to_number: '+14155552672',
      topic: 'confirm the dentist appointment on Friday at 10',
      max_duration_seconds: 10,
    });
    expect(placed.status).toBe(201);
    const call = placed.body.call;
    expect(call.system_prompt).toContain('confirm the dentist appointment on Friday at 10');
    expect(call.begin_message).toBe(
      "Hello! I'm an automated assistant calling about confirm the dentist appointment on Friday at 10. Do you have a moment?",
    );
    expect(call).toMatchObject({ topic: 'confirm the dentist appointment on Friday at 10', max_duration_sec: 10 });
    // The hosted reserve (26 ¢ in zone A), not the webhook one.
    expect(
      Number(
        (
          await h
            .db('spend_holds')
            .where({ reference: `call:${call.id}` })
            .first()
        ).amount_cents,
      ),
    ).toBe(26);

    await calls.untilStatus(call.id, ['in_progress']);
    await eventually(async () => (speech(call.id)?.[0]?.state === 'done' ? true : undefined), 20_000, 'the greeting');
    expect(speech(call.id)[0].text).toBe(call.begin_message);
    await sim.calls.say(call.id, 'Yes, that works.');
    await eventually(
      async () => (speech(call.id).some((s) => s.text === 'You said: Yes, that works.') ? true : undefined),
      20_000,
      'the model reply',
    );
    expect((await sim.model.requests())[0].messages[0].content.startsWith(`${call.system_prompt}\n\n`)).toBe(true);

    const ended = await calls.untilStatus(call.id, ['completed'], 20_000);
    expect(ended.end_cause).toBe('max_duration');
    expect(ended.duration_sec).toBeGreaterThanOrEqual(9);
    expect(ended.duration_sec).toBeLessThanOrEqual(12);
    expect(ended.charge_cents).toBe(Math.ceil((26 * ended.duration_sec!) / 60));
  });

  it('speak, wait and press on a live call; 409 call_not_active once it has ended', async () => {
    const line = await lines.create({ mode: 'webhook', webhook_url: receiver.url });
    const id = (await calls.place(line.id, '+14155552673')).body.call.id;
    await calls.untilStatus(id, ['in_progress']);

    const spoke = await calls.speak(id, { text: 'Your code is ready.' });
    expect(spoke.status).toBe(200);
    expect(spoke.body).toEqual({
      call_id: id,
      spoke: true,
      interrupted: false,
      partial_response_text: null,
      interruption_reason: null,
      timed_out: false,
      call_ended: false,
      response_text: null,
      response_timestamp: null,
    });

    // Speak and wait: the caller's answer goes to the request, not to the `message` webhook.
    const asking = calls.speak(id, { text: 'Shall I book it?', wait_for_response: true, timeout_seconds: 10 });
    await eventually(async () => (speech(id).some((s) => s.text === 'Shall I book it?' && s.state === 'done') ? true : undefined));
    await sim.calls.say(id, 'Yes please');
    const answered = await asking;
    expect(answered.body).toMatchObject({ spoke: true, interrupted: false, timed_out: false, response_text: 'Yes please' });
    expect(typeof answered.body.response_timestamp).toBe('number');

    // Talked over: interrupted, with what was heard.
    h.simulator.state.calls.wordsPerSecond = 4;
    const longSpeech = calls.speak(id, {
      text: 'one two three four five six seven eight nine ten eleven twelve',
      wait_for_response: true,
      timeout_seconds: 10,
    });
    await eventually(async () =>
      speech(id).some((s) => s.text.startsWith('one two') && s.played_text.split(' ').length >= 2) ? true : undefined,
    );
    await sim.calls.bargeIn(id, 'Wait, stop');
    const cut = await longSpeech;
    expect(cut.body).toMatchObject({
      spoke: false,
      interrupted: true,
      interruption_reason: 'caller_interrupted_control',
      response_text: 'Wait, stop',
    });
    expect(cut.body.partial_response_text!.startsWith('one two')).toBe(true);
    expect(cut.body.partial_response_text).not.toContain('twelve');

    const waited = await calls.wait(id, { timeout_seconds: 1 });
    expect(waited.body).toEqual({ call_id: id, timed_out: true, call_ended: false, response_text: null, response_timestamp: null });
    const waiting = calls.wait(id, {});
    await untilWaitingForCaller(h.temporal, id);
    await sim.calls.say(id, 'Still there?');
    expect((await waiting).body).toMatchObject({ timed_out: false, response_text: 'Still there?' });

    expect((await calls.press(id, { digits: '12x' })).status).toBe(422);
    const pressed = await calls.press(id, { digits: '12#w9' });
    expect(pressed.body).toEqual({ call_id: id, pressed: true, digits: '12#w9' });
    expect(await sim.calls.dtmf(id)).toEqual([expect.objectContaining({ digits: '12#w9' })]);

    // Control answers never became `message` events.
    expect(receiver.requests.filter((r) => r.body.event === 'message')).toEqual([]);

    await calls.hangUp(id);
    for (const [path, body] of [
      ['speak', { text: 'hello?' }],
      ['wait', {}],
      ['press', { digits: '1' }],
    ] as const) {
      const res = await calls[path](id, body);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('call_not_active');
    }
    // A read-only key may not control calls.
    const other = await calls.wait(id, {}, tenant.keys.live);
    expect(other.status).toBe(404);
  });

  it('audio: the call’s audio is relayed both ways to the customer’s socket, in order; the customer closing it ends the call', async () => {
    const customer = await startEchoAudioHandler();
    const received = customer.received;
    try {
      const handlerUrl = customer.url;
      const line = await lines.create({ mode: 'audio', audio_handler_url: handlerUrl, status_callback_url: receiver.url });
      const id = (await calls.place(line.id, '+14155552674')).body.call.id;
      await calls.untilStatus(id, ['in_progress']);
      const outgoing = await eventually(async () =>
        receiver.requests.find((r) => r.body.event === 'call_outgoing' && r.body.call_id === id),
      );
      expect(outgoing.body.relay_url).toBe(handlerUrl);
      await eventually(async () => (received.some((m) => m.event === 'start') ? true : undefined), 20_000, 'the stream to start');
      expect(received.find((m) => m.event === 'start')).toMatchObject({
        start: expect.objectContaining({ call_id: id, line_id: line.id, encoding: 'audio/x-mulaw', sample_rate: 8000 }),
      });

      await eventually(
        async () => ((await sim.calls.talk(id, { tone_hz: 440, duration_ms: 1000, stamp: true })).body.frames === 50 ? true : undefined),
        20_000,
        'the caller to talk',
      );
      const audio = await eventually(
        async () => {
          const state = await sim.calls.audio(id);
          return state.echo.matched === 50 ? state : undefined;
        },
        20_000,
        'every frame to come back',
      );
      expect(audio.echo).toMatchObject({ matched: 50, in_order: true });
      expect(audio.received).toMatchObject({ in_order: true });
      const media = received.filter((m) => m.event === 'media');
      expect(media).toHaveLength(50);
      expect(media.map((m) => m.sequence_number)).toEqual([...media.map((m) => m.sequence_number)].sort((a, b) => Number(a) - Number(b)));

      customer.socket()!.close(1000);
      const ended = await calls.untilStatus(id, ['completed']);
      expect(ended.end_cause).toBe('audio_handler_closed');
      // Audio lines send no `message` events and pay the audio rate (9 ¢ a minute in zone A).
      expect(ended.charge_cents).toBe(Math.ceil((9 * ended.duration_sec!) / 60));
    } finally {
      await customer.close();
    }
  });
});
