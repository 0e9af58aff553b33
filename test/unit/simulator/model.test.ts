import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { ModelRejectedError, ModelUnavailableError, type ConversationTurn } from '../../../src/adapters/model/port';
import { DEFAULT_MODEL_MAX_TOKENS, OpenAiCompatibleModel } from '../../../src/adapters/model/openAiCompatible';
import { startSimulator } from '../../../simulator/app';
import type { ModelRequestRecord } from '../../../simulator/model';
import { randomSimulatorCredentials, simulatorControl } from '../../../dev/simulator';
import { until as waitUntil } from '../../support/waits';

/** The simulator's OpenAI-compatible model, through the adapter Switchboard uses and the control API. */
describe('simulator: model (OpenAI-compatible)', () => {
  const credentials = randomSimulatorCredentials();
  const systemPrompt = 'You are the front desk of a small restaurant. Be brief.';
  let simulator: http.Server;
  let url: string;
  let model: OpenAiCompatibleModel;

  beforeAll(async () => {
    const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials });
    simulator = sim.server;
    url = sim.url;
    model = new OpenAiCompatibleModel({ baseUrl: `${url}/v1`, apiKey: 'simulator', model: 'switchboard-sim-1' });
  });
  afterAll(async () => {
    await new Promise((resolve) => simulator.close(resolve));
  });
  beforeEach(async () => {
    await control('/control/model/reset');
  });

  const control = async (path: string, body?: object) => {
    const response = await simulatorControl(url, credentials.controlToken)('POST', path, body);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const requests = async (): Promise<ModelRequestRecord[]> => {
    const response = await simulatorControl(url, credentials.controlToken)('GET', '/control/model/requests');
    return ((await response.json()) as { requests: ModelRequestRecord[] }).requests;
  };
  const until = (probe: () => Promise<boolean>) => waitUntil(probe, 'the model simulator', { intervalMs: 20, timeoutMs: 2_000 });
  const ask = (text: string, turns: ConversationTurn[] = []) =>
    model.streamReply({ systemPrompt, turns: [...turns, { role: 'user', text }] });
  const collect = async (deltas: AsyncIterable<string>) => {
    const out: string[] = [];
    for await (const delta of deltas) out.push(delta);
    return out;
  };
  /** Runs the iteration to its end and returns what it threw. */
  const failureOf = async (deltas: AsyncIterable<string>): Promise<unknown> => {
    try {
      await collect(deltas);
    } catch (err) {
      return err;
    }
    throw new Error('the stream did not fail');
  };

  it('streams the default reply word by word, echoing the last user message', async () => {
    const deltas = await collect(ask('Do you have a table for two?'));
    expect(deltas.join('')).toBe('You said: Do you have a table for two. How can I help further?');
    expect(deltas).toEqual([
      'You ',
      'said: ',
      'Do ',
      'you ',
      'have ',
      'a ',
      'table ',
      'for ',
      'two. ',
      'How ',
      'can ',
      'I ',
      'help ',
      'further?',
    ]);
  });

  it('sends the system prompt and the turns in order, and the log shows them', async () => {
    const turns: ConversationTurn[] = [
      { role: 'user', text: 'Hi, are you open tonight?' },
      { role: 'assistant', text: 'Yes, until eleven.' },
    ];
    await collect(ask('Great, book me at eight.', turns));
    const log = await requests();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      model: 'switchboard-sim-1',
      stream: true,
      authorization_present: true,
      reply: 'You said: Great, book me at eight. How can I help further?',
      tokens_sent: 12,
      disconnected: false,
    });
    expect(log[0].messages).toEqual([
      { role: 'system', content: systemPrompt },
      { role: 'user', content: 'Hi, are you open tonight?' },
      { role: 'assistant', content: 'Yes, until eleven.' },
      { role: 'user', content: 'Great, book me at eight.' },
    ]);
  });

  it('L9: every request carries max_tokens; the model stops there (finish_reason length) and the turn is a finished reply', async () => {
    await collect(ask('Hello'));
    expect((await requests())[0].max_tokens).toBe(DEFAULT_MODEL_MAX_TOKENS);

    const terse = new OpenAiCompatibleModel({ baseUrl: `${url}/v1`, apiKey: 'simulator', model: 'switchboard-sim-1', maxTokens: 3 });
    await control('/control/model/replies', { reply: 'One two three four five six seven.' });
    const deltas = await collect(terse.streamReply({ systemPrompt, turns: [{ role: 'user', text: 'Talk' }] }));
    expect(deltas).toEqual(['One ', 'two ', 'three ']);
    expect((await requests())[1]).toMatchObject({ max_tokens: 3, tokens_sent: 3, disconnected: false });
  });

  it('L9: a reply is cut at the per-turn character limit and the model request closed', async () => {
    await control('/control/model/settings', { token_delay_ms: 20 });
    const brief = new OpenAiCompatibleModel({ baseUrl: `${url}/v1`, apiKey: 'simulator', model: 'switchboard-sim-1', maxReplyChars: 12 });
    await control('/control/model/replies', { reply: `Once upon a time ${'there was a very long story '.repeat(50)}` });
    const deltas = await collect(brief.streamReply({ systemPrompt, turns: [{ role: 'user', text: 'Tell me a story' }] }));
    expect(deltas.join('')).toBe('Once upon a ');
    await until(async () => (await requests())[0].disconnected);
    expect((await requests())[0].tokens_sent).toBeLessThan(20);
  });

  it('yields the first delta well before the whole reply when words are delayed', async () => {
    expect((await control('/control/model/settings', { token_delay_ms: 40 })).body).toEqual({ token_delay_ms: 40 });
    const started = Date.now();
    let first = -1;
    const deltas: string[] = [];
    for await (const delta of ask('one two three four five six seven eight')) {
      if (first === -1) first = Date.now() - started;
      deltas.push(delta);
    }
    const total = Date.now() - started;
    expect(deltas).toHaveLength(15);
    expect(total).toBeGreaterThanOrEqual(14 * 40 - 20);
    expect(first).toBeLessThan(total / 3);
  });

  it('uses scripted replies once each: the first whose match is in the last user message, or with no match', async () => {
    expect((await control('/control/model/replies', { reply: 'We have a table at eight.', match: 'TABLE' })).status).toBe(201);
    await control('/control/model/replies', { reply: 'Hello! How can I help?' });
    await control('/control/model/replies', { reply: 'Anything else?' });

    // "table" appears only in an earlier turn: the rule looks at the last user message only.
    expect((await collect(ask('Hi', [{ role: 'user', text: 'a table' }]))).join('')).toBe('Hello! How can I help?');
    expect((await collect(ask('Do you have a Table for two?'))).join('')).toBe('We have a table at eight.');
    expect((await collect(ask('Thanks'))).join('')).toBe('Anything else?');
    expect((await collect(ask('Bye now!'))).join('')).toBe('You said: Bye now. How can I help further?');
    const replies = await simulatorControl(url, credentials.controlToken)('GET', '/control/model/replies').then((r) => r.json());
    expect(replies).toEqual({ replies: [] });
  });

  it('honours a scripted reply’s own delay', async () => {
    await control('/control/model/replies', { reply: 'Slow and steady wins.', token_delay_ms: 60 });
    const started = Date.now();
    expect((await collect(ask('Go'))).join('')).toBe('Slow and steady wins.');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 60 - 20);
  });

  it('answers a scripted reply with tool_calls as function calls (finish_reason tool_calls), streamed or not, and accepts the tool results back', async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'simulator', maxRetries: 0 });
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'lookup_order', description: 'Finds an order', parameters: { type: 'object' } } },
    ];
    expect(
      (await control('/control/model/replies', { match: 'order', tool_calls: [{ name: 'lookup_order', arguments: { id: 'A7' } }] })).body,
    ).toEqual({
      reply: '',
      tool_calls: [{ name: 'lookup_order', arguments: { id: 'A7' } }],
      match: 'order',
      token_delay_ms: null,
      queued: 1,
    });
    await control('/control/model/replies', { reply: 'Let me check.', tool_calls: [{ name: 'lookup_order', arguments: { id: 'B8' } }] });

    const plain = await client.chat.completions.create({
      model: 'switchboard-sim-1',
      messages: [{ role: 'user', content: 'Where is my order?' }],
      tools,
    });
    const call = plain.choices[0].message.tool_calls?.[0];
    expect(plain.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { role: 'assistant', content: null } });
    expect(call).toMatchObject({ type: 'function', function: { name: 'lookup_order', arguments: '{"id":"A7"}' } });
    expect(call?.id).toMatch(/^call_/u);

    // The tool result goes back as a `tool` message after the assistant's call; the next reply is spoken and calls again.
    const stream = await client.chat.completions.create({
      model: 'switchboard-sim-1',
      stream: true,
      tools,
      messages: [
        { role: 'user', content: 'Where is my order?' },
        { role: 'assistant', content: null, tool_calls: plain.choices[0].message.tool_calls },
        { role: 'tool', tool_call_id: call?.id ?? '', content: '{"status":"shipped"}' },
      ],
    });
    let text = '';
    const streamed: Array<{ name?: string; arguments?: string }> = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      text += choice.delta.content ?? '';
      for (const part of choice.delta.tool_calls ?? []) streamed[part.index] = { ...part.function };
      finish = choice.finish_reason ?? finish;
    }
    expect({ text, streamed, finish }).toEqual({
      text: 'Let me check.',
      streamed: [{ name: 'lookup_order', arguments: '{"id":"B8"}' }],
      finish: 'tool_calls',
    });
    const log = await requests();
    expect(log.map((r) => r.tools)).toEqual([tools, tools]);
    expect(log[1].messages).toHaveLength(3);

    expect((await control('/control/model/replies', { tool_calls: [] })).status).toBe(400);
    expect((await control('/control/model/replies', { tool_calls: [{ name: 'bad name', arguments: {} }] })).status).toBe(400);
    expect((await control('/control/model/replies', { tool_calls: [{ name: 'ok', arguments: [1] }] })).status).toBe(400);
  });

  it('the adapter offers functions, assembles the streamed tool calls, and sends tool turns back as the call and its result', async () => {
    const lookup = {
      name: 'lookup_order',
      description: 'Looks up an order',
      parameters: { type: 'object', properties: { id: { type: 'string' } } },
    };
    await control('/control/model/replies', { reply: 'One moment.', tool_calls: [{ name: 'lookup_order', arguments: { id: 'A7' } }] });
    let called: Array<{ id: string; name: string; arguments: string }> = [];
    const spoken = await collect(
      model.streamReply({
        systemPrompt,
        turns: [{ role: 'user', text: 'Where is A7?' }],
        tools: [lookup],
        onToolCalls: (calls) => (called = calls),
      }),
    );
    expect(spoken.join('')).toBe('One moment.');
    expect(called).toEqual([{ id: expect.any(String), name: 'lookup_order', arguments: '{"id":"A7"}' }]);

    // Without tool calls, the callback is not called; a tool turn is the assistant's call followed by its result.
    let again = false;
    await collect(
      model.streamReply({
        systemPrompt,
        turns: [
          { role: 'user', text: 'Where is A7?' },
          { role: 'tool', call: called[0], result: '{"status":"shipped"}' },
        ],
        tools: [lookup],
        onToolCalls: () => (again = true),
      }),
    );
    expect(again).toBe(false);
    const [first, second] = await requests();
    expect(first.tools).toEqual([{ type: 'function', function: lookup }]);
    expect(second.messages).toEqual([
      { role: 'system', content: systemPrompt },
      { role: 'user', content: 'Where is A7?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: called[0].id, type: 'function', function: { name: 'lookup_order', arguments: '{"id":"A7"}' } }],
      },
      { role: 'tool', tool_call_id: called[0].id, content: '{"status":"shipped"}' },
    ]);
  });

  it('stops the stream when the request is aborted (barge-in), and the server stops writing', async () => {
    await control('/control/model/settings', { token_delay_ms: 50 });
    const controller = new AbortController();
    const deltas: string[] = [];
    let thrown: unknown;
    try {
      for await (const delta of model.streamReply({
        systemPrompt,
        turns: [{ role: 'user', text: 'a b c d e f g h i j k l m n o p' }],
        signal: controller.signal,
      })) {
        deltas.push(delta);
        if (deltas.length === 2) controller.abort();
      }
    } catch (err) {
      thrown = err;
    }
    // The signal's reason: a DOMException named AbortError for a plain abort().
    expect((thrown as Error).name).toBe('AbortError');
    expect(thrown).not.toBeInstanceOf(ModelUnavailableError);
    expect(deltas).toEqual(['You ', 'said: ']);
    await until(async () => (await requests())[0].disconnected);
    const [record] = await requests();
    const sent = record.tokens_sent;
    expect(sent).toBeLessThan(10);
    await new Promise((resolve) => setTimeout(resolve, 200)); // waits out a token sent after the disconnect
    expect((await requests())[0].tokens_sent).toBe(sent);
  });

  it('throws the abort reason at once for an already aborted signal, sending nothing', async () => {
    const reason = new Error('caller hung up');
    const err = await failureOf(
      model.streamReply({ systemPrompt, turns: [{ role: 'user', text: 'Hi' }], signal: AbortSignal.abort(reason) }),
    );
    expect(err).toBe(reason);
    expect(await requests()).toEqual([]);
  });

  it('ends the server stream when the consumer stops iterating', async () => {
    await control('/control/model/settings', { token_delay_ms: 50 });
    for await (const delta of ask('a b c d e f g h i j k l m n o p')) {
      expect(delta).toBe('You ');
      break;
    }
    await until(async () => (await requests())[0].disconnected);
    expect((await requests())[0].tokens_sent).toBeLessThan(10);
  });

  it('maps the error fault to ModelUnavailableError and the reject fault to ModelRejectedError', async () => {
    expect((await control('/control/model/faults', { mode: 'error' })).body).toEqual({ mode: 'error', remaining: null });
    const unavailable = await failureOf(ask('Hello'));
    expect(unavailable).toBeInstanceOf(ModelUnavailableError);
    expect((unavailable as ModelUnavailableError).status).toBe(500);
    expect(await failureOf(ask('Hello'))).toBeInstanceOf(ModelUnavailableError);

    await control('/control/model/faults', { mode: 'reject' });
    const rejected = await failureOf(ask('Hello'));
    expect(rejected).toBeInstanceOf(ModelRejectedError);
    expect((rejected as ModelRejectedError).status).toBe(400);

    await control('/control/model/faults', { mode: 'normal' });
    expect((await collect(ask('Hello'))).join('')).toBe('You said: Hello. How can I help further?');
    // Every request is in the log, refused or not; refused ones have no reply.
    expect((await requests()).map((r) => r.reply)).toEqual([null, null, null, 'You said: Hello. How can I help further?']);
  });

  it('applies a counted fault to the next requests only', async () => {
    expect((await control('/control/model/faults', { mode: 'error', count: 1 })).body).toEqual({ mode: 'error', remaining: 1 });
    expect(await failureOf(ask('Hello'))).toBeInstanceOf(ModelUnavailableError);
    expect((await collect(ask('Hello'))).join('')).toBe('You said: Hello. How can I help further?');
  });

  it('reports a model that does not answer, or goes silent mid-stream, as unavailable', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = new OpenAiCompatibleModel({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'x', model: 'm' });
    expect(await failureOf(unreachable.streamReply({ systemPrompt, turns: [{ role: 'user', text: 'Hi' }] }))).toBeInstanceOf(
      ModelUnavailableError,
    );

    await control('/control/model/settings', { token_delay_ms: 400 });
    const impatient = new OpenAiCompatibleModel({ baseUrl: `${url}/v1`, apiKey: 'simulator', model: 'switchboard-sim-1', timeoutMs: 100 });
    const deltas: string[] = [];
    let thrown: unknown;
    try {
      for await (const delta of impatient.streamReply({ systemPrompt, turns: [{ role: 'user', text: 'Hi' }] })) deltas.push(delta);
    } catch (err) {
      thrown = err;
    }
    expect(deltas).toEqual(['You ']);
    expect(thrown).toBeInstanceOf(ModelUnavailableError);
    expect((thrown as Error).message).toMatch(/silent for 100 ms/);
  });

  it('reports a stream cut short (the model server reset) as unavailable', async () => {
    await control('/control/model/settings', { token_delay_ms: 100 });
    const stream = ask('a b c d e f');
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe('You ');
    await control('/control/model/reset');
    let thrown: unknown;
    try {
      while (!(await iterator.next()).done);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ModelUnavailableError);
  });

  it('speaks the OpenAI wire format: SSE chunks, then [DONE]; and plain completions with stream off', async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer anything', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'switchboard-sim-1',
        stream: true,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Two words' }] }],
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text()).split('\n\n').filter((e) => e !== '');
    expect(events.every((e) => e.startsWith('data: '))).toBe(true);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map(
      (e) =>
        JSON.parse(e.slice(6)) as {
          id: string;
          object: string;
          model: string;
          created: number;
          choices: Array<{ index: number; delta: { role?: string; content?: string }; finish_reason: string | null }>;
        },
    );
    expect(chunks.map((c) => c.choices[0].delta)).toEqual([
      { role: 'assistant', content: 'You ' },
      { content: 'said: ' },
      { content: 'Two ' },
      { content: 'words. ' },
      { content: 'How ' },
      { content: 'can ' },
      { content: 'I ' },
      { content: 'help ' },
      { content: 'further?' },
      {},
    ]);
    expect(chunks.map((c) => c.choices[0].finish_reason)).toEqual([...Array(9).fill(null), 'stop']);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(
      chunks.every(
        (c) =>
          c.object === 'chat.completion.chunk' &&
          c.model === 'switchboard-sim-1' &&
          Number.isInteger(c.created) &&
          c.choices[0].index === 0,
      ),
    ).toBe(true);

    // The openai package itself, without streaming.
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'simulator', maxRetries: 0 });
    await control('/control/model/replies', { reply: 'Certainly.', match: 'please' });
    const completion = await client.chat.completions.create({
      model: 'switchboard-sim-1',
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'Help, please' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: 'Certainly.' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect((await requests()).at(-1)).toMatchObject({ stream: false, model: 'switchboard-sim-1' });
  });

  it('requires a bearer and a valid body', async () => {
    const post = (body: object, headers: Record<string, string> = { authorization: 'Bearer k' }) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const valid = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    const unauthenticated = await post(valid, {});
    expect(unauthenticated.status).toBe(401);
    expect(((await unauthenticated.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    expect((await post(valid, { authorization: 'Basic abc' })).status).toBe(401);
    expect((await post({ messages: valid.messages })).status).toBe(400);
    expect((await post({ model: 'm', messages: [] })).status).toBe(400);
    expect((await post({ model: 'm', messages: [{ role: 'robot', content: 'hi' }] })).status).toBe(400);
    expect((await post({ ...valid, stream: 'yes' })).status).toBe(400);
    expect((await post(valid)).status).toBe(200);
    expect((await requests()).map((r) => r.authorization_present)).toEqual([false, true, true, true, true, true, true]);
  });

  it('validates the control API', async () => {
    expect((await control('/control/model/replies', { reply: '  ' })).status).toBe(400);
    expect((await control('/control/model/replies', { reply: 'ok', match: '' })).status).toBe(400);
    expect((await control('/control/model/replies', { reply: 'ok', token_delay_ms: -1 })).status).toBe(400);
    expect((await control('/control/model/settings', { token_delay_ms: 1.5 })).status).toBe(400);
    expect((await control('/control/model/faults', { mode: 'explode' })).status).toBe(400);
    expect((await control('/control/model/faults', { mode: 'error', count: 0 })).status).toBe(400);
    expect(await simulatorControl(url, credentials.controlToken)('GET', '/control/model/settings').then((r) => r.json())).toEqual({
      token_delay_ms: 0,
    });
  });
});
