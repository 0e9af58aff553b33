import crypto from 'node:crypto';
import { setPasswordHash } from '../../src/domain/accounts/store';
import { mintRegularKey } from '../../src/domain/keys/userKeys';
import { addUser } from '../../src/domain/workspaces/service';
import { purgeExpiredOAuthRecords } from '../../src/domain/oauth/store';
import { hashKey } from '../../src/domain/keys/format';
import { hashPassword } from '../../src/platform/crypto/password';
import { OPERATOR_PASSWORD, PortalClient } from '../support/portalClient';
import { mcpInitialize } from '../support/mcpRequests';
import { useSuite } from '../support/suite';

const REDIRECT = 'http://127.0.0.1:39999/oauth/callback';

/**
 * Issue 29, item 1, "Bad input": the authorization server and /mcp as an attacker meets them. Each
 * refusal is the RFC's error response: unregistered clients, unsafe registrations, a wrong PKCE
 * verifier, another resource (at authorization, at the token endpoint, and a token presented to a
 * resource it was not issued for), expired and reused codes, and a reused refresh token (family revoked).
 */
describe('OAuth for /mcp refuses', () => {
  const apiLog: string[] = [];
  const { h, tenant } = useSuite({ portal: true, tenant: 'each', apiLog });
  /** The API's log lines with this message (every refusal is logged for the operator). */
  const logged = (msg: string) => apiLog.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === msg);
  const mcpUrl = () => new URL('/mcp', h.apiUrl).href;

  const mcp = (token: string | undefined) =>
    fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(mcpInitialize('attacker')),
    });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  type Body = Record<string, any>;
  const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Body });
  const register = async (metadata: Record<string, unknown> = {}) =>
    json(
      await fetch(new URL('/oauth/register', h.apiUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Attack test', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
      }),
    );
  const token = async (form: Record<string, string>) =>
    json(
      await fetch(new URL('/oauth/token', h.apiUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      }),
    );
  const pkce = () => {
    const verifier = crypto.randomBytes(32).toString('base64url');
    return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
  };
  const authorize = (params: Record<string, string>) =>
    fetch(
      new URL(
        `/oauth/authorize?${new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, state: 's1', ...params })}`,
        h.apiUrl,
      ),
      {
        redirect: 'manual',
      },
    );

  /** A registered client, a signed-in owner consenting on the portal (JSON answers), and the code they got. */
  async function consented(who?: {
    email: string;
    userId: string;
    parentKeyId: string;
    scopes: string[];
  }): Promise<{ clientId: string; verifier: string; code: string; portal: PortalClient }> {
    const client = await register();
    expect(client.status).toBe(201);
    const clientId = client.body.client_id as string;
    const { verifier, challenge } = pkce();
    const started = await authorize({ client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256', resource: mcpUrl() });
    expect(started.status).toBe(302);
    const consentPath = started.headers.get('location')!;
    expect(consentPath).toMatch(/^\/portal\/oauth\/consent\?request=sbo_ar_/);
    const portal = new PortalClient(h.apiUrl);
    const ownerKey = await h
      .db('api_keys')
      .where({ key_hash: hashKey(tenant.keys.test) })
      .first();
    const person = who ?? { email: tenant.owner.email, userId: tenant.owner.id, parentKeyId: ownerKey.id as string, scopes: ['read'] };
    await setPasswordHash(h.db, person.userId, await hashPassword(OPERATOR_PASSWORD), new Date());
    const login = await portal.submit('/portal/login', '/portal/login', { email: person.email, password: OPERATOR_PASSWORD });
    expect(login.status).toBe(303);
    const answer = await portal.submit(
      consentPath,
      '/portal/oauth/consent',
      {
        request: new URL(consentPath, h.apiUrl).searchParams.get('request')!,
        env: 'test',
        parent_key_id: person.parentKeyId,
        name: 'MCP: Attack test',
        ...Object.fromEntries(person.scopes.map((scope) => [`scope.${scope}`, 'on'])),
        decision: 'allow',
      },
      { accept: 'application/json' },
    );
    expect(answer.status).toBe(200);
    const redirectTo = new URL(JSON.parse(answer.text).redirect_to);
    expect(redirectTo.searchParams.get('state')).toBe('s1');
    return { clientId, verifier, code: redirectTo.searchParams.get('code')!, portal };
  }
  const exchange = (grant: { clientId: string; verifier: string; code: string }, extra: Record<string, string> = {}) =>
    token({
      grant_type: 'authorization_code',
      client_id: grant.clientId,
      code: grant.code,
      code_verifier: grant.verifier,
      redirect_uri: REDIRECT,
      ...extra,
    });

  it('answers without a credential with the RFC 9728 challenge, publishes both metadata documents, and keeps API keys working', async () => {
    const bare = await mcp(undefined);
    expect(bare.status).toBe(401);
    const metadataUrl = new URL('/.well-known/oauth-protected-resource/mcp', h.apiUrl).href;
    expect(bare.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(((await bare.json()) as Body).error.code).toBe('unauthorized');
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const resource = await json(await fetch(new URL(path, h.apiUrl)));
      expect(resource.body).toMatchObject({ resource: mcpUrl(), authorization_servers: [new URL(h.apiUrl).origin] });
    }
    const server = await json(await fetch(new URL('/.well-known/oauth-authorization-server', h.apiUrl)));
    expect(server.body).toMatchObject({
      issuer: new URL(h.apiUrl).origin,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      registration_endpoint: new URL('/oauth/register', h.apiUrl).href,
    });
    expect((await mcp(tenant.keys.test)).status).toBe(200);
    const badKey = await mcp('sk_test_00000000000000000000000000000000');
    expect(badKey.status).toBe(401);
    expect(((await badKey.json()) as Body).error.code).toBe('invalid_api_key');
    expect(badKey.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses unregistered clients and unsafe registrations, and registers every client as public', async () => {
    const { challenge } = pkce();
    const unknown = await authorize({ client_id: 'sbo_client_nobody', code_challenge: challenge, code_challenge_method: 'S256' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as Body).error).toBe('invalid_client');
    const unknownAtToken = await token({ grant_type: 'authorization_code', client_id: 'sbo_client_nobody', code: 'x', code_verifier: 'y' });
    expect(unknownAtToken).toMatchObject({ status: 400, body: { error: 'invalid_client' } });
    expect(logged('oauth endpoint refused the request')).toContainEqual(expect.objectContaining({ path: '/oauth/token', status: 400 }));

    expect(await register({ redirect_uris: ['http://evil.example/cb'] })).toMatchObject({
      status: 400,
      body: { error: 'invalid_redirect_uri' },
    });
    // The SDK's RFC 7591 schema already refuses a script URI.
    expect(await register({ redirect_uris: ['javascript:alert(1)'] })).toMatchObject({
      status: 400,
      body: { error: 'invalid_client_metadata' },
    });
    expect(await register({ grant_types: ['password'] })).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    const confidential = await register({ token_endpoint_auth_method: 'client_secret_post' });
    expect(confidential.status).toBe(201);
    expect(confidential.body.token_endpoint_auth_method).toBe('none');
    expect(confidential.body.client_secret).toBeUndefined();

    // PKCE S256 only, for registered clients too: refused on their redirect URI.
    const clientId = confidential.body.client_id as string;
    for (const params of [{}, { code_challenge: challenge, code_challenge_method: 'plain' }] as Record<string, string>[]) {
      const refused = await authorize({ client_id: clientId, ...params });
      expect(refused.status).toBe(302);
      const location = new URL(refused.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      // The SDK's handler drops `state` from this one refusal (docs/decisions/keys.md, issue 29).
    }
    const elsewhere = await authorize({
      client_id: clientId,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: 'https://elsewhere.example/mcp',
    });
    expect(new URL(elsewhere.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('refuses a wrong PKCE verifier, another resource, an expired code, and a reused one (revoking what it gave)', async () => {
    const grant = await consented();
    expect(await exchange(grant, { code_verifier: pkce().verifier })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(logged('oauth request refused')).toContainEqual(
      expect.objectContaining({ client_id: grant.clientId, error: 'invalid_grant', reason: 'pkce mismatch' }),
    );
    expect(await exchange(grant, { resource: 'https://elsewhere.example/mcp' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_target' },
    });
    const issued = await exchange(grant, { resource: mcpUrl() });
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'read' });
    const access = issued.body.access_token as string;
    expect((await mcp(access)).status).toBe(200);
    // Stored as digests only.
    expect(await h.db('oauth_tokens').where({ token_hash: access }).first()).toBeUndefined();

    // The same code again: refused, and the tokens it gave are revoked with their grant and key.
    expect(await exchange(grant)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const reused = await mcp(access);
    expect(reused.status).toBe(401);
    expect(((await reused.json()) as Body).error.code).toBe('invalid_token');
    const revokedGrant = await h.db('oauth_grants').where({ client_id: grant.clientId }).first();
    expect(revokedGrant.revoked_reason).toBe('code_reused');
    expect((await h.db('api_keys').where({ id: revokedGrant.key_id }).first()).revoked_at).not.toBeNull();

    const late = await consented();
    await h
      .db('oauth_codes')
      .update({ expires_at: new Date(Date.now() - 1000) })
      .whereNull('consumed_at');
    expect(await exchange(late)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('accepts a token only at the resource it was issued for', async () => {
    const issued = await exchange(await consented());
    const access = issued.body.access_token as string;
    expect((await mcp(access)).status).toBe(200);
    // The same token, had it been issued for another resource (as one of another deployment would be).
    await h.db('oauth_tokens').update({ resource: 'https://other.example/mcp' }).where({ kind: 'access' });
    const elsewhere = await mcp(access);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('rotates refresh tokens, and a reused one revokes the whole family', async () => {
    const grant = await consented();
    const first = await exchange(grant);
    const refresh = (refreshToken: string) =>
      token({ grant_type: 'refresh_token', client_id: grant.clientId, refresh_token: refreshToken });
    const second = await refresh(first.body.refresh_token as string);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await mcp(second.body.access_token as string)).status).toBe(200);

    expect(await refresh(first.body.refresh_token as string)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await refresh(second.body.refresh_token as string)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await mcp(second.body.access_token as string)).status).toBe(401);
    const event = await h.db('compliance_events').where({ workspace_id: tenant.workspaceId, event_type: 'oauth_grant_revoked' }).first();
    expect(event.metadata).toMatchObject({ client_id: grant.clientId, reason: 'refresh_token_reused' });
  });

  it("reaches an admin's tokens when the admin is demoted (narrowed) and when removed (revoked)", async () => {
    const email = `admin+${crypto.randomBytes(4).toString('hex')}@example.test`;
    const admin = await addUser(h.db, { workspaceId: tenant.workspaceId, email, role: 'admin' });
    const adminKey = await mintRegularKey(h.db, { user: admin, environment: 'test', name: 'admin key', via: 'cli', now: new Date() });
    const grant = await consented({ email, userId: admin.id, parentKeyId: adminKey.row.id, scopes: ['read', 'keys:admin'] });
    const first = await exchange(grant);
    expect(first.body.scope.split(' ').sort()).toEqual(['keys:admin', 'read']);
    expect((await mcp(first.body.access_token)).status).toBe(200);

    const owner = (await consented()).portal;
    const accept = { accept: 'application/json' };
    expect(
      (await owner.submit('/portal/members', `/portal/members/${admin.id}/role`, { role: 'member', confirm: 'yes' }, accept)).status,
    ).toBe(200);
    // Narrowed with the member's other keys: the token's key no longer holds keys:admin.
    const refreshed = await token({ grant_type: 'refresh_token', client_id: grant.clientId, refresh_token: first.body.refresh_token });
    expect(refreshed.body.scope).toBe('read');
    expect((await mcp(refreshed.body.access_token)).status).toBe(200);

    expect((await owner.submit('/portal/members', `/portal/members/${admin.id}/remove`, { confirm: 'yes' }, accept)).status).toBe(200);
    expect((await mcp(refreshed.body.access_token)).status).toBe(401);
    const afterRemoval = await token({
      grant_type: 'refresh_token',
      client_id: grant.clientId,
      refresh_token: refreshed.body.refresh_token,
    });
    expect(afterRemoval).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('keeps codes and tokens until a day past their expiry, and grants for good (maintenance)', async () => {
    const grant = await consented();
    const issued = await exchange(grant);
    const grantRow = await h.db('oauth_grants').where({ client_id: grant.clientId }).first();
    const rows = () =>
      Promise.all(['oauth_codes', 'oauth_tokens'].map((table) => h.db(table).where({ grant_id: grantRow.id }).count('* as n').first()));
    await purgeExpiredOAuthRecords(h.db, new Date());
    expect((await rows()).map((row) => Number(row!.n))).toEqual([1, 2]);
    // A day past the refresh token's 30 days: the code, the access and the refresh token are gone, the grant stays.
    await purgeExpiredOAuthRecords(h.db, new Date(Date.now() + 32 * 24 * 3600_000));
    expect((await rows()).map((row) => Number(row!.n))).toEqual([0, 0]);
    expect(await h.db('oauth_grants').where({ id: grantRow.id }).first()).toBeDefined();
    expect(await token({ grant_type: 'refresh_token', client_id: grant.clientId, refresh_token: issued.body.refresh_token })).toMatchObject(
      {
        status: 400,
        body: { error: 'invalid_grant' },
      },
    );
  });
});
