import crypto from 'node:crypto';
import { post } from '../../src/domain/billing/ledger';
import { runCommand } from '../../src/main/cli';
import { savePaymentMethod } from '../../src/domain/billing/paymentMethods';
import { insertMessage } from '../../src/domain/messages/store';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { createTenant, eventually } from '../support/harness';
import { CALLEE } from '../support/customer';
import { PortalClient, signInMember, signUpOperator, createLineInPortal } from '../support/portalClient';
import { useSuite } from '../support/suite';

/** The overview and lines pages over HTTP: figures, roles, tenants and environments. */
describe('portal pages', () => {
  const { h, receiver } = useSuite({ portal: true, worker: true, receiver: true });

  const operator = () => signUpOperator(h, 'pages');

  const stat = (page: string, name: string) => new RegExp(`data-stat="${name}">([^<]*)<`).exec(page)?.[1];

  it('overview counts the calls of today and the failed deliveries of the last 24 hours, per environment', async () => {
    const { client, userId } = await operator();
    const { lineId } = await createLineInPortal(client, { name: 'Hooks', mode: 'webhook', webhook_url: receiver.url });

    const user = (await h.db('users').where({ id: userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'k' })).plaintext;
    receiver.script({ status: 500, body: 'down' });
    const test = await h.request('POST', '/api/v1/webhooks/test', { key, body: { line_id: lineId } });
    expect(test.body.delivery).toMatchObject({ status: 'failed' });
    const call = await h.request('POST', '/api/v1/calls', { key, body: { line_id: lineId, to_number: '+14155550123' } });
    expect(call.status).toBe(201);

    const overview = (await client.get('/portal')).text;
    expect(stat(overview, 'calls-today')).toBe('1');
    expect(stat(overview, 'failing-deliveries')).toBe('1');
    const live = (await client.get('/portal?env=live')).text;
    expect(stat(live, 'calls-today')).toBe('0');
    expect(stat(live, 'failing-deliveries')).toBe('0');
    // The fragment htmx polls carries the same figures.
    const fragment = await client.get('/portal/overview/stats?env=test');
    expect(stat(fragment.text, 'calls-today')).toBe('1');
    expect(fragment.text).not.toContain('<html');

    // The failed attempt, its request and the receiver's answer, on the deliveries page.
    const failed = await client.get('/portal/deliveries?env=test&status=failed');
    expect(failed.text.match(/data-status="failed"/g)).toHaveLength(1);
    expect(failed.text).toContain('http_500');
    expect(failed.text).toContain('down');
    expect(failed.text).toContain('&quot;event&quot;: &quot;test&quot;');
    expect((await client.get('/portal/deliveries?env=test&status=success')).text).toContain('No deliveries match.');
    expect((await client.get('/portal/deliveries?env=live')).text).toContain('No deliveries match.');
  });

  it('lists calls, shows one live until it ends, and downloads its Temporal history', async () => {
    const { client, userId } = await operator();
    const { lineId } = await createLineInPortal(client, { name: 'Calls', mode: 'webhook', webhook_url: receiver.url });
    const user = (await h.db('users').where({ id: userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'k' })).plaintext;
    const placed = await h.request('POST', '/api/v1/calls', { key, body: { line_id: lineId, to_number: CALLEE } });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call.id;

    const live = await eventually(async () => {
      const res = await client.get(`/portal/calls/${callId}/live?env=test`);
      return res.text.includes('data-call-status="in_progress"') ? res : undefined;
    });
    expect(live.text).toContain(`hx-get="/portal/calls/${callId}/live?env=test"`);
    expect(live.text).not.toContain('<html');
    const page = await client.get(`/portal/calls/${callId}?env=test`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(CALLEE);

    expect((await h.request('POST', `/api/v1/calls/${callId}/hangup`, { key })).status).toBe(200);
    // Once the call has ended and settled, its fragment is not polled any more.
    const ended = await eventually(async () => {
      const res = await client.get(`/portal/calls/${callId}/live?env=test`);
      return res.text.includes('hx-trigger') ? undefined : res;
    });
    expect(ended.text).toContain('data-call-status="completed"');
    expect(ended.text).toMatch(/data-call-ended><time datetime="\d{4}-/);

    const list = await client.get('/portal/calls?env=test&status=completed');
    expect(list.text).toContain(`data-call-id="${callId}"`);
    expect((await client.get('/portal/calls?env=test&status=ringing')).text).not.toContain(callId);

    const history = await client.get(`/portal/calls/${callId}/history.json?env=test`);
    expect(history.status).toBe(200);
    expect(history.headers.get('content-disposition')).toBe(`attachment; filename="${callId}.history.json"`);
    const exported = JSON.parse(history.text);
    expect(exported).toMatchObject({ workflowId: callId, runId: expect.any(String) });
    expect(exported.history.events[0].eventType).toMatch(/WORKFLOW_EXECUTION_STARTED/);

    const stranger = await operator();
    for (const path of [`/portal/calls/${callId}?env=test`, `/portal/calls/${callId}/history.json?env=test`]) {
      const res = await stranger.client.get(path);
      expect(res.status).toBe(404);
      expect(res.text).toContain('call_not_found');
    }
  });

  it('shows a new line’s secret once, rotates it, and escapes what the operator typed', async () => {
    const { client } = await operator();
    const created = await client.submit('/portal/lines', '/portal/lines', {
      env: 'test',
      name: '<img src=x onerror=alert(1)>',
      mode: 'hosted',
      system_prompt: 'Be brief.',
    });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain('<img src=x');
    expect(created.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const secret = /id="webhook-secret"[^>]*>([0-9a-f]{64})</.exec(created.text)![1];
    const list = await client.get('/portal/lines?env=test');
    expect(list.text).not.toContain(secret);
    const lineId = /data-line-id="([^"]+)"/.exec(list.text)![1];
    const rotated = await client.submit('/portal/lines?env=test', `/portal/lines/${lineId}/rotate-secret`, { env: 'test', confirm: 'yes' });
    expect(rotated.status).toBe(200);
    expect(/id="webhook-secret"[^>]*>([0-9a-f]{64})</.exec(rotated.text)![1]).not.toBe(secret);
    // A second rotation within 24 hours is refused, as by the API.
    const again = await client.submit('/portal/lines?env=test', `/portal/lines/${lineId}/rotate-secret`, { env: 'test', confirm: 'yes' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('A new secret is already staged');
  });

  it('refuses invalid line fields with validation_error naming them, keeping what was typed', async () => {
    const { client } = await operator();
    const res = await client.submit('/portal/lines', '/portal/lines', { env: 'test', name: 'No prompt', mode: 'hosted' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('validation_error');
    expect(res.text).toContain('system_prompt');
    expect(res.text).toContain('value="No prompt"');
  });

  it('the line form buys a number in an area code or imports a granted one; a refusal keeps what was typed (issue 26)', async () => {
    const { client, workspaceId } = await operator();
    const hosted = { mode: 'hosted', system_prompt: 'Be brief.' };
    const numberOf = (lineId: string) =>
      eventually(async () => (await h.db('lines').where({ id: lineId, status: 'active' }).first())?.phone_number as string | undefined);
    const bought = await createLineInPortal(client, {
      ...hosted,
      name: 'Local',
      number_source: 'purchased',
      country: 'us',
      area_code: '415',
    });
    expect(await numberOf(bought.lineId)).toMatch(/^\+1415\d{7}$/);

    const owned = `+1564555${2000 + crypto.randomInt(8000)}`;
    h.simulator.state.own(owned);
    await runCommand(h.db, ['number', 'grant'], { workspace: workspaceId, env: 'test', number: owned });
    const imported = await createLineInPortal(client, {
      ...hosted,
      name: 'Ours',
      number_source: 'imported',
      phone_number: owned,
      area_code: '',
    });
    expect(await numberOf(imported.lineId)).toBe(owned);

    const refused = await client.submit('/portal/lines', '/portal/lines', {
      env: 'test',
      ...hosted,
      name: 'None',
      number_source: 'purchased',
      area_code: '564',
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('number_unavailable');
    expect(refused.text).toContain('value="564"');
    expect(await h.db('lines').where({ workspace_id: workspaceId })).toHaveLength(2);
  });

  it("never shows or changes another workspace's lines", async () => {
    const other = await createTenant(h.db);
    const theirs = await h.request('POST', '/api/v1/lines', {
      key: other.keys.test,
      body: { name: 'Theirs', mode: 'hosted', system_prompt: 'x' },
    });
    expect(theirs.status).toBe(201);
    const { client } = await operator();
    const list = await client.get('/portal/lines?env=test');
    expect(list.text).not.toContain(theirs.body.line.id);
    const rotate = await client.submit('/portal/lines?env=test', `/portal/lines/${theirs.body.line.id}/rotate-secret`, {
      env: 'test',
      confirm: 'yes',
    });
    expect(rotate.status).toBe(404);
    expect(rotate.text).toContain('not_found');
  });

  it('lets a member read lines but not create one, as the member preset gates the API', async () => {
    const { workspaceId } = await operator();
    const client = await signInMember(h.apiUrl, h.db, workspaceId);
    const list = await client.get('/portal/lines');
    expect(list.text).toContain('Your role cannot create lines');
    const csrf_token = PortalClient.csrfOf(await client.get('/portal'));
    const refused = await client.post('/portal/lines', { csrf_token, env: 'test', name: 'x', mode: 'hosted', system_prompt: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('forbidden');
    expect(await h.db('lines').where({ workspace_id: workspaceId })).toHaveLength(0);
    expect((await client.get('/portal/keys')).text).toContain('Your role cannot mint service keys');
    const mint = await client.post('/portal/keys', { csrf_token, env: 'test', name: 'x' });
    expect(mint.status).toBe(403);
    expect(await h.db('api_keys').where({ workspace_id: workspaceId, kind: 'service' })).toHaveLength(0);
  });

  it('mints a service key shown once that works on /v1/keys, and revokes it with the agent keys it minted', async () => {
    const { client, workspaceId } = await operator();
    const minted = await client.submit('/portal/keys?env=test', '/portal/keys', { env: 'test', name: 'Agents' });
    expect(minted.status).toBe(201);
    const plaintext = /id="minted-key"[^>]*>([^<]+)</.exec(minted.text)![1];
    const keyId = /data-key-id="([^"]+)"/.exec(minted.text)![1];
    expect((await client.get('/portal/keys?env=test')).text).not.toContain(plaintext);

    expect((await h.request('GET', '/v1/keys', { key: plaintext })).status).toBe(200);
    const agent = await h.request('POST', '/v1/keys', {
      key: plaintext,
      body: { name: 'a' },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    expect(agent.status).toBe(201);

    const revoked = await client.submit('/portal/keys?env=test', `/portal/keys/${keyId}/revoke`, { env: 'test', confirm: 'yes' });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/portal/keys?env=test');
    expect((await h.request('GET', '/v1/keys', { key: plaintext })).status).toBe(401);
    expect((await h.request('GET', '/api/v1/lines', { key: agent.body.key.plaintext_key })).status).toBe(401);
    const events = await h.db('compliance_events').where({ workspace_id: workspaceId }).orderBy('created_at');
    expect(events.map((e: { event_type: string }) => e.event_type)).toEqual(
      expect.arrayContaining(['service_key_created', 'service_key_revoked', 'agent_key_revoked']),
    );
    expect((await client.get('/portal/keys?env=test')).text).toContain('revoked');
    // Both actions are in the audit log, which filters as the API's audit does.
    const audit = (await client.get('/portal/audit?env=test')).text;
    expect(audit).toContain('data-event-type="service_key_created"');
    expect(audit).toContain('data-event-type="service_key_revoked"');
    const revokedOnly = (await client.get('/portal/audit?env=test&event_type=service_key_revoked')).text;
    expect(revokedOnly.match(/data-event-type="([^"]+)"/g)).toEqual(['data-event-type="service_key_revoked"']);
    // Details read as words (issue 30), not a JSON blob.
    expect(revokedOnly).toContain('<span class="audit-detail-name">via:</span> portal');
    // The live environment has no compliance events; only the workspace's own actions (sign-up, confirmed address) show there.
    const live = (await client.get('/portal/audit?env=live')).text;
    expect(live).not.toContain('data-event-type=');
    expect(live).toContain('data-action="account.email_verified"');
    const bad = await client.get('/portal/audit?env=test&event_type=nope&from=yesterday');
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('validation_error');
    // Another workspace's key is not found.
    const other = await operator();
    const theirs = await other.client.submit('/portal/keys?env=test', `/portal/keys/${keyId}/revoke`, { env: 'test', confirm: 'yes' });
    expect(theirs.status).toBe(404);
  });

  it('shows the balance, usage, card and transactions page by page, and lets an owner change auto-charge', async () => {
    const { client, userId, workspaceId } = await operator();
    const tenant = { workspaceId, environment: 'test' as const };
    const now = h.clock.now();
    // The signup credit plus 50 purchases: 51 transactions, one more than a page.
    for (let i = 1; i <= 50; i += 1) {
      await post(h.db, {
        tenant,
        type: 'credit_purchase',
        amountCents: 100,
        description: `purchase ${i}`,
        idempotencyRef: `p${i}`,
        at: now,
      });
    }
    await h.db('usage_records').insert({
      workspace_id: workspaceId,
      environment: 'test',
      kind: 'call',
      seconds: 90,
      cost_cents: 20,
      reference: crypto.randomUUID(),
      occurred_at: now,
    });
    await savePaymentMethod(h.db, {
      workspaceId,
      userId,
      environment: 'test',
      token: 'tok_visa',
      brand: 'visa',
      last4: '4242',
      expMonth: 4,
      expYear: 2031,
      makeDefault: true,
    });

    const page = await client.get('/portal/billing?env=test');
    expect(page.status).toBe(200);
    expect(stat(page.text, 'balance')).toBe('$55.00');
    expect(stat(page.text, 'usage-cost')).toBe('$0.20');
    expect(page.text).toMatch(/visa<\/strong> ending in <span class="mono">4242/);
    const usage = JSON.parse(/data-usage="([^"]+)"/.exec(page.text)![1].replace(/&quot;/g, '"'));
    expect(usage).toHaveLength(30);
    expect(usage[29]).toMatchObject({ date: now.toISOString().slice(0, 10), cost_cents: 20, calls: 1 });
    expect(page.text).toContain('<script src="/portal/assets/usage-chart.js" defer></script>');
    expect(page.text).not.toMatch(/<script>|<script [^s]/);
    const firstIds = [...page.text.matchAll(/data-transaction-id="([^"]+)"/g)].map((m) => m[1]);
    expect(firstIds).toHaveLength(50);
    expect(page.text).toContain('purchase 50');
    const older = /id="older" href="([^"]+)"/.exec(page.text)![1].replace(/&amp;/g, '&');
    const second = await client.get(older);
    const secondIds = [...second.text.matchAll(/data-transaction-id="([^"]+)"/g)].map((m) => m[1]);
    expect(secondIds).toHaveLength(1);
    expect(second.text).toContain('data-transaction-type="signup_credit"');
    expect(second.text).toContain('>Signup credit<');
    expect(second.text).not.toContain('id="older"');
    // The API's transactions are the same ones, in the same order.
    const user = (await h.db('users').where({ id: userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'k' })).plaintext;
    const api = await h.request('GET', '/api/v1/billing/transactions?limit=100', { key });
    expect(api.body.transactions.map((t: { id: string }) => t.id)).toEqual([...firstIds, ...secondIds]);

    expect(stat(page.text, 'auto-charge')).toBe('off');
    const saved = await client.submit('/portal/billing?env=test', '/portal/billing/auto-charge', {
      env: 'test',
      enabled: 'on',
      threshold: '10',
      amount: '25.50',
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/portal/billing?env=test');
    const settings = await h.request('GET', '/api/v1/settings', { key });
    expect(settings.body).toMatchObject({
      auto_recharge_enabled: true,
      auto_recharge_threshold_cents: 1000,
      auto_recharge_amount_cents: 2550,
    });
    expect(stat((await client.get('/portal/billing?env=test')).text, 'auto-charge')).toBe('on');
    const event = await h.db('compliance_events').where({ workspace_id: workspaceId, event_type: 'settings_changed' }).first();
    expect(event.metadata).toMatchObject({ via: 'portal', user_id: userId, changed: { auto_recharge_amount_cents: { to: 2550 } } });

    const invalid = await client.submit('/portal/billing?env=test', '/portal/billing/auto-charge', {
      env: 'test',
      threshold: 'ten',
      amount: '4.99',
    });
    expect(invalid.status).toBe(422);
    expect(invalid.text).toContain('<code>threshold</code>');
    expect(invalid.text).toContain('<code>amount</code>');
    // Without the page's token the change is refused and nothing changes.
    const forged = await client.post('/portal/billing/auto-charge', { env: 'test', threshold: '1', amount: '5' });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('forbidden');
    expect((await h.request('GET', '/api/v1/settings', { key })).body.auto_recharge_amount_cents).toBe(2550);
    // The live environment has its own account, untouched.
    expect(stat((await client.get('/portal/billing?env=live')).text, 'auto-charge')).toBe('on');
  });

  it('lets a member read billing but not change auto-charge', async () => {
    const { workspaceId } = await operator();
    const client = await signInMember(h.apiUrl, h.db, workspaceId);
    const page = await client.get('/portal/billing?env=test');
    expect(page.status).toBe(200);
    expect(stat(page.text, 'balance')).toBe('$5.00');
    expect(page.text).toContain('Your role cannot change auto-charge');
    expect(page.text).not.toContain('action="/portal/billing/auto-charge"');
    const csrf_token = PortalClient.csrfOf(page);
    const refused = await client.post('/portal/billing/auto-charge', {
      csrf_token,
      env: 'test',
      enabled: 'on',
      threshold: '10',
      amount: '20',
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Your role cannot change auto-charge');
    expect(await h.db('compliance_events').where({ workspace_id: workspaceId, event_type: 'settings_changed' })).toHaveLength(0);
  });

  it('lists SMS conversations and shows one conversation page by page, as the API answers them', async () => {
    const { client, userId, workspaceId } = await operator();
    const { lineId } = await createLineInPortal(client, { name: 'Texts', mode: 'webhook', webhook_url: receiver.url });
    const line = (await h.db('lines').where({ id: lineId }).first())!;
    const base = Date.UTC(2026, 10, 20, 12, 0, 0);
    const sms = (remote: string, i: number, inbound: boolean, body: string) =>
      insertMessage(h.db, {
        workspace_id: workspaceId,
        environment: 'test',
        line_id: lineId,
        id: crypto.randomUUID(),
        actor_key_id: null,
        direction: inbound ? 'inbound' : 'outbound',
        origin: inbound ? 'carrier' : 'customer',
        from_number: inbound ? remote : line.phone_number,
        to_number: inbound ? line.phone_number : remote,
        body,
        segments: 1,
        status: inbound ? 'received' : 'delivered',
        carrier_message_id: null,
        authorization_basis: null,
        consent_id: null,
        created_at: new Date(base + i * 1000),
      });
    // 51 messages with one number (one more than a page), then one with another, which is the most recent.
    for (let i = 0; i < 51; i += 1) await sms('+14155550170', i, i % 2 === 0, `message ${i}`);
    await sms('+14155550171', 100, true, '<b>hi</b> & bye');

    const list = await client.get('/portal/conversations?env=test');
    expect(list.status).toBe(200);
    expect([...list.text.matchAll(/data-conversation="([^"]+)"/g)].map((m) => m[1])).toEqual([
      `${lineId}/+14155550171`,
      `${lineId}/+14155550170`,
    ]);
    expect(list.text).toContain('&lt;b&gt;hi&lt;/b&gt; &amp; bye');
    expect(list.text).not.toContain('<b>hi</b>');
    expect((await client.get('/portal/conversations?env=live')).text).toContain('No SMS conversations in the live environment yet.');

    const href = `/portal/conversations/${lineId}/%2B14155550170?env=test`;
    expect(list.text).toContain(`href="${href}"`);
    const first = await client.get(href);
    expect(first.status).toBe(200);
    const firstIds = [...first.text.matchAll(/data-message-id="([^"]+)"/g)].map((m) => m[1]);
    expect(firstIds).toHaveLength(50);
    expect(first.text).toContain('message 50');
    const older = /id="older" href="([^"]+)"/.exec(first.text)![1].replace(/&amp;/g, '&');
    const second = await client.get(older);
    const secondIds = [...second.text.matchAll(/data-message-id="([^"]+)"/g)].map((m) => m[1]);
    expect(secondIds).toHaveLength(1);
    expect(second.text).toContain('message 0');
    expect(second.text).not.toContain('id="older"');
    // The API's messages are the same ones, in the same order.
    const user = (await h.db('users').where({ id: userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'k' })).plaintext;
    const api = await h.request('GET', `/api/v1/conversations/${lineId}/%2B14155550170?limit=100`, { key });
    expect(api.body.messages.map((m: { id: string }) => m.id)).toEqual([...firstIds, ...secondIds]);

    expect((await client.get(`/portal/conversations/${lineId}/not-a-number?env=test`)).status).toBe(422);
    expect((await client.get(`/portal/conversations/nope/%2B14155550170?env=test`)).status).toBe(404);
    // Another workspace sees neither the list entry nor the page; a member of this one reads both.
    const other = await operator();
    expect((await other.client.get(href)).status).toBe(404);
    expect((await other.client.get('/portal/conversations?env=test')).text).not.toContain(lineId);
    const memberClient = await signInMember(h.apiUrl, h.db, workspaceId);
    expect((await memberClient.get(href)).text).toContain('message 50');
  });

  it('sends a visitor without a session to the login page', async () => {
    for (const path of [
      '/portal',
      '/portal/lines',
      '/portal/calls',
      '/portal/deliveries',
      '/portal/keys',
      '/portal/audit',
      '/portal/settings',
      '/portal/security',
      '/portal/billing',
      '/portal/conversations',
    ]) {
      const res = await new PortalClient(h.apiUrl).get(path);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/portal/login');
    }
    expect((await new PortalClient(h.apiUrl).get('/portal/overview/stats')).status).toBe(401);
  });

  it('serves htmx and the stylesheet from this process', async () => {
    const htmx = await new PortalClient(h.apiUrl).get('/portal/assets/htmx.min.js');
    expect(htmx.status).toBe(200);
    expect(htmx.headers.get('content-type')).toMatch(/javascript/);
    expect(htmx.text).toContain('htmx');
    expect((await new PortalClient(h.apiUrl).get('/portal/assets/portal.css')).status).toBe(200);
    const chart = await new PortalClient(h.apiUrl).get('/portal/assets/chart.umd.js');
    expect(chart.status).toBe(200);
    expect(chart.text).toContain('Chart');
    expect((await new PortalClient(h.apiUrl).get('/portal/assets/usage-chart.js')).text).toContain('data-usage');
    expect((await new PortalClient(h.apiUrl).get('/portal/assets/..%2Fhtml.ts')).status).toBe(404);
  });
});
