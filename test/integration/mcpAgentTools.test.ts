import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { createTenant, eventually } from '../support/harness';
import { CALLEE, customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * What an agent needs of MCP beyond one request per operation (issue 29, item 2): waiting for the
 * next inbound call on a line, following a call's events as they happen, tool metadata the SDK
 * client checks (output schemas), and a JSON-only client. Driven by the official SDK client.
 */
describe('MCP agent tools', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant } = ctx;
  const { lines, agentKeys, calls } = customer(ctx, { line: () => ({ name: 'Line', mode: 'webhook', webhook_url: ctx.receiver.url }) });
  const sim = simulator(ctx);
  const CALLER = '+14155553377';

  const connect = async (key: string) => {
    const client = new Client({ name: 'switchboard-agent-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', h.apiUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
    );
    // The client checks every structuredContent against the output schemas listed here.
    await client.listTools();
    return client;
  };
  // Tests assert on arbitrary JSON shapes.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Result = CallToolResult & { structuredContent: Record<string, any> };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as Result;
  const expectOk = (result: Result) => {
    if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent;
  };
  const refusalCode = (result: Result) => {
    expect(result.isError).toBe(true);
    return (JSON.parse((result.content[0] as { text: string }).text) as { error: { code: string } }).error.code;
  };

  it('wait_for_call blocks until a call comes in on the line, gives each call to one wait, and refuses other lines and tenants', async () => {
    const line = await lines.create();
    const other = await lines.create();
    const key = (await agentKeys.create({ name: 'receptionist', permissions: 'call_only', line_id: line.id })).body.key.plaintext_key;
    const agent = await connect(key);
    try {
      const tool = (await agent.listTools()).tools.find((t) => t.name === 'wait_for_call')!;
      expect(tool).toMatchObject({ title: 'Wait for an incoming call', annotations: { readOnlyHint: false } });
      expect(tool.inputSchema.required).toEqual(['line_id']);

      // Nobody calls: the timed-out answer.
      expect(expectOk(await call(agent, 'wait_for_call', { line_id: line.id, timeout_seconds: 1 }))).toEqual({
        call: null,
        timed_out: true,
      });

      // Two waits at once, one call: one wait gets it, the other times out.
      const first = call(agent, 'wait_for_call', { line_id: line.id, timeout_seconds: 8 });
      const second = call(agent, 'wait_for_call', { line_id: line.id, timeout_seconds: 4 });
      expect((await sim.calls.ring(CALLER, line.phone_number)).status).toBe(201);
      const answers = (await Promise.all([first, second])).map(expectOk);
      const taken = answers.filter((a) => !a.timed_out);
      expect(taken).toHaveLength(1);
      expect(answers.filter((a) => a.timed_out)).toEqual([{ call: null, timed_out: true }]);
      const inbound = taken[0].call;
      expect(inbound).toMatchObject({ line_id: line.id, direction: 'inbound', from_number: CALLER, to_number: line.phone_number });
      // Still in progress, but taken: the next wait does not get it again.
      expect(expectOk(await call(agent, 'wait_for_call', { line_id: line.id, timeout_seconds: 1 }))).toEqual({
        call: null,
        timed_out: true,
      });
      expect(expectOk(await call(agent, 'hang_up', { id: inbound.id })).call.status).toBe('completed');

      // The key's binding, and another tenant's key on this line (404, as on /api/v1).
      expect(refusalCode(await call(agent, 'wait_for_call', { line_id: other.id, timeout_seconds: 1 }))).toBe('agent_scope_error');
      const stranger = await createTenant(h.db);
      const overHttp = await h.request('POST', `/api/v1/lines/${line.id}/calls/wait`, {
        key: stranger.keys.test,
        body: { timeout_seconds: 1 },
      });
      expect([overHttp.status, overHttp.body.error.code]).toEqual([404, 'not_found']);
      const strangerAgent = await connect(stranger.keys.test);
      expect(refusalCode(await call(strangerAgent, 'wait_for_call', { line_id: line.id, timeout_seconds: 1 }))).toBe('not_found');
      await strangerAgent.close();
      expect(refusalCode(await call(agent, 'wait_for_call', { line_id: line.id, timeout_seconds: 51 }))).toBe('validation_error');
    } finally {
      await agent.close();
    }
  });

  it.each(['HTTP', 'MCP'])('a wait whose %s client went away takes no call: the next wait gets it', async (via) => {
    const line = await lines.create();
    const controlHits = async () => {
      const rows = await h.db('rate_limit_windows').where('bucket', 'like', `calls.control%${tenant.workspaceId}%`).select('hits');
      return rows.reduce((sum, row: { hits: unknown[] }) => sum + row.hits.length, 0);
    };
    const before = await controlHits();
    let leave: () => Promise<unknown>;
    if (via === 'HTTP') {
      const gone = new AbortController();
      const abandoned = fetch(new URL(`/api/v1/lines/${line.id}/calls/wait`, h.apiUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.keys.test}`, 'content-type': 'application/json' },
        body: JSON.stringify({ timeout_seconds: 30 }),
        signal: gone.signal,
      }).catch(() => undefined);
      leave = () => (gone.abort(), abandoned);
    } else {
      // An agent host that quits: its client closes the connection the tool call is waiting on.
      const quitter = await connect(tenant.keys.test);
      const abandoned = call(quitter, 'wait_for_call', { line_id: line.id, timeout_seconds: 30 }).catch(() => undefined);
      leave = () => quitter.close().then(() => abandoned);
    }
    // The wait has passed the rate limit (its hit is recorded), so it is in its handler.
    await eventually(async () => ((await controlHits()) > before ? true : undefined));
    await leave();
    await sim.calls.ring(CALLER, line.phone_number);
    const row = await calls.untilInboundRow(line.id);
    // waits out a claim by the abandoned wait, were it alive: it looks every 0.5 s.
    await sleep(1500);
    expect((await h.db('calls').where({ id: row.id }).first()).wait_claimed_at).toBeNull();
    const agent = await connect(tenant.keys.test);
    try {
      const next = expectOk(await call(agent, 'wait_for_call', { line_id: line.id, timeout_seconds: 5 }));
      expect(next).toMatchObject({ timed_out: false, call: { id: row.id } });
      await call(agent, 'hang_up', { id: row.id });
    } finally {
      await agent.close();
    }
  });

  it('follow_call streams the call’s events as progress notifications until it ends, then answers with all of them', async () => {
    const line = await lines.create();
    const agent = await connect(tenant.keys.test);
    try {
      const placed = expectOk(await call(agent, 'place_call', { line_id: line.id, to_number: CALLEE }));
      const id = placed.call.id as string;
      const streamed: Array<Record<string, unknown>> = [];
      const onprogress = (progress: Progress) => streamed.push(JSON.parse(progress.message!) as Record<string, unknown>);
      const following = agent.callTool({ name: 'follow_call', arguments: { id, timeout_seconds: 120 } }, undefined, {
        onprogress,
        resetTimeoutOnProgress: true,
        timeout: 30_000,
      }) as Promise<Result>;
      const seen = (predicate: (event: Record<string, unknown>) => boolean, what: string) =>
        eventually(async () => (streamed.some(predicate) ? true : undefined), 20_000, what);

      // Each step waits for the notification of the one before, while the tool call is still open.
      await seen((e) => e.type === 'status' && e.status === 'in_progress', 'the answer, notified');
      await sim.calls.say(id, 'Hello, who is this?');
      await seen((e) => e.type === 'transcript' && e.text === 'Hello, who is this?', 'the sentence, notified');
      await sim.calls.hangUp(id);
      const result = expectOk(await following);

      expect(result).toMatchObject({ ended: true, timed_out: false, call: { id, status: 'completed', end_cause: 'caller_hangup' } });
      expect(result.events).toEqual(streamed.filter((e) => e.type !== 'keepalive'));
      expect(result.events).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'status', status: 'in_progress' }),
          expect.objectContaining({ type: 'transcript', role: 'user', text: 'Hello, who is this?' }),
          expect.objectContaining({ type: 'status', status: 'completed', end_cause: 'caller_hangup' }),
        ]),
      );

      // An ended call answers at once, without a progress token; another tenant's call is not found.
      const again = expectOk(await call(agent, 'follow_call', { id }));
      expect(again).toMatchObject({ ended: true, timed_out: false, call: { status: 'completed' } });
      const stranger = await connect((await createTenant(h.db)).keys.test);
      expect(refusalCode(await call(stranger, 'follow_call', { id }))).toBe('call_not_found');
      await stranger.close();
    } finally {
      await agent.close();
    }
  });

  it('follow_call with until "answered" returns once an outbound call is answered, so the agent can speak at once', async () => {
    const line = await lines.create();
    const agent = await connect(tenant.keys.test);
    try {
      const ringing = '+14155552694';
      await sim.calls.setOutcome(ringing, 'answer', 1_500);
      const id = expectOk(await call(agent, 'place_call', { line_id: line.id, to_number: ringing })).call.id as string;
      const answered = expectOk(await call(agent, 'follow_call', { id, until: 'answered', timeout_seconds: 30 }));
      expect(answered).toMatchObject({ answered: true, ended: false, timed_out: false, call: { id, status: 'in_progress' } });
      expect(expectOk(await call(agent, 'speak', { id, text: 'Hello, this is Ava.' }))).toMatchObject({ spoke: true });

      // A destination that never answers: the wait ends with the call, unanswered.
      await calls.hangUp(id);
      const busy = '+14155552695';
      await sim.calls.setOutcome(busy, 'busy', 500);
      const other = expectOk(await call(agent, 'place_call', { line_id: line.id, to_number: busy })).call.id as string;
      expect(expectOk(await call(agent, 'follow_call', { id: other, until: 'answered' }))).toMatchObject({
        answered: false,
        ended: true,
        timed_out: false,
        call: { status: 'busy' },
      });
      expect(refusalCode(await call(agent, 'follow_call', { id: other, until: 'later' }))).toBe('validation_error');
    } finally {
      await agent.close();
    }
  });

  it('a client that accepts only application/json is answered in JSON (tools/list), with the tools’ metadata', async () => {
    const headers = { accept: 'application/json' };
    const list = await h.request('POST', '/mcp', {
      key: tenant.keys.test,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers,
    });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/application\/json/);
    const getCall = (list.body.result.tools as Array<Record<string, unknown>>).find((t) => t.name === 'get_call');
    expect(getCall).toMatchObject({
      title: 'Get a call and its transcript',
      annotations: { readOnlyHint: true },
      outputSchema: { type: 'object', required: ['call'] },
      inputSchema: { properties: { id: { description: expect.stringMatching(/call's id/) } } },
    });
  });

  it('contact-list tools: an agent uploads a CSV list, reads and lists it, and creates a campaign from it; a list with problems names its rows (issue 31)', async () => {
    const line = await lines.create();
    const agent = await connect(tenant.keys.test);
    try {
      const offered = (await agent.listTools()).tools;
      const upload = offered.find((t) => t.name === 'upload_contact_list')!;
      expect(upload.inputSchema.required).toEqual(['csv']);
      expect(upload.description).toMatch(/request limit \(MAX_BODY_BYTES/);
      expect(offered.map((t) => t.name)).toEqual(expect.arrayContaining(['list_contact_lists', 'get_contact_list']));

      const ada = `+1415557${Math.floor(1000 + Math.random() * 8999)}`;
      const csv = `phone_number,first_name,metadata.ref\n${ada},"Ada, L.",r-1\nnope,Bob,r-2\n`;
      const idempotency_key = `list-${line.id}`;
      const list = expectOk(await call(agent, 'upload_contact_list', { csv, idempotency_key })).contact_list;
      expect(list).toMatchObject({
        rows: 2,
        columns: ['phone_number', 'first_name', 'metadata.ref'],
        skipped: { invalid_number: 1, duplicate_number: 0 },
      });
      // Retried with its idempotency_key: the same list.
      expect(expectOk(await call(agent, 'upload_contact_list', { csv, idempotency_key })).contact_list.id).toBe(list.id);
      expect(expectOk(await call(agent, 'get_contact_list', { id: list.id })).contact_list).toEqual(list);
      expect(expectOk(await call(agent, 'list_contact_lists', { limit: 100 })).contact_lists.map((l: { id: string }) => l.id)).toContain(
        list.id,
      );

      const campaign = expectOk(
        await call(agent, 'create_campaign', {
          line_ids: [line.id],
          contact_list_id: list.id,
          start_at: new Date(Date.now() + 86_400_000).toISOString(),
        }),
      ).campaign;
      expect(campaign.progress).toMatchObject({ total: 2, pending: 1, skipped: 1 });
      const { results } = expectOk(await call(agent, 'get_campaign_results', { id: campaign.id }));
      expect(results).toMatchObject([
        { row: 1, to_number: ada, variables: { first_name: 'Ada, L.' }, metadata: { ref: 'r-1' } },
        { row: 2, to_number: 'nope', skip_reason: 'invalid_number' },
      ]);
      expect(expectOk(await call(agent, 'cancel_campaign', { id: campaign.id })).campaign.status).toBe('cancelled');

      // The upload's own refusals, as the API gives them: each row and column at fault.
      const refused = await call(agent, 'upload_contact_list', { csv: 'phone_number,first_name\n,Ada\n+14155550100\n' });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content[0] as { text: string }).text).error).toMatchObject({
        code: 'validation_error',
        details: [{ field: 'rows.1.phone_number' }, { field: 'rows.2' }],
      });
      expect(refusalCode(await call(agent, 'get_contact_list', { id: campaign.id }))).toBe('not_found');
      // Another tenant's agent does not see it.
      const stranger = await connect((await createTenant(h.db)).keys.test);
      expect(refusalCode(await call(stranger, 'get_contact_list', { id: list.id }))).toBe('not_found');
      expect(expectOk(await call(stranger, 'list_contact_lists')).contact_lists).toEqual([]);
      await stranger.close();
      // The MCP request's own body limit bounds the file: past it the request is refused before any tool runs.
      const tooLong = `phone_number\n${'+14155550100\n'.repeat(Math.ceil((1024 * 1024) / 13) + 1)}`;
      await expect(call(agent, 'upload_contact_list', { csv: tooLong })).rejects.toThrow(/413|payload_too_large|exceeds/i);
    } finally {
      await agent.close();
    }
  });

  it('campaign tools: an agent creates a campaign, follows its progress and results, and pauses, resumes and cancels another (issue 31)', async () => {
    const line = await lines.create();
    const [busy, unanswered] = [`+1415558${Math.floor(1000 + Math.random() * 8999)}`, `+1415559${Math.floor(1000 + Math.random() * 8999)}`];
    await sim.calls.setOutcome(busy, 'busy');
    await sim.calls.setOutcome(unanswered, 'no_answer');
    const agent = await connect(tenant.keys.test);
    try {
      const offered = (await agent.listTools()).tools;
      const create = offered.find((t) => t.name === 'create_campaign')!;
      expect(create).toMatchObject({ title: 'Create a calling campaign', annotations: { openWorldHint: true } });
      // `contacts` or an uploaded list's `contact_list_id`: the API names the one missing.
      expect(create.inputSchema.required).toEqual(['line_ids']);
      expect(Object.keys(create.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['contacts', 'contact_list_id']));
      expect(offered.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          'list_campaigns',
          'get_campaign',
          'get_campaign_results',
          'pause_campaign',
          'resume_campaign',
          'cancel_campaign',
        ]),
      );

      const request = {
        name: 'Agent reminders',
        line_ids: [line.id],
        contacts: [{ to_number: busy }, { to_number: unanswered, metadata: { ref: 'b' } }, { to_number: 'nope' }],
        idempotency_key: `campaign-${line.id}`,
      };
      const created = expectOk(await call(agent, 'create_campaign', request)).campaign;
      expect(created).toMatchObject({ name: 'Agent reminders', line_ids: [line.id], progress: { total: 3, skipped: 1 } });
      // Retried with its idempotency_key (a timeout, a lost answer): the same campaign, not a second one.
      expect(expectOk(await call(agent, 'create_campaign', request)).campaign.id).toBe(created.id);

      const ended = await eventually(async () => {
        const got = expectOk(await call(agent, 'get_campaign', { id: created.id })).campaign;
        return got.status === 'completed' ? got : undefined;
      }, 60_000);
      expect(ended.progress).toMatchObject({ total: 3, done: 3, busy: 1, no_answer: 1, skipped: 1 });
      const { results } = expectOk(await call(agent, 'get_campaign_results', { id: created.id, limit: 10 }));
      expect(
        results.map((r: { to_number: string; outcome: string; skip_reason: string | null }) => [r.to_number, r.outcome, r.skip_reason]),
      ).toEqual([
        [busy, 'busy', null],
        [unanswered, 'no_answer', null],
        ['nope', 'skipped', 'invalid_number'],
      ]);
      expect(results[1].metadata).toEqual({ ref: 'b' });
      expect(expectOk(await call(agent, 'get_call', { id: results[0].call_ids[0] })).call.to_number).toBe(busy);
      const listed = expectOk(await call(agent, 'list_campaigns', { limit: 100 })).campaigns.map((c: { id: string }) => c.id);
      expect(listed).toContain(created.id);

      // Another, starting tomorrow: paused, resumed, cancelled; then it has ended.
      const later = expectOk(
        await call(agent, 'create_campaign', {
          line_ids: [line.id],
          contacts: [{ to_number: busy }],
          start_at: new Date(Date.now() + 86_400_000).toISOString(),
        }),
      ).campaign;
      expect(expectOk(await call(agent, 'pause_campaign', { id: later.id })).campaign.status).toBe('paused');
      expect(expectOk(await call(agent, 'resume_campaign', { id: later.id })).campaign.status).toBe('scheduled');
      expect(expectOk(await call(agent, 'cancel_campaign', { id: later.id })).campaign).toMatchObject({
        status: 'cancelled',
        progress: { cancelled: 1 },
      });
      expect(refusalCode(await call(agent, 'resume_campaign', { id: later.id }))).toBe('campaign_ended');

      // A key bound to another line is refused the campaign as that line's calls; another tenant does not see it.
      const other = await lines.create();
      const bound = (await agentKeys.create({ name: 'other line', permissions: 'full', line_id: other.id })).body.key.plaintext_key;
      const boundAgent = await connect(bound);
      expect(refusalCode(await call(boundAgent, 'get_campaign', { id: created.id }))).toBe('agent_scope_error');
      expect(expectOk(await call(boundAgent, 'list_campaigns')).campaigns).toEqual([]);
      await boundAgent.close();
      const stranger = await connect((await createTenant(h.db)).keys.test);
      expect(refusalCode(await call(stranger, 'get_campaign_results', { id: created.id }))).toBe('not_found');
      expect(refusalCode(await call(stranger, 'pause_campaign', { id: later.id }))).toBe('not_found');
      await stranger.close();
    } finally {
      await agent.close();
    }
  });
});
