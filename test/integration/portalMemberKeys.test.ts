import crypto from 'node:crypto';
import { SCOPES } from '../../src/domain/keys/scopes';
import { applyEarlierMembershipChanges } from '../../src/platform/db/migrations/0036_keys_minted_by';
import { eventually } from '../support/harness';
import { PortalClient, type PortalResponse, signUpOperator } from '../support/portalClient';
import { inviteInPortal, joinAs, newEmail } from '../support/portalMembers';
import { useSuite } from '../support/suite';

const JSON_ACCEPT = { accept: 'application/json' };

/**
 * What a member's keys and invitations become when an owner demotes or removes them (issue 27,
 * M12/M13), acted out as the member who expects it: keys minted while admin, delegated tokens
 * minted under another's key, invitations kept in reserve.
 */
describe('portal membership changes reach keys and invitations', () => {
  const { h } = useSuite({ portal: true });

  const plaintextOf = (page: PortalResponse) => /id="minted-key"[^>]*>([^<]+)</.exec(page.text)![1];
  const scopeFields = (...scopes: readonly string[]) => Object.fromEntries(scopes.map((scope) => [`scope.${scope}`, 'on']));
  const keyIdOf = async (plaintext: string): Promise<string> =>
    (
      await h
        .db('api_keys')
        .where({ key_prefix: plaintext.slice(0, 16) })
        .first('id')
    ).id;

  async function mintRegular(client: PortalClient, name: string, scopes: readonly string[]): Promise<string> {
    const page = await client.submit('/portal/api-keys?env=test', '/portal/api-keys', { env: 'test', name, ...scopeFields(...scopes) });
    expect(page.status).toBe(201);
    return plaintextOf(page);
  }

  const mintDelegated = (client: PortalClient, parentKeyId: string, name: string, scopes: readonly string[]) =>
    client.submit('/portal/api-keys?env=test', '/portal/api-keys/delegated', {
      env: 'test',
      parent_key_id: parentKeyId,
      name,
      ...scopeFields(...scopes),
    });

  /** What the invitation link's page answers a newcomer: its status and error code. */
  const invitationAnswer = async (token: string) => {
    const res = await new PortalClient(h.apiUrl).get(`/portal/invite?token=${token}`, JSON_ACCEPT);
    return `${res.status} ${res.status === 200 ? 'form' : JSON.parse(res.text).error.code}`;
  };

  const api = (method: string, path: string, key: string, body?: unknown) => h.request(method, path, { key, body });

  /** The key is refused by every API instance once the change commits (the key cache is told). */
  const refusedEventually = (key: string, what: string) =>
    eventually(async () => ((await api('GET', '/api/v1/lines', key)).status === 401 ? true : undefined), 10_000, what);

  it('a demoted admin’s full key can no longer release, re-point or buy lines nor administer keys; their invitations die', async () => {
    const boss = await signUpOperator(h, 'owner');
    const admin = await joinAs(h, boss.client, 'admin');
    // While admin: a key with every scope, a token below it that only provisions, and invitations kept in reserve.
    const full = await mintRegular(admin.client, 'Everything', SCOPES);
    const provisioner = await mintDelegated(admin.client, await keyIdOf(full), 'Buyer', ['numbers:provision']);
    expect(provisioner.status).toBe(201);
    const buyer = plaintextOf(provisioner);
    const adminInvite = await inviteInPortal(h, admin.client, newEmail('backup'), 'admin');
    const memberInvite = await inviteInPortal(h, admin.client, newEmail('friend'), 'member');
    const someLine = crypto.randomUUID();
    expect((await api('DELETE', `/api/v1/lines/${someLine}`, full)).status).toBe(404);

    const demoted = await boss.client.submit(
      '/portal/members',
      `/portal/members/${admin.userId}/role`,
      { role: 'member', confirm: 'yes' },
      JSON_ACCEPT,
    );
    expect(demoted.status).toBe(200);

    const refusedFor = async (method: string, path: string, body?: unknown) => {
      const res = await api(method, path, full, body);
      return res.status === 403 ? res.body.error.code : `${res.status}`;
    };
    expect(await refusedFor('DELETE', `/api/v1/lines/${someLine}`)).toBe('forbidden');
    expect(await refusedFor('PATCH', `/api/v1/lines/${someLine}`, { webhook_url: 'https://attacker.example/hook' })).toBe('forbidden');
    expect(await refusedFor('POST', '/api/v1/lines', { name: 'more' })).toBe('forbidden');
    expect(await refusedFor('GET', '/api-tokens')).toBe('forbidden');
    expect(await refusedFor('POST', '/api-tokens', { name: 'again', grant: { scopes: ['read'] } })).toBe('forbidden');
    expect(JSON.parse(demoted.text)).toMatchObject({ role: 'member', narrowed_keys: 1, revoked_keys: 1, revoked_invitations: 2 });
    // What a member may still do, the key still does: the member's agents keep working.
    expect((await api('GET', '/api/v1/lines', full)).status).toBe(200);
    const row = await h
      .db('api_keys')
      .where({ key_prefix: full.slice(0, 16) })
      .first();
    expect([...row.scopes].sort()).toEqual(
      [
        'billing:read',
        'calls:control',
        'calls:create',
        'connections:read',
        'consent:write',
        'messages:create',
        'numbers:read',
        'read',
      ].sort(),
    );
    // A token left with no scope the role holds is revoked.
    expect(await refusedEventually(buyer, 'the token with only numbers:provision refused')).toBe(true);
    for (const link of [adminInvite, memberInvite]) expect(await invitationAnswer(link)).toBe('404 invitation_invalid');
    // The log names the owner who demoted them, in the portal.
    const updated = await h.db('compliance_events').where({ workspace_id: boss.workspaceId, event_type: 'scoped_key_updated' });
    expect(updated).toHaveLength(1);
    expect(updated[0].metadata).toMatchObject({ key_id: row.id, user_id: boss.userId, via: 'portal', member_user_id: admin.userId });

    // The owner then revokes the key in the portal: the revocation names them too, and the audit page shows who.
    const revoked = await boss.client.submit('/portal/api-keys?env=test', `/portal/api-keys/${row.id}/revoke`, {
      env: 'test',
      confirm: 'yes',
    });
    expect(revoked.status).toBe(303);
    const revocation = await h
      .db('compliance_events')
      .where({ workspace_id: boss.workspaceId, event_type: 'scoped_key_revoked' })
      .whereRaw("metadata->>'key_id' = ?", [row.id])
      .first();
    expect(revocation.metadata).toMatchObject({ user_id: boss.userId, via: 'portal' });
    const audit = await boss.client.get('/portal/audit?env=test&event_type=scoped_key_updated');
    expect(audit.text).toContain(`data-portal-user>${boss.email.toLowerCase()}</td>`);
  });

  it('an admin mints only below their own keys; an owner who mints below another’s key is its minter, and removal reaches it', async () => {
    const boss = await signUpOperator(h, 'owner');
    const ownerKey = await mintRegular(boss.client, 'Owner root', SCOPES);
    const admin = await joinAs(h, boss.client, 'admin');
    const adminKey = await mintRegular(admin.client, 'Admin root', SCOPES);

    // The owner's key is neither offered to the admin nor accepted from them.
    const page = await admin.client.get('/portal/api-keys?env=test');
    expect(page.text).not.toMatch(new RegExp(`<option value="${await keyIdOf(ownerKey)}"`));
    expect(page.text).toMatch(new RegExp(`<option value="${await keyIdOf(adminKey)}"`));
    const refused = await mintDelegated(admin.client, await keyIdOf(ownerKey), 'Escape hatch', SCOPES);
    expect(refused.status).toBe(403);
    expect(await h.db('api_keys').where({ workspace_id: boss.workspaceId, name: 'Escape hatch' }).first()).toBeUndefined();

    // Their own delegated token names them as its minter, and an invitation they issued waits.
    const own = await mintDelegated(admin.client, await keyIdOf(adminKey), 'Reader', ['read']);
    expect(own.status).toBe(201);
    const reader = plaintextOf(own);
    const minted = await h
      .db('compliance_events')
      .where({ workspace_id: boss.workspaceId, event_type: 'scoped_key_minted' })
      .whereRaw("metadata->>'key_id' = ?", [await keyIdOf(reader)])
      .first();
    expect(minted.metadata).toMatchObject({ user_id: admin.userId, via: 'portal' });
    expect((await boss.client.get('/portal/api-keys?env=test')).text).toContain(`${admin.email} below`);
    const reserve = await inviteInPortal(h, admin.client, newEmail('backup'), 'admin');

    // A second owner mints below the first owner's key; removing the second owner revokes that token.
    const coOwner = await joinAs(h, boss.client, 'owner');
    const below = await mintDelegated(coOwner.client, await keyIdOf(ownerKey), 'Co-owner token', ['read']);
    expect(below.status).toBe(201);
    const coOwnerToken = plaintextOf(below);
    expect(
      (
        await h
          .db('api_keys')
          .where({ key_prefix: coOwnerToken.slice(0, 16) })
          .first()
      ).minted_by_user_id,
    ).toBe(coOwner.userId);

    for (const gone of [admin, coOwner]) {
      const removed = await boss.client.submit('/portal/members', `/portal/members/${gone.userId}/remove`, { confirm: 'yes' }, JSON_ACCEPT);
      expect(removed.status).toBe(200);
    }
    expect(await refusedEventually(reader, "the removed admin's token refused")).toBe(true);
    expect(await refusedEventually(coOwnerToken, "the removed co-owner's token below the owner's key refused")).toBe(true);
    expect((await api('GET', '/api/v1/lines', ownerKey)).status).toBe(200);
    expect(await invitationAnswer(reserve)).toBe('404 invitation_invalid');
  });

  it('narrows what demotions before this release left behind, once, as the migration that adds minted_by runs', async () => {
    const boss = await signUpOperator(h, 'owner');
    const admin = await joinAs(h, boss.client, 'admin');
    const full = await mintRegular(admin.client, 'Everything', SCOPES);
    const buyer = plaintextOf(await mintDelegated(admin.client, await keyIdOf(full), 'Buyer', ['numbers:provision']));
    const reserve = await inviteInPortal(h, admin.client, newEmail('backup'), 'admin');
    // A demotion as it was before issue 27: the role alone changed.
    await h.db('users').where({ id: admin.userId }).update({ role: 'member' });

    const applied = await applyEarlierMembershipChanges(h.db, h.clock.now(), boss.workspaceId);
    expect(applied).toEqual({ narrowed: 1, revoked: 1, invitations: 1 });
    expect((await api('DELETE', `/api/v1/lines/${crypto.randomUUID()}`, full)).status).toBe(403);
    expect((await api('GET', '/api/v1/lines', full)).status).toBe(200);
    expect((await api('GET', '/api/v1/lines', buyer)).status).toBe(401);
    expect(await invitationAnswer(reserve)).toBe('404 invitation_invalid');
    const events = await h
      .db('compliance_events')
      .where({ workspace_id: boss.workspaceId })
      .whereIn('event_type', ['scoped_key_updated', 'scoped_key_revoked']);
    expect(events.map((e: { event_type: string }) => e.event_type).sort()).toEqual(['scoped_key_revoked', 'scoped_key_updated']);
    for (const event of events) expect(event.metadata).toMatchObject({ reason: 'member_demoted', via: 'migration_0036' });
    // Once: nothing left to change.
    expect(await applyEarlierMembershipChanges(h.db, h.clock.now(), boss.workspaceId)).toEqual({ narrowed: 0, revoked: 0, invitations: 0 });
  });
});
