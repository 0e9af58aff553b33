import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createSwitchboardClient, SwitchboardApiError } from '../../sdk/client';
import { webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { useSuite } from '../support/suite';

const HONOLULU = '+18085552681';
const DALLAS = '+12145552681';
const LOS_ANGELES = '+14155552681';
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri'];

/**
 * Calling hours on every outbound call (issue 31 item 1), through the public API with the instant
 * calling hours are judged at set by the test (test/support/harness.ts `clock.callingHoursAt`).
 */
describe('calling hours', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant } = ctx;
  const { lines, calls } = customer(ctx, { line: () => webhookLine({ webhook_url: ctx.receiver.url }), untilMs: 30_000 });
  afterEach(() => h.clock.callingHoursAt(null));

  const settings = (body: unknown) => h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body });
  /** What a refused call left behind on its line: no call, nothing held. */
  const traces = async (lineId: string) => ({
    calls: await h.db('calls').where({ line_id: lineId }).count('* as n').first(),
    holds: await h
      .db('spend_holds')
      .where({ workspace_id: tenant.workspaceId })
      .where('reference', 'like', 'call:%')
      .count('* as n')
      .first(),
  });

  it('refuses a call before 8:00 at the callee (Honolulu) with outside_calling_hours and when the window opens, nothing placed; at 8:00 the same request is placed', async () => {
    const line = await lines.create();
    const before = await traces(line.id);
    h.clock.callingHoursAt(new Date('2026-06-03T17:30:00Z')); // 07:30 in Honolulu
    // With an Idempotency-Key: the refusal is not kept for it (a retry once the window opens is a new attempt).
    const place = () =>
      h.request('POST', '/api/v1/calls', {
        key: tenant.keys.test,
        body: { line_id: line.id, to_number: HONOLULU },
        headers: { 'idempotency-key': `hours-${line.id}` },
      });
    const refused = await place();
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: {
        code: 'outside_calling_hours',
        message: expect.stringContaining('2026-06-03T18:00:00.000Z'),
        details: [
          { field: 'next_open_at', message: '2026-06-03T18:00:00.000Z' },
          { field: 'zone', message: 'Pacific/Honolulu' },
          { field: 'rule', message: 'us_federal' },
        ],
      },
    });
    expect(await traces(line.id)).toEqual(before);

    h.clock.callingHoursAt(new Date('2026-06-03T18:00:00Z'));
    const placed = await place();
    expect(placed.status).toBe(201);
    expect(placed.headers.get('idempotent-replayed')).toBeNull();
    await calls.hangUp(placed.body.call.id);
  });

  it('applies the state rule on top (Texas: not before noon on Sundays), on conversation calls too', async () => {
    const line = await lines.create();
    h.clock.callingHoursAt(new Date('2026-06-07T16:30:00Z')); // Sunday 11:30 in Dallas
    const refused = await calls.placeConversation({ line_id: line.id, to_number: DALLAS, topic: 'the delivery' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('outside_calling_hours');
    expect(refused.body.error.details).toEqual([
      { field: 'next_open_at', message: '2026-06-07T17:00:00.000Z' },
      { field: 'zone', message: 'America/Chicago' },
      { field: 'rule', message: 'us_state_tx' },
    ]);
  });

  it('refuses permanently blocked destinations first: a fraud-blocked number at night is m3_fraud_block, not a wait', async () => {
    const line = await lines.create();
    h.clock.callingHoursAt(new Date('2026-06-03T09:00:00Z')); // night across North America
    const refused = await calls.place(line.id, '+19005550123');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('m3_fraud_block');
  });

  it("a workspace narrows its environment's window through the settings; a widening is refused 422 naming the field", async () => {
    const line = await lines.create();
    const narrowed = await settings({ calling_window: { start: '10:00', end: '16:00', days: ['fri', 'mon', 'wed', 'thu', 'tue'] } });
    expect(narrowed.status).toBe(200);
    // Kept in calendar order, read back as set.
    expect(narrowed.body.calling_window).toEqual({ start: '10:00', end: '16:00', days: WEEKDAYS });
    expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body.calling_window).toEqual({
      start: '10:00',
      end: '16:00',
      days: WEEKDAYS,
    });
    const [event] = await h.db('compliance_events').where({ workspace_id: tenant.workspaceId, event_type: 'settings_changed' });
    expect(event.metadata.changed.calling_window).toEqual({ from: null, to: { start: '10:00', end: '16:00', days: WEEKDAYS } });

    h.clock.callingHoursAt(new Date('2026-06-03T16:30:00Z')); // Wednesday 09:30 in Los Angeles: legal, not the workspace's
    const refused = await calls.place(line.id, LOS_ANGELES);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual([
      { field: 'next_open_at', message: '2026-06-03T17:00:00.000Z' },
      { field: 'zone', message: 'America/Los_Angeles' },
      { field: 'rule', message: 'workspace' },
    ]);

    for (const [window, field] of [
      [{ start: '07:00', end: '16:00', days: WEEKDAYS }, 'calling_window.start'],
      [{ start: '10:00', end: '22:00', days: WEEKDAYS }, 'calling_window.end'],
      [{ start: '16:00', end: '10:00', days: WEEKDAYS }, 'calling_window.end'],
    ] as const) {
      const widened = await settings({ calling_window: window });
      expect(widened.status).toBe(422);
      expect(widened.body.error.code).toBe('validation_error');
      expect(widened.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
      if (window.end !== '10:00') expect(widened.body.error.details[0].message).toContain('can only narrow the legal 08:00–21:00');
    }
    expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body.calling_window.start).toBe('10:00');

    // Null restores the legal window alone.
    expect((await settings({ calling_window: null })).body.calling_window).toBeNull();
    const placed = await calls.place(line.id, LOS_ANGELES);
    expect(placed.status).toBe(201);
    await calls.hangUp(placed.body.call.id);
  });

  it('the typed client reads when the window opens; an agent over MCP is told the same refusal', async () => {
    const line = await lines.create();
    h.clock.callingHoursAt(new Date('2026-06-03T17:30:00Z')); // 07:30 in Honolulu
    const switchboard = createSwitchboardClient({ baseUrl: h.apiUrl, apiKey: tenant.keys.test });
    const refused = await switchboard
      .POST('/api/v1/calls', { body: { line_id: line.id, to_number: HONOLULU } })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SwitchboardApiError);
    expect(refused).toMatchObject({ status: 403, code: 'outside_calling_hours' });
    expect((refused as SwitchboardApiError).nextOpenAt).toEqual(new Date('2026-06-03T18:00:00Z'));

    const agent = new Client({ name: 'calling-hours-test', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', h.apiUrl), {
        requestInit: { headers: { Authorization: `Bearer ${tenant.keys.test}` } },
      }),
    );
    try {
      const placeCall = (await agent.listTools()).tools.find((tool) => tool.name === 'place_call')!;
      expect(placeCall.description).toContain('outside_calling_hours');
      const result = (await agent.callTool({ name: 'place_call', arguments: { line_id: line.id, to_number: HONOLULU } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({
        error: {
          code: 'outside_calling_hours',
          details: expect.arrayContaining([{ field: 'next_open_at', message: '2026-06-03T18:00:00.000Z' }]),
        },
      });
    } finally {
      await agent.close();
    }
    expect(await h.db('calls').where({ line_id: line.id })).toHaveLength(0);
  });

  it('refuses with calling_window_never_opens when the workspace’s window and the callee’s rules never overlap (evenings, Florida)', async () => {
    const line = await lines.create();
    expect((await settings({ calling_window: { start: '20:00', end: '21:00', days: WEEKDAYS } })).status).toBe(200);
    const refused = await calls.place(line.id, '+13055552681');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'calling_window_never_opens',
      details: [
        { field: 'zone', message: 'America/New_York' },
        { field: 'rule', message: 'workspace' },
      ],
    });
    expect(await h.db('calls').where({ line_id: line.id })).toHaveLength(0);
  });

  it("one environment's window does not narrow the other's", async () => {
    expect((await settings({ calling_window: { start: '12:00', end: '13:00', days: ['sun'] } })).status).toBe(200);
    const live = await h.request('GET', '/api/v1/settings', { key: tenant.keys.live });
    expect(live.body.calling_window).toBeNull();
  });
});
