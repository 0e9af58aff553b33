import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { setPasswordHash } from '../../src/domain/accounts/store';
import { revokeScopedTokenAsOperator } from '../../src/domain/keys/scopedTokens';
import { hashKey } from '../../src/domain/keys/format';
import { hashPassword } from '../../src/platform/crypto/password';
import { pageChecker, useChromium, watchPageProblems } from '../support/browser';
import { CALLEE, customer } from '../support/customer';
import { eventually } from '../support/harness';
import { OPERATOR_PASSWORD } from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * The host's loopback redirect receiver (RFC 8252 §7.3), as a desktop host runs one: it keeps the
 * URLs the browser was sent to.
 */
async function loopbackReceiver(): Promise<{ url: string; received: URL[]; close: () => Promise<void> }> {
  const received: URL[] = [];
  const server = http.createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/oauth/callback`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** An MCP host's OAuth state for one server, as the SDK's client keeps it (here in memory). */
class HostAuth implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly clientMetadata: OAuthClientMetadata;
  constructor(readonly redirectUrl: string) {
    this.clientMetadata = {
      client_name: 'Test agent host',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation = () => this.information;
  saveClientInformation = (information: OAuthClientInformationMixed) => void (this.information = information);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
  state = () => 'state-from-the-host';
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Result = CallToolResult & { structuredContent: Record<string, any> };

/**
 * Issue 29, item 1, "Done when": an MCP host on the official SDK, with its OAuth client, knows only
 * the /mcp URL; it discovers the authorization server (RFC 9728, RFC 8414), registers (RFC 7591),
 * sends the person through the portal's sign-in and consent in a real browser, places a call and
 * follows it, and loses access the moment the key behind its token is revoked.
 */
describe('MCP with OAuth sign-in', () => {
  const ctx = useSuite({ worker: true, receiver: true, portal: true, tenant: 'each' });
  const { h, tenant } = ctx;
  const browser = useChromium();
  const { lines } = customer(ctx, { line: () => ({ name: 'Front desk', mode: 'webhook', webhook_url: ctx.receiver.url }) });
  const check = pageChecker('oauth');

  const transport = (auth: HostAuth) => new StreamableHTTPClientTransport(new URL('/mcp', h.apiUrl), { authProvider: auth });
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as Result;
    if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent;
  };

  it('discovers, registers, signs in and consents in a browser, places and follows a call, and is cut off when the key is revoked', async () => {
    await setPasswordHash(h.db, tenant.owner.id, await hashPassword(OPERATOR_PASSWORD), new Date());
    const line = await lines.create();
    const receiver = await loopbackReceiver();
    const auth = new HostAuth(receiver.url);

    // Knowing only the URL: the first request is refused with the challenge, and the SDK does the rest up to the browser.
    await expect(new Client({ name: 'host', version: '1.0.0' }).connect(transport(auth))).rejects.toThrow(UnauthorizedError);
    expect(auth.information?.client_id).toMatch(/^sbo_client_/);
    expect(auth.authorizationUrl?.href).toContain('/oauth/authorize?');
    expect(auth.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.authorizationUrl?.searchParams.get('resource')).toBe(new URL('/mcp', h.apiUrl).href);

    const context = await browser.newContext({ baseURL: h.apiUrl });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    await page.goto(auth.authorizationUrl!.href);
    // Not signed in: the portal's own login, then back to the consent page.
    await page.waitForURL('**/portal/login');
    await page.getByLabel('Email').fill(tenant.owner.email);
    await page.getByLabel('Password', { exact: true }).fill(OPERATOR_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/portal/oauth/consent?request=*');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Authorize Test agent host');
    await check(page, '01-consent', problems);
    // The person narrows the grant to calls on this one line.
    for (const box of await page.locator('input[name^="scope."]').all()) await box.uncheck();
    for (const scope of ['read', 'numbers:read', 'calls:create', 'calls:control'])
      await page.locator(`input[name="scope.${scope}"]`).check();
    await page.locator(`input[name="line.${line.id}"]`).check();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${receiver.url}?*`);
    await receiver.close();
    const callback = receiver.received[0];
    expect(callback.searchParams.get('state')).toBe('state-from-the-host');
    await context.close();

    await transport(auth).finishAuth(callback.searchParams.get('code')!);
    expect(auth.saved?.access_token).toMatch(/^sbo_at_/);
    expect(auth.saved?.scope?.split(' ').sort()).toEqual(['calls:control', 'calls:create', 'numbers:read', 'read']);

    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(transport(auth));
    const listed = await call(client, 'list_lines');
    expect(listed.lines.map((l: { id: string }) => l.id)).toEqual([line.id]);
    const placed = await call(client, 'place_call', { line_id: line.id, to_number: CALLEE });
    const id = placed.call.id as string;
    await eventually(async () => ((await call(client, 'get_call', { id })).call.status === 'in_progress' ? true : undefined));
    await call(client, 'hang_up', { id });

    // Every use is in the audit log with the client's name, acting as the delegated key the consent minted.
    const grant = await h.db('oauth_grants').where({ workspace_id: tenant.workspaceId }).first();
    const uses = await h.db('compliance_events').where({ workspace_id: tenant.workspaceId, event_type: 'oauth_token_used' });
    expect(uses.length).toBeGreaterThanOrEqual(4);
    expect(uses.every((use) => use.metadata.client_name === 'Test agent host' && use.actor_key_id === grant.key_id)).toBe(true);
    // The token's MCP use is its delegated key's (the overview's "connect an agent by MCP" step reads it).
    expect((await h.db('api_keys').where({ id: grant.key_id }).first()).mcp_first_used_at).not.toBeNull();

    // The operator revokes the key the person chose: the very next request is refused, and refreshing gives nothing.
    const parent = await h
      .db('api_keys')
      .where({ key_hash: hashKey(tenant.keys.test) })
      .first();
    const revoked = await revokeScopedTokenAsOperator(h.db, {
      tenant: { workspaceId: tenant.workspaceId, environment: 'test' },
      keyId: parent.id,
      via: 'portal',
      now: new Date(),
    });
    expect(revoked.ok).toBe(true);
    const direct = await fetch(new URL('/mcp', h.apiUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${auth.saved!.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(direct.status).toBe(401);
    expect(direct.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    await expect(client.listTools()).rejects.toThrow();
  });
});
