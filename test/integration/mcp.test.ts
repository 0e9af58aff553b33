import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { runCommand } from '../../src/main/cli';
import { eventually } from '../support/harness';
import { CALLEE, customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { untilWaitingForCaller } from '../support/callWorkflow';
import { MCP_ACCEPT, mcpInitialize } from '../support/mcpRequests';
import { useSuite } from '../support/suite';

/**
 * The MCP server (issue 18, item 1), driven by the SDK's own client: an agent with a line-bound
 * key runs a whole call through tools, and is refused outside its grant with the API's codes.
 */
describe('MCP server', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant } = ctx;
  const { lines, agentKeys, consent } = customer(ctx, { line: () => ({ name: 'Line', mode: 'webhook', webhook_url: ctx.receiver.url }) });
  const sim = simulator(ctx);
  const speech = (id: string) => h.simulator.state.calls.speechFor(id) ?? [];

  const httpTransport = (key: string) =>
    new StreamableHTTPClientTransport(new URL('/mcp', h.apiUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  /** `npm run mcp`, as a desktop agent starts it: the stdio entry, configured by the environment. */
  const stdioTransport = (key: string) =>
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/main/mcp.ts'],
      cwd: path.resolve(__dirname, '../..'),
      env: { PATH: process.env.PATH ?? '', SWITCHBOARD_API_KEY: key, SWITCHBOARD_URL: h.apiUrl },
      stderr: 'pipe',
    });
  const connect = async (transport: Transport) => {
    const client = new Client({ name: 'switchboard-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };
  // Tests assert on arbitrary JSON shapes.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Result = CallToolResult & { structuredContent: Record<string, any> };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as Result;
  const expectOk = (result: Result) => {
    if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent;
  };
  /** A refusal is a tool error whose text is the API's envelope (no structuredContent: the output schema describes success). */
  const expectRefused = (result: Result, code: string) => {
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text)).toMatchObject({ error: { code, message: expect.any(String) } });
  };

  /** Two lines of the workspace and a call_only agent key bound to the first. */
  const setUp = async () => {
    const mine = await lines.create();
    const other = await lines.create();
    const minted = await agentKeys.create({ name: 'agent', permissions: 'call_only', line_id: mine.id });
    expect(minted.status).toBe(201);
    return { mine, other, key: minted.body.key.plaintext_key };
  };

  /** The whole call, as an agent runs it over any transport. */
  const runCall = async (client: Client, lineId: string, otherLineId: string) => {
    // A call_only key bound to a line is offered what it may do: no lines to create, no texts to send.
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(
      expect.arrayContaining([
        'list_lines',
        'place_call',
        'get_call',
        'hang_up',
        'speak',
        'wait_for_reply',
        'wait_for_call',
        'follow_call',
      ]),
    );
    expect(tools).toEqual(
      expect.arrayContaining(['press_digits', 'list_conversations', 'get_conversation', 'check_consent', 'get_balance']),
    );
    expect(tools).not.toContain('create_line');
    expect(tools).not.toContain('send_sms');

    // The key sees its own line only.
    const listed = expectOk(await call(client, 'list_lines'));
    expect(listed.lines.map((l: { id: string }) => l.id)).toEqual([lineId]);

    const placed = expectOk(await call(client, 'place_call', { line_id: lineId, to_number: CALLEE }));
    const id = placed.call.id as string;
    expect(placed.call.status).toBe('initiated');
    await eventually(async () => {
      const got = expectOk(await call(client, 'get_call', { id }));
      return got.call.status === 'in_progress' ? true : undefined;
    });

    const asking = call(client, 'speak', { id, text: 'Shall I book it?', wait_for_response: true, timeout_seconds: 10 });
    await eventually(async () => (speech(id).some((s) => s.text === 'Shall I book it?' && s.state === 'done') ? true : undefined));
    await sim.calls.say(id, 'Yes please');
    expect(expectOk(await asking)).toMatchObject({ call_id: id, spoke: true, timed_out: false, response_text: 'Yes please' });

    const waiting = call(client, 'wait_for_reply', { id, timeout_seconds: 10 });
    await untilWaitingForCaller(h.temporal, id);
    await sim.calls.say(id, 'At eight');
    expect(expectOk(await waiting)).toMatchObject({ call_id: id, timed_out: false, response_text: 'At eight' });
    expect(expectOk(await call(client, 'press_digits', { id, digits: '12#' }))).toEqual({ call_id: id, pressed: true, digits: '12#' });
    // A destination that never answers: the call stays with the agent.
    expect(expectOk(await call(client, 'transfer_call', { id, to_number: '+14155550123' }))).toEqual({
      call_id: id,
      to_number: '+14155550123',
      transferred: false,
      failure_reason: 'not_answered',
    });

    // The transcript, as the call's record and as a resource.
    const withTranscript = expectOk(await call(client, 'get_call', { id }));
    const said = withTranscript.call.transcript.map((entry: { text: string }) => entry.text);
    expect(said).toEqual(expect.arrayContaining(['Shall I book it?', 'Yes please', 'At eight']));
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toEqual(['switchboard://calls/{id}/transcript']);
    const uri = `switchboard://calls/${id}/transcript`;
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain(uri);
    const resource = await client.readResource({ uri });
    const content = resource.contents[0] as { uri: string; mimeType: string; text: string };
    expect(content).toMatchObject({ uri, mimeType: 'application/json' });
    expect(JSON.parse(content.text)).toMatchObject({ call_id: id, transcript: withTranscript.call.transcript });

    const ended = expectOk(await call(client, 'hang_up', { id }));
    expect(ended.call.status).toBe('completed');
    expectRefused(await call(client, 'speak', { id, text: 'hello?' }), 'call_not_active');

    // Refused outside the grant, with the API's codes: another line, a verb the tier lacks (tools it is not offered, called anyway).
    expectRefused(await call(client, 'place_call', { line_id: otherLineId, to_number: CALLEE }), 'agent_scope_error');
    expectRefused(await call(client, 'send_sms', { line_id: lineId, to: CALLEE, text: 'hi' }), 'agent_permission_denied');
    expectRefused(await call(client, 'create_line', { name: 'more' }), 'agent_permission_denied');
    // The route's validation answers malformed arguments.
    expectRefused(await call(client, 'press_digits', { id, digits: '12x' }), 'validation_error');
    expectRefused(await call(client, 'get_call', { id: '00000000-0000-4000-8000-000000000000' }), 'call_not_found');
    return id;
  };

  it('over Streamable HTTP at /mcp: a line-bound key runs a whole call and is refused outside its grant', async () => {
    const { mine, other, key } = await setUp();
    const client = await connect(httpTransport(key));
    try {
      await runCall(client, mine.id, other.id);
    } finally {
      await client.close();
    }
  });

  it('create_line chooses the number (area code, type, country) and answers number_unavailable as the API does (issue 26)', async () => {
    const client = await connect(httpTransport(tenant.keys.test));
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'create_line');
      expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(['area_code', 'country', 'number_type', 'phone_number']),
      );
      const line = { name: 'Sales', mode: 'webhook', webhook_url: ctx.receiver.url };
      const created = expectOk(await call(client, 'create_line', { ...line, country: 'US', number_type: 'local', area_code: '212' }));
      expect(created.line).toMatchObject({ area_code: '212', number_type: 'local' });
      expect((await lines.untilActive(created.line.id)).phone_number).toMatch(/^\+1212\d{7}$/);
      expectRefused(await call(client, 'create_line', { ...line, number_type: 'mobile' }), 'number_unavailable');
      expectRefused(await call(client, 'create_line', { ...line, area_code: '416' }), 'validation_error');
    } finally {
      await client.close();
    }
  });

  it('scope, spend cap, conversation window, consent, idempotency and opt-out hold over MCP as over /api/v1', async () => {
    const line = await lines.create();
    const readOnly = (await agentKeys.create({ name: 'r', permissions: 'read_only' })).body.key.plaintext_key;
    const reader = await connect(httpTransport(readOnly));
    const capped = (await agentKeys.create({ name: 'c', monthly_cap_cents: 1 })).body.key.plaintext_key;
    const spender = await connect(httpTransport(capped));
    const owner = await connect(httpTransport(tenant.keys.test));
    try {
      expect(expectOk(await call(reader, 'get_balance'))).toMatchObject({ currency: 'USD' });
      expectRefused(await call(reader, 'hang_up', { id: '00000000-0000-4000-8000-000000000000' }), 'agent_permission_denied');
      const token = await h.request('POST', '/api-tokens', {
        key: tenant.keys.test,
        body: { name: 'narrow', grant: { scopes: ['read'] } },
      });
      expect(token.status).toBe(201);
      const narrow = await connect(httpTransport(token.body.key));
      expectRefused(await call(narrow, 'get_balance'), 'forbidden');
      await narrow.close();
      expectRefused(await call(spender, 'place_call', { line_id: line.id, to_number: CALLEE }), 'agent_cap_exceeded');

      const first = expectOk(await call(reader, 'check_consent', { phone_number: CALLEE, line_id: line.id }));
      expect(first).toMatchObject({ status: 'none', consent: null });

      // The conversation window, then consent recorded (with the owner's key, over HTTP) and checked over MCP.
      expectRefused(await call(owner, 'send_sms', { line_id: line.id, to: CALLEE, text: 'hi' }), 'conversation_window_expired');
      expect((await consent.record(line.id, CALLEE, 'explicit_outbound')).status).toBe(201);
      expect(expectOk(await call(reader, 'check_consent', { phone_number: CALLEE, line_id: line.id }))).toMatchObject({ status: 'active' });

      // Idempotency-Key as an argument: a retry replays the first answer; another request with it is refused.
      const sms = (text: string) => call(owner, 'send_sms', { line_id: line.id, to: CALLEE, text, idempotency_key: 'mcp-1' });
      const sent = expectOk(await sms('hi'));
      expect(expectOk(await sms('hi'))).toEqual(sent);
      expectRefused(await sms('other'), 'idempotency_key_reused');
      expect(await h.db('messages').where({ line_id: line.id, direction: 'outbound' }).count('id as n')).toEqual([{ n: '1' }]);
      const conversations = expectOk(await call(owner, 'list_conversations', { line_id: line.id }));
      expect(conversations.conversations).toHaveLength(1);
      const thread = expectOk(await call(owner, 'get_conversation', { line_id: line.id, phone_number: CALLEE }));
      expect(thread.messages.map((m: { id: string }) => m.id)).toEqual([sent.id]);

      // An opted-out number, for calls as for SMS.
      await runCommand(h.db, ['opt-out', 'add'], { workspace: tenant.workspaceId, env: 'test', number: CALLEE });
      expectRefused(await call(owner, 'place_call', { line_id: line.id, to_number: CALLEE }), 'number_opted_out');
      expectRefused(await call(owner, 'send_sms', { line_id: line.id, to: CALLEE, text: 'still there?' }), 'number_opted_out');
    } finally {
      await reader.close();
      await spender.close();
      await owner.close();
    }
  });

  it('over stdio (npm run mcp): the same call and the same refusals, relayed to the API with the key', async () => {
    const { mine, other, key } = await setUp();
    const client = await connect(stdioTransport(key));
    try {
      await runCall(client, mine.id, other.id);
    } finally {
      await client.close();
    }
    const refused = stdioTransport('sk_test_not-a-key');
    try {
      await expect(connect(refused)).rejects.toThrow(/401|invalid_api_key/);
    } finally {
      await refused.close();
    }
  });

  it('a tool call counts against its route’s rate limit, shared with /api/v1, and is refused with Retry-After', async () => {
    const client = await connect(httpTransport(tenant.keys.test));
    try {
      let refused: Result | undefined;
      for (let i = 0; i < 61 && !refused; i++) {
        const result = await call(client, 'get_balance');
        if (result.isError) refused = result;
      }
      expect(refused).toBeDefined();
      expectRefused(refused!, 'rate_limited');
      expect(refused!.content[1]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Retry after \d+ s\.$/) });
      const overHttp = await h.request('GET', '/api/v1/billing/balance', { key: tenant.keys.test });
      expect(overHttp.status).toBe(429);
    } finally {
      await client.close();
    }
  });

  it('an invalid or missing key is refused at /mcp with 401, as on /api/v1', async () => {
    await expect(connect(httpTransport('sk_test_not-a-key'))).rejects.toThrow(/401|invalid_api_key/);
    const initialize = mcpInitialize('t');
    const headers = MCP_ACCEPT;
    const bad = await h.request('POST', '/mcp', { key: 'sk_test_not-a-key', body: initialize, headers });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('invalid_api_key');
    const none = await h.request('POST', '/mcp', { body: initialize, headers });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    const service = await h.request('POST', '/mcp', { key: tenant.keys.serviceTest, body: initialize, headers });
    expect(service.status).toBe(401);
    const get = await h.request('GET', '/mcp', { key: tenant.keys.test });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('OPTIONS, POST');
  });
});
