import crypto from 'node:crypto';
import { publishDepsOf, publishEvent } from '../../src/domain/webhooks/publish';
import { verifySignature } from '../../src/domain/webhooks/signature';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { wakeAutoCharge } from '../../src/domain/billing/autoCharge';
import { eventually } from '../support/harness';
import { PortalClient, signUpOperator, OPERATOR_PASSWORD, createLineInPortal, mailedInvitationToken } from '../support/portalClient';
import { spendOnCalls } from '../support/ledger';
import { startStripeStub, stripeStubOverrides, type StripeStub } from '../support/stripeStub';
import { useSuite } from '../support/suite';

const PASSWORD = OPERATOR_PASSWORD;
const JSON_ACCEPT = { accept: 'application/json' };

/** Issue 17's operator actions over HTTP: redeliver a webhook, save a card, members gated by role. */
describe('portal deliveries, card and members', () => {
  const { h, receiver } = useSuite({ portal: true, worker: true, receiver: true });

  const operator = () => signUpOperator(h, 'ops');

  /** A line whose webhooks go to the receiver (its secret as shown once), and one failed `test` delivery of it. */
  async function failedDelivery(owner: { client: PortalClient; userId: string }) {
    const { lineId, page: created } = await createLineInPortal(owner.client, { name: 'Hooks', mode: 'webhook', webhook_url: receiver.url });
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
    const page = await owner.client.get(`/portal/deliveries/${deliveryId}?env=test&started=2`);
    expect(page.text).not.toContain('id="redelivery-started"');
    // While the started attempt has not finished (here: not made yet), the page says it is on its way.
    expect((await owner.client.get(`/portal/deliveries/${deliveryId}?env=test&started=3`)).text).toContain('id="redelivery-started"');
    expect(page.text).toMatch(/data-attempt="1" data-status="failed"/);
    expect(page.text).toMatch(/data-attempt="2" data-status="success"/);
    // One attempt, no retry series: the workflow of the redelivery finishes (its attempt row is written just before it does).
    const status = await eventually(
      async () => {
        const run = await h.temporal.workflow.getHandle(`webhook-redeliver:${eventId}:2`).describe();
        return run.status.name === 'RUNNING' ? undefined : run.status.name;
      },
      20_000,
      'the redelivery workflow to finish',
    );
    expect(status).toBe('COMPLETED');
  });

  it('refuses while the retry series runs; afterwards one attempt and no new series, even for an event type that retries', async () => {
    const owner = await operator();
    const { lineId } = await failedDelivery(owner);
    const workspaceId = owner.workspaceId;
    receiver.script({ status: 500, body: 'down' });
    const deps = publishDepsOf({ config: h.config, db: h.db, temporal: h.temporal, now: () => new Date() });
    const { eventId } = await publishEvent(deps, {
      workspaceId,
      environment: 'test',
      lineId,
      type: 'sms_received',
      target: 'webhook',
      payload: { from: '+14155550100', text: 'hi' },
      now: new Date(),
    });
    const first = await h.db('webhook_deliveries').where({ event_id: eventId, attempt: 1 }).first();
    expect(first.status).toBe('failed');
    // Attempt 1 failed, so its retry workflow waits out the backoff: a redelivery now would race it.
    const series = h.temporal.workflow.getHandle(`webhook-event:${eventId}`);
    expect((await series.describe()).status.name).toBe('RUNNING');
    const busy = await redeliver(owner.client, first.id);
    expect(busy.status).toBe(409);
    expect(busy.text).toContain('delivery_in_progress');
    await series.terminate('the test ends the retry series');

    receiver.script({ status: 500, body: 'still down' });
    expect((await redeliver(owner.client, first.id)).status).toBe(303);
    const run = h.temporal.workflow.getHandle(`webhook-redeliver:${eventId}:2`);
    // The attempt fails and the workflow ends there (a retry would sleep 5 minutes first).
    await expect(run.result()).resolves.toMatchObject({ status: 'failed', attempts: 2 });
    const rows = await h.db('webhook_deliveries').where({ event_id: eventId }).orderBy('attempt');
    expect(rows.map((row) => [row.attempt, row.status, row.http_status])).toEqual([
      [1, 'failed', 500],
      [2, 'failed', 500],
    ]);
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
      const token = await mailedInvitationToken(h.mail, email);
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
    const card = await plain.post('/portal/billing/card', {
      csrf_token: PortalClient.csrfOf(detail),
      env: 'test',
      number: '4242424242424242',
      exp: '12/39',
    });
    expect(card.status).toBe(403);
    expect(await h.db('payment_methods').where({ workspace_id: boss.workspaceId })).toHaveLength(0);
  });

  it('adds and replaces the card through the processor: brand, last 4 and expiry shown, never the number', async () => {
    const owner = await operator();
    const empty = await owner.client.get('/portal/billing?env=test');
    expect(empty.text).toContain('No card on file in the test environment.');
    expect(empty.text).toContain('id="card-number"');

    const saveCard = (number: string, exp: string, headers: Record<string, string> = {}) =>
      owner.client.submit('/portal/billing?env=test', '/portal/billing/card', { env: 'test', number, exp }, headers);
    const added = await saveCard('4242 4242 4242 4242', '12/39');
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toBe('/portal/billing?env=test&card_saved=4242');
    const page = (await owner.client.get('/portal/billing?env=test&card_saved=4242')).text;
    expect(page).toMatch(/Default card: <strong>visa<\/strong> ending in <span class="mono">4242<\/span> \(expires\s+12\/2039\)/);
    expect(page).toContain('id="card-saved"');
    expect(page).not.toContain('4242424242424242');
    const [row] = await h.db('payment_methods').where({ user_id: owner.userId });
    expect(row).toMatchObject({ environment: 'test', brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2039, is_default: true });
    expect(row.processor_token).toMatch(/^simcard_/);
    expect((await owner.client.get('/portal/billing?env=live')).text).toContain('No card on file in the live environment.');

    // Declined and malformed entries: refused, nothing saved, the number not shown back.
    const declined = await saveCard('4000000000000002', '12/39');
    expect(declined.status).toBe(402);
    expect(declined.text).toContain('card_declined');
    expect(declined.text).not.toContain('4000000000000002');
    expect((await saveCard('4242424242424242', '13-39')).status).toBe(422);
    const json = await saveCard('5555555555554444', '01/40', JSON_ACCEPT);
    expect(json.status).toBe(201);
    expect(JSON.parse(json.text)).toMatchObject({ brand: 'mastercard', last4: '4444', exp_month: 1, exp_year: 2040, is_default: true });
    expect((await owner.client.get('/portal/billing?env=test')).text).toMatch(/mastercard<\/strong> ending in <span class="mono">4444/);
    expect(await h.db('payment_methods').where({ user_id: owner.userId }).orderBy('created_at').pluck('is_default')).toEqual([false, true]);

    const noToken = await owner.client.post('/portal/billing/card', { env: 'test', number: '4242424242424242', exp: '12/39' });
    expect(noToken.status).toBe(403);
    expect(await h.db('payment_methods').where({ user_id: owner.userId })).toHaveLength(2);
  });

  it('a card saved in the portal wakes an auto-charge stopped by a decline: the new card is charged now, not a day later', async () => {
    const owner = await operator();
    const tenant = { workspaceId: owner.workspaceId, environment: 'test' as const };
    const saveCard = (number: string) =>
      owner.client.submit('/portal/billing?env=test', '/portal/billing/card', { env: 'test', number, exp: '12/39' });
    const attempts = () => h.db('payment_attempts').where({ workspace_id: owner.workspaceId, environment: 'test' }).orderBy('created_at');
    expect((await saveCard('4242424242424242')).status).toBe(303);
    await h.db('billing_accounts').where({ workspace_id: owner.workspaceId, environment: 'test' }).update({ auto_recharge_enabled: true });
    const balance = await h.db('billing_accounts').where({ workspace_id: owner.workspaceId, environment: 'test' }).first();
    await spendOnCalls(h.db, tenant, Number(balance.balance_cents) - 100);
    h.simulator.testProcessor.setFault({ mode: 'decline', declineCode: 'insufficient_funds' });
    await wakeAutoCharge(h.temporal, h.config.taskQueue, tenant);
    await eventually(async () => ((await attempts()).some((a) => a.status === 'declined') ? true : undefined));
    h.simulator.testProcessor.setFault({ mode: 'normal' });

    expect((await saveCard('5555555555554444')).status).toBe(303);
    const after = await eventually(async () => {
      const rows = await attempts();
      return rows.some((a) => a.status === 'succeeded') ? rows : undefined;
    });
    expect(after.map((a) => a.status)).toEqual(['declined', 'succeeded']);
    const card = await h.db('payment_methods').where({ workspace_id: owner.workspaceId, environment: 'test', is_default: true }).first();
    expect(after[1].payment_method_id).toBe(card.id);
  });
});

/** Where the environment charges through Stripe, the portal takes only a PaymentMethod saved on Stripe: never a card number. */
describe('portal card with Stripe', () => {
  let stub: StripeStub;
  beforeAll(async () => {
    stub = await startStripeStub();
  });
  const { h } = useSuite({ portal: true, overrides: stripeStubOverrides(() => stub) });
  afterAll(async () => stub.close());

  it('saves a pm_… id read back from Stripe, refuses a card number without showing it back', async () => {
    const { client, userId } = await signUpOperator(h, 'ops-stripe');
    const page = await client.get('/portal/billing?env=test');
    expect(page.text).toContain('id="card-pm"');
    expect(page.text).not.toContain('id="card-number"');
    expect(page.text).not.toMatch(/<script[^>]+src="https?:/);

    const save = (form: Record<string, string>) =>
      client.submit('/portal/billing?env=test', '/portal/billing/card', { env: 'test', ...form });
    const typedCardNumbers: Array<Record<string, string>> = [
      { payment_method: '4242 4242 4242 4242' },
      { number: '4242424242424242', exp: '12/39' },
    ];
    for (const form of typedCardNumbers) {
      const refused = await save(form);
      expect(refused.status).toBe(422);
      expect(refused.text).not.toMatch(/4242 ?4242 ?4242 ?4242/);
    }
    expect(await h.db('payment_methods').where({ user_id: userId })).toHaveLength(0);

    // A card of the workspace's own Stripe Customer (its metadata names the workspace, L18).
    const workspaceId = (await h.db('users').where({ id: userId }).first()).workspace_id as string;
    const own = stub.test.addCustomerCard({ switchboard_workspace_id: workspaceId });
    expect((await save({ payment_method: own })).status).toBe(303);
    expect((await client.get('/portal/billing?env=test')).text).toMatch(/visa<\/strong> ending in <span class="mono">4242/);
    const [row] = await h.db('payment_methods').where({ user_id: userId });
    expect(row).toMatchObject({ environment: 'test', brand: 'visa', last4: '4242', is_default: true });
    expect(row.processor_token).toMatch(new RegExp(`^cus_[^/]+/${own}$`));

    // The same Stripe card cannot be claimed by a second workspace.
    const { client: other, userId: otherUserId } = await signUpOperator(h, 'ops-stripe2');
    const claimed = await other.submit('/portal/billing?env=test', '/portal/billing/card', { env: 'test', payment_method: own });
    expect(claimed.status).toBe(422);
    expect(claimed.text).toContain('Stripe Customer is not this workspace');
    // Other suites save the stub's same card for their own workspaces: only this claimer's rows count.
    expect(await h.db('payment_methods').where({ user_id: otherUserId })).toHaveLength(0);
  });

  it('a workspace saves only a PaymentMethod of its own Stripe Customer: another’s, even one nobody saved yet, is refused (L18)', async () => {
    const signUp = async (tag: string) => {
      const { client, userId } = await signUpOperator(h, `ops-stripe-${tag}`);
      const workspaceId = (await h.db('users').where({ id: userId }).first()).workspace_id as string;
      const save = (pm: string) => client.submit('/portal/billing?env=test', '/portal/billing/card', { env: 'test', payment_method: pm });
      return { userId, workspaceId, save };
    };
    const owner = await signUp('owner');
    const claimer = await signUp('claimer');
    // The owner's card, attached to the owner's Customer on the operator's Stripe account; the owner has not saved it yet.
    const ownersCard = stub.test.addCustomerCard({ switchboard_workspace_id: owner.workspaceId });
    const claimed = await claimer.save(ownersCard);
    expect(claimed.status).toBe(422);
    expect(claimed.text).toContain('Stripe Customer is not this workspace');
    expect(claimed.text).not.toContain(owner.workspaceId);
    // A Customer that names no workspace (the operator's other products) is nobody's to claim.
    expect((await claimer.save(stub.test.addCustomerCard({ product: 'other' }))).status).toBe(422);
    expect((await claimer.save('pm_card_visa')).status).toBe(422);
    expect(await h.db('payment_methods').where({ user_id: claimer.userId })).toHaveLength(0);
    // The owner still saves it.
    expect((await owner.save(ownersCard)).status).toBe(303);
    expect(await h.db('payment_methods').where({ user_id: owner.userId })).toHaveLength(1);
  });
});
