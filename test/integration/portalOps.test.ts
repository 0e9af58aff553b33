import crypto from 'node:crypto';
import { verifySignature } from '../../src/domain/webhooks/signature';
import { mintUserKey } from '../../src/domain/workspaces/service';
import { eventually, startHarness, type Harness } from '../support/harness';
import { PortalClient } from '../support/portalClient';
import { startReceiver, type Receiver } from '../support/receiver';

const PASSWORD = 'correct horse battery';
const JSON_ACCEPT = { accept: 'application/json' };

/** Issue 17's operator actions over HTTP: redeliver a webhook, save a card, members gated by role. */
describe('portal deliveries, card and members', () => {
  let h: Harness;
  let receiver: Receiver;
  beforeAll(async () => {
    h = await startHarness();
    await h.startWorker();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await h.close();
  });
  beforeEach(async () => {
    await h.db('rate_limit_windows').where('bucket', 'like', 'portal.%').del();
  });

  async function operator(): Promise<{ client: PortalClient; userId: string; workspaceId: string }> {
    const client = new PortalClient(h.apiUrl);
    const email = `ops+${crypto.randomBytes(4).toString('hex')}@example.test`;
    const res = await client.submit('/portal/signup', '/portal/signup', { email, password: PASSWORD }, JSON_ACCEPT);
    expect(res.status).toBe(201);
    const { user_id: userId, workspace_id: workspaceId } = JSON.parse(res.text);
    return { client, userId, workspaceId };
  }

  /** A line whose webhooks go to the receiver (its secret as shown once), and one failed `test` delivery of it. */
  async function failedDelivery(owner: { client: PortalClient; userId: string }) {
    const created = await owner.client.submit('/portal/lines', '/portal/lines', {
      env: 'test',
      name: 'Hooks',
      mode: 'webhook',
      webhook_url: receiver.url,
    });
    expect(created.status).toBe(201);
    const lineId = /data-line-id="([^"]+)"/.exec(created.text)![1];
    const secret = /<output id="webhook-secret" class="mono">([^<]+)<\/output>/.exec(created.text)![1];
    const user = (await h.db('users').where({ id: owner.userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'k' })).plaintext;
    receiver.script({ status: 500, body: 'down' });
    const test = await h.request('POST', '/api/v1/webhooks/test', { key, body: { line_id: lineId } });
    expect(test.body.delivery).toMatchObject({ status: 'failed' });
    const delivery = await h.db('webhook_deliveries').where({ line_id: lineId }).first();
    return { lineId, secret, deliveryId: delivery.id as string, eventId: delivery.event_id as string };
  }

  const redeliver = (client: PortalClient, deliveryId: string, form: Record<string, string> = {}) =>
    client.submit(`/portal/deliveries/${deliveryId}`, `/portal/deliveries/${deliveryId}/redeliver`, { env: 'test', ...form });

  it('redeliver sends the event again, signed, as a new attempt shown on the delivery page', async () => {
    const owner = await operator();
    const { secret, deliveryId, eventId } = await failedDelivery(owner);
    const before = receiver.requests.length;

    const res = await redeliver(owner.client, deliveryId);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/portal/deliveries/${deliveryId}?env=test&started=2`);

    const [request] = (await receiver.waitForRequests(before + 1)).slice(before);
    expect(request.body).toMatchObject({ event: 'test', event_id: eventId });
    expect(request.headers['x-service-delivery-attempt']).toBe('2');
    expect(verifySignature({ secret, headers: request.headers as Record<string, string>, rawBody: request.rawBody })).toEqual({
      valid: true,
    });
    const attempts = await eventually(async () => {
      const rows = await h.db('webhook_deliveries').where({ event_id: eventId }).orderBy('attempt');
      return rows.length === 2 && rows[1].status !== 'pending' ? rows : undefined;
    });
    expect(attempts.map((row) => [row.attempt, row.status])).toEqual([
      [1, 'failed'],
      [2, 'success'],
    ]);
    expect(request.headers['x-service-delivery-id']).toBe(attempts[1].id);
    const page = await owner.client.get(`/portal/deliveries/${deliveryId}?env=test`);
    expect(page.text).toMatch(/data-attempt="1" data-status="failed"/);
    expect(page.text).toMatch(/data-attempt="2" data-status="success"/);
    // One attempt, no retry series: the workflow of the redelivery has finished.
    const run = await h.temporal.workflow.getHandle(`webhook-redeliver:${eventId}:2`).describe();
    expect(run.status.name).toBe('COMPLETED');
  });

  it('refuses a redelivery to a destination the egress policy refuses, without an attempt', async () => {
    const owner = await operator();
    const { lineId, deliveryId, eventId } = await failedDelivery(owner);
    // Saved before the rule existed, or pointed at the metadata service since: the check runs again now.
    await h.db('lines').where({ id: lineId }).update({ webhook_url: 'http://169.254.169.254/latest/meta-data' });
    const res = await redeliver(owner.client, deliveryId, {});
    expect(res.status).toBe(422);
    expect(res.text).toContain('validation_error');
    expect(res.text).toContain('169.254.169.254');
    const json = await owner.client.submit(
      `/portal/deliveries/${deliveryId}`,
      `/portal/deliveries/${deliveryId}/redeliver`,
      { env: 'test' },
      JSON_ACCEPT,
    );
    expect(JSON.parse(json.text).error.code).toBe('validation_error');
    expect(await h.db('webhook_deliveries').where({ event_id: eventId }).pluck('attempt')).toEqual([1]);
  });

  it("another workspace's delivery is not found, and a post without the CSRF token is refused", async () => {
    const owner = await operator();
    const { deliveryId, eventId } = await failedDelivery(owner);
    const stranger = await operator();
    expect((await stranger.client.get(`/portal/deliveries/${deliveryId}?env=test`)).status).toBe(404);
    const foreign = await stranger.client.submit('/portal/deliveries', `/portal/deliveries/${deliveryId}/redeliver`, { env: 'test' });
    expect(foreign.status).toBe(404);
    expect((await owner.client.get(`/portal/deliveries/${deliveryId}?env=live`)).status).toBe(404);
    expect((await owner.client.get('/portal/deliveries/not-a-uuid?env=test')).status).toBe(404);

    const noToken = await owner.client.post(`/portal/deliveries/${deliveryId}/redeliver`, { env: 'test' });
    expect(noToken.status).toBe(403);
    expect(await h.db('webhook_deliveries').where({ event_id: eventId }).pluck('attempt')).toEqual([1]);
  });

  it('a plain member is offered no Members link and is refused its pages, nor may redeliver; owners and admins see it', async () => {
    const boss = await operator();
    const { deliveryId, eventId } = await failedDelivery(boss);
    const joined = async (role: string) => {
      const email = `ops-${role}+${crypto.randomBytes(4).toString('hex')}@example.test`;
      const invited = await boss.client.submit('/portal/members', '/portal/members/invite', { email, role }, JSON_ACCEPT);
      expect(invited.status).toBe(201);
      const token = new URL(JSON.parse(invited.text).link).searchParams.get('token')!;
      const client = new PortalClient(h.apiUrl);
      const accepted = await client.submit(`/portal/invite?token=${token}`, '/portal/invite', { token, password: PASSWORD }, JSON_ACCEPT);
      expect(accepted.status).toBe(201);
      return client;
    };
    const membersLink = /<a href="\/portal\/members\?env=test"/;
    expect((await boss.client.get('/portal')).text).toMatch(membersLink);
    const admin = await joined('admin');
    expect((await admin.get('/portal')).text).toMatch(membersLink);
    expect((await admin.get('/portal/members')).status).toBe(200);

    const plain = await joined('member');
    const overview = await plain.get('/portal');
    expect(overview.status).toBe(200);
    expect(overview.text).not.toMatch(membersLink);
    expect((await plain.get('/portal/members')).status).toBe(403);
    const invite = await plain.post('/portal/members/invite', {
      csrf_token: PortalClient.csrfOf(overview),
      email: 'x@example.test',
      role: 'member',
    });
    expect(invite.status).toBe(403);
    // A member reads deliveries but cannot redeliver (POST /webhooks/test needs webhooks:write).
    const detail = await plain.get(`/portal/deliveries/${deliveryId}?env=test`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toContain('id="redeliver"');
    const res = await plain.post(`/portal/deliveries/${deliveryId}/redeliver`, { csrf_token: PortalClient.csrfOf(detail), env: 'test' });
    expect(res.status).toBe(403);
    expect(await h.db('webhook_deliveries').where({ event_id: eventId }).pluck('attempt')).toEqual([1]);
  });
});
