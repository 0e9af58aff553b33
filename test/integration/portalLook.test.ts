import crypto from 'node:crypto';
import { createLineInPortal, OPERATOR_PASSWORD, PortalClient, placeTestCallInPortal, signUpOperator } from '../support/portalClient';
import { MCP_ACCEPT, mcpInitialize } from '../support/mcpRequests';
import { useSuite } from '../support/suite';

/** Issue 30, items 6 and 7 over HTTP: the deep link kept across sign-in, the checklist, badges, the test-mode banner, copying. */
describe('portal onboarding and look', () => {
  const { h } = useSuite({ portal: true, worker: true });

  async function signIn(client: PortalClient, email: string) {
    return client.submit('/portal/login', '/portal/login', { email, password: OPERATOR_PASSWORD });
  }

  it('comes back to the page a visitor opened once signed in, once, and never to another origin', async () => {
    const { email } = await signUpOperator(h, 'look');
    const visitor = new PortalClient(h.apiUrl);
    const opened = await visitor.get('/portal/deliveries?env=test&status=failed');
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe('/portal/login');
    const signedIn = await signIn(visitor, email);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/portal/deliveries?env=test&status=failed');

    // Once: the next sign-in lands on the overview.
    await visitor.post('/portal/logout', { csrf_token: PortalClient.csrfOf(await visitor.get('/portal')) });
    expect((await signIn(visitor, email)).headers.get('location')).toBe('/portal');

    // An htmx fragment polled after the session ended is no page to come back to.
    const later = new PortalClient(h.apiUrl);
    await later.get('/portal/calls?env=test');
    await later.get('/portal/calls/00000000-0000-4000-8000-000000000000/live?env=test', { 'HX-Request': 'true' });
    expect((await signIn(later, email)).headers.get('location')).toBe('/portal/calls?env=test');

    // A forged return cookie naming another origin is ignored.
    const forged = new PortalClient(h.apiUrl);
    forged.cookies.set('sb_portal_return', encodeURIComponent('//evil.example/portal'));
    expect((await signIn(forged, email)).headers.get('location')).toBe('/portal');
  });

  const step = (page: string, name: string) => new RegExp(`data-step="${name}" data-done="(true|false)"`).exec(page)?.[1];
  const stepsDone = (page: string) => /data-stat="steps-done">(\d)</.exec(page)?.[1];

  it('ticks each getting-started step from what the environment holds, and only in its environment', async () => {
    const { client } = await signUpOperator(h, 'look');
    const fresh = (await client.get('/portal?env=test')).text;
    expect(stepsDone(fresh)).toBe('0');
    expect(['line', 'key', 'mcp', 'call'].map((name) => step(fresh, name))).toEqual(['false', 'false', 'false', 'false']);
    expect(fresh).toContain('href="/docs"');
    expect(/<output id="mcp-url" class="mono">([^<]+)<\/output>/.exec(fresh)?.[1]).toMatch(/^https?:\/\/[^/]+\/mcp$/);

    const { lineId } = await createLineInPortal(client, { name: 'Desk', mode: 'hosted', system_prompt: 'You answer the desk.' });
    expect(step((await client.get('/portal?env=test')).text, 'line')).toBe('true');

    const minted = await client.submit('/portal/api-keys?env=test', '/portal/api-keys', { env: 'test', name: 'App', 'scope.read': 'on' });
    expect(minted.status).toBe(201);
    // A one-time key comes with a ready header, each with its copy button (portal.js reveals it).
    const key = /<output id="minted-key" class="mono">([^<]+)<\/output>/.exec(minted.text)![1];
    expect(minted.text).toContain(`<output id="minted-key-header" class="mono">Authorization: Bearer ${key}</output>`);
    expect(minted.text).toContain('data-copy="minted-key-header"');
    expect(step((await client.get('/portal?env=test')).text, 'key')).toBe('true');

    // An agent connected by MCP: a key that made an authenticated request to /mcp. A key used on the REST API
    // (here a line-bound agent key) is no MCP connection, nor is a refused /mcp request.
    const service = await client.submit('/portal/keys?env=test', '/portal/keys', { env: 'test', name: 'Fleet' });
    const serviceKey = /<output id="minted-key" class="mono">([^<]+)<\/output>/.exec(service.text)![1];
    const agent = await h.request('POST', '/v1/keys', {
      key: serviceKey,
      body: { name: 'agent', line_id: lineId },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    expect(agent.status).toBe(201);
    expect((await h.request('GET', '/api/v1/lines', { key: agent.body.key.plaintext_key })).status).toBe(200);
    expect((await h.request('POST', '/mcp', { key: serviceKey, body: mcpInitialize('look'), headers: MCP_ACCEPT })).status).toBe(401);
    expect(step((await client.get('/portal?env=test')).text, 'mcp')).toBe('false');
    // A plain API key, as an MCP host configured with `Authorization: Bearer <key>` sends it; the step is read from
    // the database at once (no batching in one process's memory).
    expect((await h.request('POST', '/mcp', { key, body: mcpInitialize('look'), headers: MCP_ACCEPT })).status).toBe(200);
    expect(step((await client.get('/portal?env=test')).text, 'mcp')).toBe('true');

    await placeTestCallInPortal(client, lineId);
    const done = (await client.get('/portal?env=test')).text;
    expect(stepsDone(done)).toBe('4');
    // All done: the checklist folds away.
    expect(done).toContain('<details class="getting-started" id="getting-started">');

    // Live is another environment: nothing of test counts there.
    expect(stepsDone((await client.get('/portal?env=live')).text)).toBe('0');
  });
});
