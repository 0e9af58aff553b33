import crypto from 'node:crypto';
import { CALLEE } from '../support/customer';
import { eventually } from '../support/eventually';
import {
  createLineInPortal,
  placeTestCallInPortal,
  PortalClient,
  signInMember,
  signUpOperator,
  type PortalResponse,
} from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * A call's timeline over HTTP (issue 30, item 1), from recorded facts written as the call's workflow
 * and the delivery workflow write them: only that call's deliveries show, each linked; the live
 * fragment carries the recording once it lands and stops polling once the story is settled; another
 * workspace's member gets 404 for the page and its live fragment, and a plain member reads it.
 */
describe("a call's timeline in the portal", () => {
  const { h } = useSuite({ portal: true, worker: true });

  const SECOND = 1000;

  async function recordedCall(
    workspaceId: string,
    lineId: string,
    fields: { createdAt: Date; endedAt: Date | null; status: string; recordingUrl?: string },
  ): Promise<string> {
    const id = crypto.randomUUID();
    const started = new Date(fields.createdAt.getTime() + 2 * SECOND);
    await h.db('calls').insert({
      id,
      workspace_id: workspaceId,
      environment: 'test',
      line_id: lineId,
      direction: 'outbound',
      from_number: '+14155550100',
      to_number: CALLEE,
      status: fields.status,
      mode: 'webhook',
      zone: 'A',
      created_at: fields.createdAt,
      started_at: started,
      ended_at: fields.endedAt,
      end_cause: fields.endedAt ? 'caller_hangup' : null,
      duration_sec: fields.endedAt ? Math.round((fields.endedAt.getTime() - started.getTime()) / SECOND) : null,
      recording_url: fields.recordingUrl ?? null,
      transcript: JSON.stringify([
        { role: 'user', text: 'Is anyone <there>?', timestamp: new Date(started.getTime() + SECOND).toISOString() },
      ]),
    });
    return id;
  }

  /** A `message` event of the call and its one attempt, failed as a closed port fails it. */
  async function failedMessage(workspaceId: string, lineId: string, callId: string, at: Date): Promise<string> {
    const eventId = crypto.randomUUID();
    const deliveryId = crypto.randomUUID();
    const common = { workspace_id: workspaceId, environment: 'test', line_id: lineId, call_id: callId, event_type: 'message' };
    await h.db('webhook_events').insert({ id: eventId, ...common, target: 'webhook', payload: { call_id: callId }, created_at: at });
    await h.db('webhook_deliveries').insert({
      id: deliveryId,
      event_id: eventId,
      ...common,
      url: 'http://127.0.0.1:9/hook',
      attempt: 1,
      status: 'failed',
      http_status: null,
      error_message: 'connection_error: connect ECONNREFUSED 127.0.0.1:9',
      duration_ms: 4,
      request_body: { call_id: callId },
      created_at: at,
      completed_at: at,
    });
    return deliveryId;
  }

  const failures = (page: PortalResponse) =>
    [...page.text.matchAll(/<li\s+class="timeline-entry failed"[\s\S]*?<\/li>/g)].map(([entry]) => entry);

  it("shows only the call's own deliveries, each linked, and the recording in the live part; stops polling once settled", async () => {
    const { client, workspaceId } = await signUpOperator(h, 'timeline');
    const { lineId } = await createLineInPortal(client, { name: 'Agent', mode: 'webhook', webhook_url: 'http://127.0.0.1:9/hook' });
    const now = Date.now();
    const settled = await recordedCall(workspaceId, lineId, {
      createdAt: new Date(now - 120 * SECOND),
      endedAt: new Date(now - 100 * SECOND),
      status: 'completed',
      recordingUrl: 'https://recordings.example.test/r1.wav',
    });
    const other = await recordedCall(workspaceId, lineId, {
      createdAt: new Date(now - 90 * SECOND),
      endedAt: new Date(now - 80 * SECOND),
      status: 'completed',
    });
    const own = await failedMessage(workspaceId, lineId, settled, new Date(now - 115 * SECOND));
    const foreign = await failedMessage(workspaceId, lineId, other, new Date(now - 85 * SECOND));

    const page = await client.get(`/portal/calls/${settled}?env=test`);
    expect(page.status).toBe(200);
    const [failure, ...more] = failures(page);
    expect(more).toEqual([]);
    expect(failure).toContain('Agent webhook failed: connection refused; the caller heard silence');
    expect(failure).toContain(`href="/portal/deliveries/${own}?env=test"`);
    expect(page.text).not.toContain(foreign);
    expect(page.text).toContain(`<a id="call-deliveries" href="/portal/deliveries?env=test&amp;call_id=${settled}">`);
    // What the caller said is escaped, in the timeline as in the transcript.
    expect(page.text).toContain('The caller said “Is anyone &lt;there&gt;?”');
    // Settled long ago: the live part has its recording and no trigger any more.
    const live = await client.get(`/portal/calls/${settled}/live?env=test`);
    expect(live.text).toContain(`<a id="recording" href="/portal/calls/${settled}/recording?env=test" download>`);
    expect(live.text).not.toContain('hx-trigger');

    // Just ended: still polled (call_ended and the charge follow the end), and the recording is already in the fragment.
    const justEnded = await recordedCall(workspaceId, lineId, {
      createdAt: new Date(now - 20 * SECOND),
      endedAt: new Date(),
      status: 'completed',
      recordingUrl: 'https://recordings.example.test/r2.wav',
    });
    const fresh = await client.get(`/portal/calls/${justEnded}/live?env=test`);
    expect(fresh.text).toContain(`hx-get="/portal/calls/${justEnded}/live?env=test"`);
    expect(fresh.text).toContain('id="recording"');

    // The delivery names its call.
    const delivery = await client.get(`/portal/deliveries/${own}?env=test`);
    expect(delivery.text).toContain(`<a id="delivery-call" href="/portal/calls/${settled}?env=test">`);

    // A plain member reads the story; another workspace's owner finds neither the page nor its live part.
    const member = await signInMember(h.apiUrl, h.db, workspaceId);
    expect(failures(await member.get(`/portal/calls/${settled}?env=test`))).toHaveLength(1);
    const stranger = await signUpOperator(h, 'stranger');
    for (const path of [`/portal/calls/${settled}?env=test`, `/portal/calls/${settled}/live?env=test`]) {
      const res = await stranger.client.get(path);
      expect(res.status).toBe(404);
      expect(res.text).toContain('call_not_found');
      expect(res.text).not.toContain('connection refused');
    }
    // The other environment of the same workspace does not show it either.
    expect((await client.get(`/portal/calls/${settled}?env=live`)).status).toBe(404);
  });

  it('an outbound call placed on the simulator shows when it started ringing, as its carrier reported it', async () => {
    const { client } = await signUpOperator(h, 'ringing');
    const { lineId } = await createLineInPortal(client, { name: 'Caller', mode: 'hosted', system_prompt: 'You call people.' });
    const callId = await placeTestCallInPortal(client, lineId);
    const page = await eventually(async () => {
      const res = await client.get(`/portal/calls/${callId}?env=test`);
      return res.text.includes('data-kind="answered"') ? res : undefined;
    });
    // Placed, ringing and answered, in that order, each with its recorded time (a ringing entry without one says "now").
    const entries = [...page.text.matchAll(/data-kind="(\w+)"[^>]*>\s*<span class="timeline-at">(?:<time datetime="([^"]+)")?/g)].map(
      ([, kind, at]) => ({ kind, at }),
    );
    const [placedAt, ringingAt, answeredAt] = ['placed', 'ringing', 'answered'].map((kind) => entries.find((e) => e.kind === kind)?.at);
    expect(entries.map((e) => e.kind).slice(0, 3)).toEqual(['placed', 'ringing', 'answered']);
    expect(ringingAt).toBeDefined();
    expect(Date.parse(ringingAt!)).toBeGreaterThanOrEqual(Date.parse(placedAt!));
    expect(Date.parse(ringingAt!)).toBeLessThanOrEqual(Date.parse(answeredAt!));
    expect((await h.db('calls').where({ id: callId }).first()).ringing_at.toISOString()).toBe(ringingAt);

    const hungUp = await client.post(`/portal/calls/${callId}/hangup`, {
      csrf_token: PortalClient.csrfOf(page),
      env: 'test',
      confirm: 'yes',
    });
    expect(hungUp.status).toBe(303);
  });
});
