import crypto from 'node:crypto';
import { runCommand } from '../../src/main/cli';
import { type PortalResponse, signInMember, signUpOperator } from '../support/portalClient';
import { useSuite } from '../support/suite';

/** The API keys page over HTTP: regular keys and delegated tokens minted once, used on the public API, revoked. */
describe('portal API keys', () => {
  const { h } = useSuite({ portal: true });

  const operator = () => signUpOperator(h, 'keys');

  const plaintextOf = (page: PortalResponse) => /id="minted-key"[^>]*>([^<]+)</.exec(page.text)![1];
  const scopeFields = (...scopes: string[]) => Object.fromEntries(scopes.map((scope) => [`scope.${scope}`, 'on']));
  const rowOf = (page: PortalResponse, prefixOfKey: string) =>
    new RegExp(`data-key-id="([^"]+)">\\s*<td[^>]*>[^<]*</td>\\s*<td class="mono"[^>]*>${prefixOfKey}<`).exec(page.text)?.[1];

  it('mints a regular key and a delegated token below it, each shown once and working; revoking the key revokes both', async () => {
    const { client, workspaceId } = await operator();
    const regular = await client.submit('/portal/api-keys?env=test', '/portal/api-keys', {
      env: 'test',
      name: 'Ops',
      ...scopeFields('keys:admin', 'numbers:read', 'read'),
    });
    expect(regular.status).toBe(201);
    const regularKey = plaintextOf(regular);
    expect(regularKey).toMatch(/^sk_test_/);
    const regularId = rowOf(regular, regularKey.slice(0, 16))!;
    expect(regularId).toBeDefined();
    expect((await h.request('GET', '/api/v1/lines', { key: regularKey })).status).toBe(200);
    expect((await h.request('GET', '/api-tokens', { key: regularKey })).status).toBe(200);
    // Beyond its scopes the API refuses it, as for any key.
    expect((await h.request('GET', '/api/v1/billing/balance', { key: regularKey })).status).toBe(403);

    const delegated = await client.submit('/portal/api-keys?env=test', '/portal/api-keys/delegated', {
      env: 'test',
      parent_key_id: regularId,
      name: 'Reader',
      spend_limit_cents: '500',
      spend_reset_period: 'monthly',
      ...scopeFields('numbers:read', 'read'),
    });
    expect(delegated.status).toBe(201);
    const token = plaintextOf(delegated);
    expect(token).not.toBe(regularKey);
    expect((await h.request('GET', '/api/v1/lines', { key: token })).status).toBe(200);
    expect((await h.request('GET', '/api-tokens', { key: token })).status).toBe(403);
    const listed = await h.request('GET', '/api-tokens', { key: regularKey });
    expect(listed.body.api_tokens.find((t: { name: string }) => t.name === 'Reader')).toMatchObject({
      parent_key_id: regularId,
      grant: { scopes: ['numbers:read', 'read'], spendLimit: { amountCents: 500, resetPeriod: 'monthly' } },
    });

    // Neither plaintext is on any later page; the list shows prefixes, grants and status.
    const later = await client.get('/portal/api-keys?env=test');
    expect(later.text).not.toContain(regularKey);
    expect(later.text).not.toContain(token);
    expect(later.text).toContain(regularKey.slice(0, 16));
    expect(later.text).toContain('limit: 500 cents a month');
    expect((await client.get('/portal/audit?env=test')).text).not.toContain(token);
    // Test and live keys never mix: the live page lists none, and a key minted there is a live key.
    expect((await client.get('/portal/api-keys?env=live')).text).toContain('id="no-regular-keys"');
    const live = await client.submit('/portal/api-keys?env=live', '/portal/api-keys', {
      env: 'live',
      name: 'Production agent',
      ...scopeFields('read'),
    });
    expect(plaintextOf(live)).toMatch(/^sk_live_/);
    expect(live.text).toContain('<td data-label="Environment">Live</td>');
    expect((await client.get('/portal/api-keys?env=test')).text).not.toContain('Production agent');

    const revoked = await client.submit('/portal/api-keys?env=test', `/portal/api-keys/${regularId}/revoke`, {
      env: 'test',
      confirm: 'yes',
    });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/portal/api-keys?env=test');
    for (const key of [regularKey, token]) {
      const refused = await h.request('GET', '/api/v1/lines', { key });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('invalid_api_key');
    }
    expect(
      (await client.get('/portal/api-keys?env=test')).text.match(/data-status><span class="badge badge-neutral" data-state="revoked"/g),
    ).toHaveLength(2);

    // The audit records both mints and both revocations, as the API's own paths would.
    const events = await h.db('compliance_events').where({ workspace_id: workspaceId });
    const about = (type: string, keyId: string) =>
      events.find((e: { event_type: string; metadata: { key_id: string } }) => e.event_type === type && e.metadata.key_id === keyId);
    const tokenId = listed.body.api_tokens.find((t: { name: string }) => t.name === 'Reader').id;
    expect(events).toHaveLength(5);
    expect(about('scoped_key_minted', regularId)).toMatchObject({ actor_key_id: null, metadata: { via: 'portal' } });
    expect(about('scoped_key_minted', tokenId)).toMatchObject({ actor_key_id: regularId });
    expect(about('scoped_key_revoked', regularId)).toMatchObject({ actor_key_id: null, metadata: { via: 'portal' } });
    expect(about('scoped_key_revoked', tokenId)).toMatchObject({ metadata: { revoked_with: regularId } });
  });

  it('limits a delegated token to a line; refuses one beyond its parent, an unknown line, a parent without keys:admin, a key with no scope', async () => {
    const { client, workspaceId } = await operator();
    const plain = await client.submit('/portal/api-keys?env=test', '/portal/api-keys', {
      env: 'test',
      name: 'Plain',
      ...scopeFields('read'),
    });
    const plainId = rowOf(plain, plaintextOf(plain).slice(0, 16))!;
    const admin = await client.submit('/portal/api-keys?env=test', '/portal/api-keys', {
      env: 'test',
      name: 'Admin',
      ...scopeFields('keys:admin', 'numbers:provision', 'numbers:read', 'read'),
    });
    const adminKey = plaintextOf(admin);
    const adminId = rowOf(admin, adminKey.slice(0, 16))!;
    // A token limited to one line of the workspace, as `grant.resources.numbers` limits it.
    const line = await h.request('POST', '/api/v1/lines', { key: adminKey, body: { name: 'Only', mode: 'hosted', system_prompt: 'x' } });
    expect(line.status).toBe(201);
    const limited = await client.submit('/portal/api-keys?env=test', '/portal/api-keys/delegated', {
      env: 'test',
      parent_key_id: adminId,
      name: 'One line',
      [`line.${line.body.line.id}`]: 'on',
      ...scopeFields('numbers:read', 'read'),
    });
    expect(limited.status).toBe(201);
    const tokens = (await h.request('GET', '/api-tokens', { key: adminKey })).body.api_tokens;
    expect(tokens.find((t: { name: string }) => t.name === 'One line').grant.resources).toEqual({ numbers: [line.body.line.id] });
    const count = async () => (await h.db('api_keys').where({ workspace_id: workspaceId })).length;
    const before = await count();

    const noAdmin = await client.submit('/portal/api-keys?env=test', '/portal/api-keys/delegated', {
      env: 'test',
      parent_key_id: plainId,
      name: 'x',
      ...scopeFields('read'),
    });
    expect(noAdmin.status).toBe(403);
    expect(noAdmin.text).toContain('lacks keys:admin');

    const beyond = await client.submit('/portal/api-keys?env=test', '/portal/api-keys/delegated', {
      env: 'test',
      parent_key_id: adminId,
      name: 'Caller',
      ...scopeFields('calls:create', 'read'),
    });
    expect(beyond.status).toBe(403);
    expect(beyond.text).toContain('grant.scopes');
    expect(beyond.text).toContain('calls:create');
    expect(beyond.text).toContain('value="Caller"');

    const unknownLine = await client.submit('/portal/api-keys?env=test', '/portal/api-keys/delegated', {
      env: 'test',
      parent_key_id: adminId,
      name: 'Elsewhere',
      [`line.${crypto.randomUUID()}`]: 'on',
      ...scopeFields('read'),
    });
    expect(unknownLine.status).toBe(422);
    expect(unknownLine.text).toContain('grant.resources.numbers');

    const none = await client.submit('/portal/api-keys?env=test', '/portal/api-keys', { env: 'test', name: 'Empty' });
    expect(none.status).toBe(422);
    expect(none.text).toContain('Choose at least one scope');
    const long = await client.submit('/portal/api-keys?env=test', '/portal/api-keys', {
      env: 'test',
      name: 'n'.repeat(201),
      ...scopeFields('read'),
    });
    expect(long.status).toBe(422);
    expect(long.text).toContain('at most 200 characters');
    expect(await count()).toBe(before);
  });

  it('refuses a post without the CSRF token, a plain member, and another workspace’s key id (404)', async () => {
    const { client, workspaceId } = await operator();
    const minted = await client.submit('/portal/api-keys?env=test', '/portal/api-keys', {
      env: 'test',
      name: 'Mine',
      ...scopeFields('read'),
    });
    const keyId = rowOf(minted, plaintextOf(minted).slice(0, 16))!;

    const noCsrf = await client.post(`/portal/api-keys/${keyId}/revoke`, { env: 'test', confirm: 'yes' });
    expect(noCsrf.status).toBe(403);
    expect((await client.post('/portal/api-keys', { env: 'test', name: 'x', ...scopeFields('read') })).status).toBe(403);

    const memberClient = await signInMember(h.apiUrl, h.db, workspaceId);
    const shown = await memberClient.get('/portal/api-keys?env=test');
    expect(shown.text).toContain('Your role cannot mint or revoke API keys');
    expect(shown.text).not.toContain(`/portal/api-keys/${keyId}/revoke`);
    const memberMint = await memberClient.submit('/portal/api-keys?env=test', '/portal/api-keys', {
      env: 'test',
      name: 'x',
      ...scopeFields('read'),
    });
    expect(memberMint.status).toBe(403);
    const memberRevoke = await memberClient.submit('/portal/api-keys?env=test', `/portal/api-keys/${keyId}/revoke`, {
      env: 'test',
      confirm: 'yes',
    });
    expect(memberRevoke.status).toBe(403);

    const other = await operator();
    const theirs = await other.client.submit('/portal/api-keys?env=test', `/portal/api-keys/${keyId}/revoke`, {
      env: 'test',
      confirm: 'yes',
    });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toContain('not_found');
    expect(
      (await other.client.submit('/portal/api-keys?env=test', '/portal/api-keys/not-a-key/revoke', { env: 'test', confirm: 'yes' })).status,
    ).toBe(404);
    // The other environment does not hold it either.
    expect(
      (await client.submit('/portal/api-keys?env=live', `/portal/api-keys/${keyId}/revoke`, { env: 'live', confirm: 'yes' })).status,
    ).toBe(404);
    expect(await h.db('api_keys').where({ id: keyId }).first()).toMatchObject({ revoked_at: null });
  });
  it("lists a key the CLI's `key create` minted (through the same use case, audited with via cli) and revokes it", async () => {
    const { client, workspaceId } = await operator();
    const created = await runCommand(h.db, ['key', 'create'], {
      workspace: workspaceId,
      env: 'test',
      name: 'From CLI',
      scopes: 'read,numbers:read',
    });
    const page = await client.get('/portal/api-keys?env=test');
    expect(page.text).toContain(`data-key-id="${created.id}"`);
    expect(page.text).not.toContain(String(created.key));
    expect(
      (await client.submit('/portal/api-keys?env=test', `/portal/api-keys/${created.id}/revoke`, { env: 'test', confirm: 'yes' })).status,
    ).toBe(303);
    expect((await h.request('GET', '/api/v1/lines', { key: String(created.key) })).status).toBe(401);
    const events = await h.db('compliance_events').where({ workspace_id: workspaceId });
    expect(events.map((e: { event_type: string; metadata: { via: string } }) => [e.event_type, e.metadata.via]).sort()).toEqual([
      ['scoped_key_minted', 'cli'],
      ['scoped_key_revoked', 'portal'],
    ]);
  });
});
