import { decryptedHistory } from '../../dev/temporalHistory';
import { verifySignature } from '../../src/domain/webhooks/signature';
import { eventually } from '../support/harness';
import { customer } from '../support/customer';
import type { ReceivedRequest } from '../support/receiver';
import { spokenCalls } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * Tools during hosted calls (issue 29 item 3), as a customer sees them: the line declares a tool
 * endpoint and built-ins, the simulator's model calls them in the OpenAI-compatible format, and the
 * customer's endpoint, the transcript, the events and the carrier show what happened.
 */
describe('tools during hosted calls', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { receiver } = ctx;
  const { lines, calls } = customer(ctx, { line: () => ({ name: 'Support' }) });
  const { sim, speech } = spokenCalls(ctx);
  afterEach(async () => {
    receiver.respondWith(undefined);
    await sim.calls.reset();
  });

  const orderTool = (url: string, extra: Record<string, unknown> = {}) => ({
    type: 'function',
    name: 'lookup_order',
    description: 'Looks up an order by its id; call it when the caller asks where an order is.',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'], additionalProperties: false },
    url,
    ...extra,
  });
  const toolRequests = (callId: string) => receiver.requests.filter((r) => r.body.event === 'tool_call' && r.body.call_id === callId);
  const events = (callId: string, type: string) => receiver.requests.filter((r) => r.body.event === type && r.body.call_id === callId);
  const toolMessages = async () =>
    (await sim.model.requests()).flatMap((request) =>
      (request.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool'),
    );
  const transcriptTools = async (callId: string) =>
    ((await calls.get(callId)).transcript ?? []).filter((entry) => (entry as { kind?: string }).kind === 'tool') as Array<{
      text: string;
      tool: { name: string; arguments: Record<string, unknown>; result: string; error: string | null };
    }>;

  it('the model calls the customer’s tool, hears its answer, then transfers the caller as the line allows', async () => {
    const { line, webhookSecret } = await lines.createWithSecret({
      mode: 'hosted',
      system_prompt: 'You are Acme’s support agent.',
      webhook_url: receiver.url,
      tools: [orderTool(`${receiver.url}/tools/order`), { type: 'transfer_call', destinations: ['+14155552688'] }],
    });
    receiver.respondWith((req: ReceivedRequest) =>
      req.body.event === 'tool_call' ? { status: 200, body: JSON.stringify({ status: 'shipped', eta: 'Tuesday' }) } : undefined,
    );
    await sim.model.reply({
      reply: 'Let me look that up.',
      match: 'order',
      tool_calls: [{ name: 'lookup_order', arguments: { order_id: 'A-17' } }],
    });
    await sim.model.reply({
      reply: 'It shipped and arrives Tuesday. Let me put you through to a colleague.',
      match: 'order',
      tool_calls: [{ name: 'transfer_call', arguments: { destination: '+14155552688' } }],
    });

    const call = await calls.dial(line.id, '+14155552671');
    await calls.untilStatus(call.id, ['in_progress']);
    await sim.calls.say(call.id, 'Where is my order A-17?');

    // The endpoint got the arguments, signed like a webhook with the line's secret.
    const [asked] = await eventually(
      async () => (toolRequests(call.id).length > 0 ? toolRequests(call.id) : undefined),
      20_000,
      'the tool call',
    );
    expect(asked.body).toMatchObject({
      event: 'tool_call',
      call_id: call.id,
      line_id: line.id,
      name: 'lookup_order',
      arguments: { order_id: 'A-17' },
    });
    expect(verifySignature({ secret: webhookSecret, headers: asked.headers, rawBody: asked.rawBody })).toEqual({ valid: true });
    expect(verifySignature({ secret: 'another secret', headers: asked.headers, rawBody: asked.rawBody }).valid).toBe(false);

    // The call is transferred once the model has said so.
    const transferred = await eventually(
      async () => ((await calls.get(call.id)).transferred_to ? calls.get(call.id) : undefined),
      30_000,
      'the transfer',
    );
    expect(transferred).toMatchObject({ status: 'in_progress', transferred_to: '+14155552688' });
    expect((await sim.calls.find(call.id))?.transfer).toMatchObject({ to: '+14155552688', state: 'connected' });
    // Heard in full: the transfer waited for the model's last words.
    expect(
      speech(call.id)
        .map((s) => s.text)
        .join(' '),
    ).toBe('Let me look that up. It shipped and arrives Tuesday. Let me put you through to a colleague.');
    expect(speech(call.id).every((s) => s.state === 'done')).toBe(true);

    // The model was offered both tools, and read the endpoint's answer in its second round.
    const requests = await sim.model.requests();
    expect((requests[0].tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual([
      'lookup_order',
      'transfer_call',
    ]);
    expect(requests[1].messages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          role: 'assistant',
          tool_calls: [expect.objectContaining({ function: expect.objectContaining({ name: 'lookup_order' }) })],
        }),
        expect.objectContaining({ role: 'tool', content: JSON.stringify({ status: 'shipped', eta: 'Tuesday' }) }),
      ]),
    );

    // Each tool call is in the transcript and a tool_called event.
    const entries = await eventually(
      async () => ((await transcriptTools(call.id)).length === 2 ? transcriptTools(call.id) : undefined),
      20_000,
      'tool entries',
    );
    expect(entries.map((e) => [e.text, e.tool.arguments, e.tool.error])).toEqual([
      ['lookup_order', { order_id: 'A-17' }, null],
      ['transfer_call', { destination: '+14155552688' }, null],
    ]);
    expect(JSON.parse(entries[1].tool.result)).toEqual({ transferred: true, to_number: '+14155552688' });
    const told = await eventually(
      async () => (events(call.id, 'tool_called').length === 2 ? events(call.id, 'tool_called') : undefined),
      20_000,
      'tool_called',
    );
    expect(told.map((e) => (e.body.tool_call as { name: string }).name)).toEqual(['lookup_order', 'transfer_call']);
    expect(told[0].body.tool_call).toMatchObject({ result: JSON.stringify({ status: 'shipped', eta: 'Tuesday' }), error: null });
    await eventually(async () => events(call.id, 'call_transferred')[0], 20_000, 'call_transferred');

    // And in the call's history, as an operator reads it: each tool an activity, with its arguments and result.
    const history = await decryptedHistory(ctx.h.temporal, call.id);
    const ran = history.events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : []));
    const toolActivities = ran.filter((a) => ['callFunctionTool', 'clearToolTransfer'].includes(a.activityType?.name ?? ''));
    expect(toolActivities.map((a) => a.activityType?.name)).toEqual(['callFunctionTool', 'clearToolTransfer']);
    expect(JSON.parse(Buffer.from(toolActivities[0].input!.payloads![0].data!).toString())).toMatchObject({
      name: 'lookup_order',
      arguments: '{"order_id":"A-17"}',
    });

    await sim.calls.hangUp(call.id);
    expect((await calls.untilStatus(call.id, ['completed'])).end_cause).toBe('transferred');
  });

  it('a tool that times out or fails gives the model an error result, and the call goes on', async () => {
    const line = await lines.create({
      mode: 'hosted',
      system_prompt: 'You are Acme’s support agent.',
      webhook_url: receiver.url,
      tools: [orderTool(`${receiver.url}/tools/slow`, { timeout_ms: 500 })],
    });
    receiver.respondWith((req: ReceivedRequest) =>
      req.body.event === 'tool_call' ? { status: 200, body: '{}', delayMs: 3_000 } : undefined,
    );
    await sim.model.reply({ reply: '', match: 'order', tool_calls: [{ name: 'lookup_order', arguments: { order_id: 'B-2' } }] });
    await sim.model.reply({ reply: 'Sorry, I cannot see orders right now.', match: 'order' });
    await sim.model.reply({ reply: '', match: 'number', tool_calls: [{ name: 'lookup_order', arguments: { order: 7 } }] });
    await sim.model.reply({ reply: 'Which order was it?', match: 'number' });

    const call = await calls.dial(line.id, '+14155552672');
    await calls.untilStatus(call.id, ['in_progress']);
    await sim.calls.say(call.id, 'Where is my order B-2?');
    await eventually(async () => (speech(call.id).some((s) => s.state === 'done') ? true : undefined), 20_000, 'the apology');
    expect(speech(call.id)[0].text).toBe('Sorry, I cannot see orders right now.');
    expect(JSON.parse((await toolMessages())[0].content)).toEqual({ error: 'timeout after 500 ms' });

    // Arguments that do not fit the tool's schema are not sent: the model is told why.
    await sim.calls.say(call.id, 'The number is seven');
    await eventually(
      async () => (speech(call.id).length === 2 && speech(call.id)[1].state === 'done' ? true : undefined),
      20_000,
      'the question',
    );
    expect(toolRequests(call.id)).toHaveLength(1);
    expect(JSON.parse((await toolMessages()).at(-1)!.content).error).toMatch(/^invalid arguments: /);

    const entries = await transcriptTools(call.id);
    expect(entries.map((e) => e.tool.error)).toEqual(['timeout after 500 ms', expect.stringMatching(/^invalid arguments: /)]);
    expect((await calls.get(call.id)).status).toBe('in_progress');
    await calls.hangUp(call.id);
  });

  it('built-ins act under the API’s rules: an SMS outside the conversation window is refused, keys are pressed, the model hangs up after its goodbye', async () => {
    const line = await lines.create({
      mode: 'hosted',
      system_prompt: 'You are Acme’s support agent.',
      webhook_url: receiver.url,
      tools: [{ type: 'send_sms' }, { type: 'press_digits' }, { type: 'hang_up' }],
    });
    await sim.model.reply({
      reply: '',
      match: 'link',
      tool_calls: [
        { name: 'send_sms', arguments: { text: 'Your link: https://acme.example/track' } },
        { name: 'press_digits', arguments: { digits: '1#' } },
      ],
    });
    await sim.model.reply({ reply: 'Goodbye!', match: 'link', tool_calls: [{ name: 'hang_up', arguments: {} }] });

    const call = await calls.dial(line.id, '+14155552673');
    await calls.untilStatus(call.id, ['in_progress']);
    await sim.calls.say(call.id, 'Text me the link please');
    const ended = await calls.untilStatus(call.id, ['completed']);
    expect(ended.end_cause).toBe('agent_hangup');
    // The goodbye was heard to its end before the call ended.
    expect(speech(call.id)).toEqual([expect.objectContaining({ text: 'Goodbye!', state: 'done' })]);

    const entries = await transcriptTools(call.id);
    expect(entries.map((e) => [e.text, e.tool.error])).toEqual([
      ['send_sms', 'conversation_window_expired'],
      ['press_digits', null],
      ['hang_up', null],
    ]);
    expect(JSON.parse(entries[1].tool.result)).toEqual({ pressed: true, digits: '1#' });
  });

  it('a bad declaration is refused at creation with the validation envelope, naming the tool’s field', async () => {
    const refused = async (tools: unknown[], field: string) => {
      const res = await lines.post({ mode: 'hosted', system_prompt: 'Hi', tools });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    };
    await refused(
      [orderTool(receiver.url, { parameters: { type: 'object', properties: { id: { type: 'nonsense' } } } })],
      'tools.0.parameters',
    );
    await refused([orderTool(receiver.url, { parameters: { type: 'string' } })], 'tools.0.parameters.type');
    await refused([orderTool('http://169.254.169.254/latest/meta-data')], 'tools.0.url');
    await refused([orderTool('http://10.0.0.7/tools')], 'tools.0.url');
    await refused([orderTool(receiver.url), orderTool(receiver.url)], 'tools.1.name');
    await refused([orderTool(receiver.url, { name: 'hang_up' })], 'tools.0.name');
    await refused([{ type: 'transfer_call' }], 'tools.0.destinations');
    await refused([{ type: 'transfer_call', destinations: ['555-0100'] }], 'tools.0.destinations.0');

    // A call's own tools are checked the same way; a line's are replaced by them.
    const line = await lines.create({ mode: 'hosted', system_prompt: 'Hi', tools: [{ type: 'hang_up' }] });
    expect(line.tools).toEqual([{ type: 'hang_up' }]);
    const bad = await calls.placeWith({ line_id: line.id, to_number: '+14155552674', tools: [orderTool('http://169.254.169.254/')] });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ field: 'tools.0.url' })]);
    const own = await calls.placeWith({ line_id: line.id, to_number: '+14155552674', tools: [] });
    expect(own.status).toBe(201);
    expect(own.body.call.tools).toEqual([]);
    await calls.hangUp(own.body.call.id);
  });
});
