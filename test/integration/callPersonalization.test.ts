import { eventually } from '../support/harness';
import { customer } from '../support/customer';
import { spokenCalls } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/** Per-call `variables` (fill the line's texts for one call) and `metadata` (kept on the call, echoed in its events). */
describe('per-call variables and metadata', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant, receiver } = ctx;
  const { lines, calls } = customer(ctx, { line: () => ({ name: 'Line' }) });
  const { sim, speech } = spokenCalls(ctx);
  const callsOnLine = async (lineId: string) => Number((await h.db('calls').where({ line_id: lineId }).count({ n: '*' }))[0].n);

  it('variables fill the hosted line’s prompt and greeting for that call only: the caller hears them, the model is told them', async () => {
    const line = await lines.create({
      mode: 'hosted',
      system_prompt: 'You call {{ first_name }} about order {{order_id}}.',
      begin_message: 'Hello {{first_name}}, this is Acme.',
    });
    const placed = await calls.placeWith({
      line_id: line.id,
      to_number: '+14155552671',
      variables: { first_name: 'Ada', order_id: 'A-17' },
    });
    expect(placed.status).toBe(201);
    const call = placed.body.call;
    expect(call).toMatchObject({
      system_prompt: 'You call Ada about order A-17.',
      begin_message: 'Hello Ada, this is Acme.',
      metadata: {},
    });

    await calls.untilStatus(call.id, ['in_progress']);
    await eventually(async () => (speech(call.id)?.[0]?.state === 'done' ? true : undefined), 20_000, 'the greeting');
    expect(speech(call.id)[0].text).toBe('Hello Ada, this is Acme.');
    await sim.calls.say(call.id, 'Where is it?');
    await eventually(async () => ((await sim.model.requests()).length > 0 ? true : undefined), 20_000, 'the model request');
    expect((await sim.model.requests())[0].messages[0].content).toMatch(/^You call Ada about order A-17\./);
    await calls.hangUp(call.id);

    // The line is unchanged; a call without variables uses its texts as written.
    expect(await lines.get(line.id)).toMatchObject({ system_prompt: 'You call {{ first_name }} about order {{order_id}}.' });
    const plain = await calls.dial(line.id, '+14155552672');
    expect(plain.begin_message).toBe('Hello {{first_name}}, this is Acme.');
    await calls.hangUp(plain.id);
  });

  it('a conversation call fills its topic and begin message', async () => {
    const line = await lines.create({ mode: 'webhook', webhook_url: receiver.url });
    const placed = await calls.placeConversation({
      line_id: line.id,
      to_number: '+14155552673',
      topic: 'confirm {{who}}’s appointment',
      begin_message: 'Hi {{who}}!',
      variables: { who: 'Grace' },
    });
    expect(placed.status).toBe(201);
    expect(placed.body.call.system_prompt).toContain('confirm Grace’s appointment');
    expect(placed.body.call.begin_message).toBe('Hi Grace!');
    await calls.hangUp(placed.body.call.id);
  });

  it('metadata is on the call and in every event of it, webhook and status callback alike', async () => {
    const line = await lines.create({ mode: 'webhook', webhook_url: receiver.url, status_callback_url: `${receiver.url}/status` });
    receiver.replyTo('Hello?', 'Hi, this is Acme.');
    const metadata = { order_id: 'ord_1234', campaign: 'spring' };
    const placed = await calls.placeWith({ line_id: line.id, to_number: '+14155552674', metadata });
    expect(placed.status).toBe(201);
    const id = placed.body.call.id;
    expect(placed.body.call.metadata).toEqual(metadata);
    expect((await calls.get(id)).metadata).toEqual(metadata);
    expect((await calls.list(`?line_id=${line.id}`)).body.calls[0].metadata).toEqual(metadata);

    await calls.untilStatus(id, ['in_progress']);
    await sim.calls.say(id, 'Hello?');
    await calls.untilTranscript(id, 2);
    await calls.hangUp(id);
    const events = await eventually(async () => {
      const own = receiver.requests.filter((r) => r.body.call_id === id);
      return own.some((r) => r.body.event === 'call_ended') ? own : undefined;
    });
    const types = events.map((r) => r.body.event).sort();
    expect(types).toEqual(expect.arrayContaining(['call_outgoing', 'call_started', 'message', 'call_ended']));
    for (const event of events)
      expect({ event: event.body.event, metadata: event.body.metadata }).toEqual({ event: event.body.event, metadata });

    // A call without metadata sends none.
    const plain = await calls.dial(line.id, '+14155552675');
    await calls.untilStatus(plain.id, ['in_progress']);
    await calls.hangUp(plain.id);
    const plainEnded = await eventually(async () =>
      receiver.requests.find((r) => r.body.call_id === plain.id && r.body.event === 'call_ended'),
    );
    expect(plainEnded.body).not.toHaveProperty('metadata');
  });

  it('refuses bad variables and metadata with the validation envelope, and records nothing', async () => {
    const line = await lines.create({ mode: 'hosted', system_prompt: 'Greet {{name}}.' });
    const refused = async (fields: Record<string, unknown>, field: string) => {
      const res = await calls.placeWith({ line_id: line.id, to_number: '+14155552676', ...fields });
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 422, code: 'validation_error' });
      expect(res.body.error!.details!.map((d) => d.field)).toContain(field);
    };
    await refused({ variables: { name: 'Ada', nmae: 'typo' } }, 'variables.nmae');
    await refused({ variables: {} }, 'variables.name');
    await refused({ variables: { 'bad-name': 'x' } }, 'variables');
    await refused({ variables: { name: 7 } }, 'variables.name');
    await refused({ variables: { name: 'x'.repeat(1_001) } }, 'variables.name');
    await refused({ variables: 'name=Ada' }, 'variables');
    await refused({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata');
    await refused({ metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata');
    await refused({ metadata: { 'a[b]': 'v' } }, 'metadata');
    await refused({ metadata: { order: 'v'.repeat(501) } }, 'metadata.order');
    await refused({ metadata: { nested: { a: 1 } } }, 'metadata.nested');
    await refused({ metadata: ['a'] }, 'metadata');
    expect(await callsOnLine(line.id)).toBe(0);
    // Another tenant's line is still 404, variables or not.
    const other = await calls.placeWith({ line_id: line.id, to_number: '+14155552676', variables: { name: 'x' } }, tenant.keys.live);
    expect(other.status).toBe(404);
  });
});
