import crypto from 'node:crypto';
import { runCommand } from '../../src/main/cli';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { eventually } from '../support/harness';
import { mailedInvitationToken, PortalClient, type PortalResponse, signUpOperator, OPERATOR_PASSWORD } from '../support/portalClient';
import { linkIn } from '../support/smtpReceiver';
import { joinAs, newEmail } from '../support/portalMembers';
import { useSuite } from '../support/suite';

const PASSWORD = OPERATOR_PASSWORD;
const JSON_ACCEPT = { accept: 'application/json' };

/** Members and invitations over HTTP: invite, accept, roles gating the page, owners protected, tokens used once. */
describe('portal members and invitations', () => {
  const { h } = useSuite({ portal: true });

  const owner = () => signUpOperator(h, 'owner');

  const tokenOf = (link: string) => new URL(link, 'http://portal').searchParams.get('token')!;

  async function invite(client: PortalClient, email: string, role: string): Promise<PortalResponse> {
    return client.submit('/portal/members', '/portal/members/invite', { email, role });
  }

  /** Invites (as JSON), accepts in a fresh browser, and returns the member's signed-in client. */
  const member = (inviter: PortalClient, role: string) => joinAs(h, inviter, role);

  /** An invitation sent as the members form does, asking for the JSON answer. */
  const inviteJson = (inviter: PortalClient, invitation: { email: string; role: string }) =>
    inviter.submit('/portal/members', '/portal/members/invite', invitation, JSON_ACCEPT);

  it('invites by email with a role, mails the link to the invitee only, stores only its hash; the invitee joins and logs in', async () => {
    const boss = await owner();
    const email = newEmail('Invitee');
    const page = await invite(boss.client, email, 'admin');
    expect(page.status).toBe(201);
    expect(page.text).toContain('We mailed the invitation link');
    const mail = await h.mail.waitForMail(email, { subject: /You are invited/ });
    expect(mail.text).toContain(`${boss.email} invites you`);
    const link = linkIn(mail, '/portal/invite');
    expect(link).toMatch(/^\/portal\/invite\?token=[A-Za-z0-9_-]{43}$/);
    const token = tokenOf(link);
    // Issue 27, H5: the inviter never sees the link, so accepting it proves the invitee's address.
    expect(page.text).not.toContain(token);
    const row = await h.db('member_invitations').where({ workspace_id: boss.workspaceId }).first();
    expect(row).toMatchObject({ email: email.toLowerCase(), role: 'admin', accepted_at: null, revoked_at: null });
    expect(row.token_hash).toBe(crypto.createHash('sha256').update(token).digest('hex'));
    expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBe(7 * 24 * 3600 * 1000);
    // Shown once: the members page afterwards lists the pending invitation, not its link.
    const again = await boss.client.get('/portal/members');
    expect(again.text).toContain(email.toLowerCase());
    expect(again.text).not.toContain(token);

    const invitee = new PortalClient(h.apiUrl);
    const form = await invitee.get(`/portal/invite?token=${token}`);
    expect(form.status).toBe(200);
    expect(form.text).toMatch(new RegExp(`name="email"[^>]*readonly value="${email.toLowerCase().replace('+', '\\+')}"`));
    const weak = await invitee.post('/portal/invite', { csrf_token: PortalClient.csrfOf(form), token, password: 'short' });
    expect(weak.status).toBe(422);
    const joined = await invitee.post('/portal/invite', { csrf_token: PortalClient.csrfOf(form), token, password: PASSWORD });
    expect(joined.status).toBe(303);
    expect(joined.headers.get('location')).toBe('/portal');
    expect((await invitee.get('/portal')).status).toBe(200);
    const user = await h.db('users').where({ email: email.toLowerCase() }).first();
    expect(user).toMatchObject({ workspace_id: boss.workspaceId, role: 'admin' });

    const fresh = new PortalClient(h.apiUrl);
    const login = await fresh.submit('/portal/login', '/portal/login', { email, password: PASSWORD }, JSON_ACCEPT);
    expect(login.status).toBe(200);
    expect(JSON.parse(login.text).user_id).toBe(user.id);
    expect((await boss.client.get('/portal/members')).text).toMatch(new RegExp(`data-user-id="${user.id}"`));
  });

  it('a used, revoked, expired or unknown link gets the same invitation_invalid answer', async () => {
    const boss = await owner();
    const invited = async () => {
      const email = newEmail('x');
      await inviteJson(boss.client, { email, role: 'member' });
      return mailedInvitationToken(h.mail, email);
    };
    const revokedToken = await invited();
    const revokedRow = await h
      .db('member_invitations')
      .where({ token_hash: crypto.createHash('sha256').update(revokedToken).digest('hex') })
      .first();
    const revoke = await boss.client.submit('/portal/members', `/portal/invitations/${revokedRow.id}/revoke`, { confirm: 'yes' });
    expect(revoke.status).toBe(303);
    const expiredToken = await invited();
    await h
      .db('member_invitations')
      .where({ token_hash: crypto.createHash('sha256').update(expiredToken).digest('hex') })
      .update({ expires_at: new Date(Date.now() - 1000) });

    const visitor = new PortalClient(h.apiUrl);
    const answers: string[] = [];
    for (const token of [revokedToken, expiredToken, crypto.randomBytes(32).toString('base64url')]) {
      const page = await visitor.get(`/portal/invite?token=${token}`);
      expect(page.status).toBe(404);
      expect(page.text).toContain('invitation_invalid');
      answers.push(page.text);
    }
    expect(new Set(answers).size).toBe(1);

    // Single use: accepting a used token again (e.g. a second tab) is refused.
    const token = await invited();
    const first = new PortalClient(h.apiUrl);
    const form = await first.get(`/portal/invite?token=${token}`);
    expect((await first.post('/portal/invite', { csrf_token: PortalClient.csrfOf(form), token, password: PASSWORD })).status).toBe(303);
    const second = new PortalClient(h.apiUrl);
    const secondForm = await second.get('/portal/login');
    const replay = await second.post(
      '/portal/invite',
      { csrf_token: PortalClient.csrfOf(secondForm), token, password: PASSWORD },
      JSON_ACCEPT,
    );
    expect(replay.status).toBe(404);
    expect(JSON.parse(replay.text).error.code).toBe('invitation_invalid');
  });

  it('refuses an accept without the form token (CSRF)', async () => {
    const boss = await owner();
    const email = newEmail('c');
    await inviteJson(boss.client, { email, role: 'member' });
    const visitor = new PortalClient(h.apiUrl);
    const res = await visitor.post('/portal/invite', { token: await mailedInvitationToken(h.mail, email), password: PASSWORD });
    expect(res.status).toBe(403);
    expect(await h.db('member_invitations').where({ workspace_id: boss.workspaceId }).whereNotNull('accepted_at').first()).toBeUndefined();
  });

  it('a member can neither see the members page nor invite', async () => {
    const boss = await owner();
    const plain = await member(boss.client, 'member');
    const page = await plain.client.get('/portal/members');
    expect(page.status).toBe(403);
    expect(page.text).toContain('forbidden');
    const overview = await plain.client.get('/portal');
    const res = await plain.client.post('/portal/members/invite', {
      csrf_token: PortalClient.csrfOf(overview),
      email: newEmail('y'),
      role: 'member',
    });
    expect(res.status).toBe(403);
    expect(await h.db('member_invitations').where({ workspace_id: boss.workspaceId }).count<{ count: string }[]>({ count: '*' })).toEqual([
      { count: '1' },
    ]);
    expect((await new PortalClient(h.apiUrl).get('/portal/members')).headers.get('location')).toBe('/portal/login');
  });

  it('an admin manages members but cannot touch, make or invite an owner; the last owner cannot be demoted', async () => {
    const boss = await owner();
    const admin = await member(boss.client, 'admin');
    const plain = await member(boss.client, 'member');

    const promote = await admin.client.submit('/portal/members', `/portal/members/${plain.userId}/role`, { role: 'admin', confirm: 'yes' });
    expect(promote.status).toBe(303);
    expect((await h.db('users').where({ id: plain.userId }).first()).role).toBe('admin');

    for (const [target, role] of [
      [boss.userId, 'member'],
      [plain.userId, 'owner'],
    ]) {
      const res = await admin.client.submit('/portal/members', `/portal/members/${target}/role`, { role, confirm: 'yes' }, JSON_ACCEPT);
      expect(res.status).toBe(403);
    }
    const ownerInvite = await inviteJson(admin.client, { email: newEmail('o'), role: 'owner' });
    expect(ownerInvite.status).toBe(403);
    expect((await h.db('users').where({ id: boss.userId }).first()).role).toBe('owner');

    const lastOwner = await boss.client.submit(
      '/portal/members',
      `/portal/members/${boss.userId}/role`,
      { role: 'admin', confirm: 'yes' },
      JSON_ACCEPT,
    );
    expect(lastOwner.status).toBe(409);
    expect(JSON.parse(lastOwner.text).error.code).toBe('last_owner');
    // With a second owner, the first may step down.
    expect(
      (await boss.client.submit('/portal/members', `/portal/members/${admin.userId}/role`, { role: 'owner', confirm: 'yes' })).status,
    ).toBe(303);
    expect(
      (await boss.client.submit('/portal/members', `/portal/members/${boss.userId}/role`, { role: 'admin', confirm: 'yes' })).status,
    ).toBe(303);
    expect((await h.db('users').where({ id: boss.userId }).first()).role).toBe('admin');
  });

  it('removes a member: signed out, cannot log in, keys revoked; an admin cannot remove an owner, nobody the last owner', async () => {
    const boss = await owner();
    const admin = await member(boss.client, 'admin');
    const plain = await member(boss.client, 'member');
    const key = await mintUserKey(h.db, {
      user: { id: plain.userId, workspace_id: boss.workspaceId, email: plain.email, role: 'member' },
      environment: 'test',
      kind: 'standard',
      name: 'theirs',
    });
    expect((await fetch(`${h.apiUrl}/api/v1/lines`, { headers: { authorization: `Bearer ${key.plaintext}` } })).status).toBe(200);

    const removed = await admin.client.submit('/portal/members', `/portal/members/${plain.userId}/remove`, { confirm: 'yes' }, JSON_ACCEPT);
    expect(removed.status).toBe(200);
    expect(JSON.parse(removed.text)).toMatchObject({ removed: true, revoked_keys: 1 });
    expect((await plain.client.get('/portal')).headers.get('location')).toBe('/portal/login');
    const login = await new PortalClient(h.apiUrl).submit(
      '/portal/login',
      '/portal/login',
      { email: plain.email, password: PASSWORD },
      JSON_ACCEPT,
    );
    expect(login.status).toBe(401);
    const refused = async () =>
      (await fetch(`${h.apiUrl}/api/v1/lines`, { headers: { authorization: `Bearer ${key.plaintext}` } })).status === 401
        ? true
        : undefined;
    expect(await eventually(refused, 10_000, "the removed member's key refused")).toBe(true);
    expect((await boss.client.get('/portal/members')).text).not.toContain(`data-user-id="${plain.userId}"`);
    // Nor can a script mint a key for them.
    await expect(
      runCommand(h.db, ['key', 'create'], { workspace: boss.workspaceId, user: plain.userId, env: 'test', json: true }),
    ).rejects.toThrow(/not found/);

    const adminOnOwner = await admin.client.submit(
      '/portal/members',
      `/portal/members/${boss.userId}/remove`,
      { confirm: 'yes' },
      JSON_ACCEPT,
    );
    expect(adminOnOwner.status).toBe(403);
    const lastOwner = await boss.client.submit('/portal/members', `/portal/members/${boss.userId}/remove`, { confirm: 'yes' }, JSON_ACCEPT);
    expect(lastOwner.status).toBe(409);
    expect(JSON.parse(lastOwner.text).error.code).toBe('last_owner');
  });

  it("another workspace's members and invitations are invisible and untouchable", async () => {
    const first = await owner();
    const other = await owner();
    const theirs = await member(other.client, 'member');
    const page = await first.client.get('/portal/members');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(other.email);
    expect(page.text).not.toContain(theirs.email);
    const res = await first.client.submit(
      '/portal/members',
      `/portal/members/${theirs.userId}/role`,
      { role: 'admin', confirm: 'yes' },
      JSON_ACCEPT,
    );
    expect(res.status).toBe(404);
    const pending = await inviteJson(other.client, { email: newEmail('p'), role: 'member' });
    const revoke = await first.client.submit(
      '/portal/members',
      `/portal/invitations/${JSON.parse(pending.text).id}/revoke`,
      { confirm: 'yes' },
      JSON_ACCEPT,
    );
    expect(revoke.status).toBe(404);
    expect((await h.db('users').where({ id: theirs.userId }).first()).role).toBe('member');
  });

  it('the CLI issues the same invitation link, with which a script-made user gets a password', async () => {
    const boss = await owner();
    const email = newEmail('cli');
    const result = await runCommand(h.db, ['member', 'invite'], { workspace: boss.workspaceId, email, role: 'member' });
    expect(result).toMatchObject({ workspace_id: boss.workspaceId, email: email.toLowerCase(), role: 'member' });
    const token = tokenOf(String(result.link));
    const invitee = new PortalClient(h.apiUrl);
    const form = await invitee.get(`/portal/invite?token=${token}`);
    expect(form.status).toBe(200);
    expect((await invitee.post('/portal/invite', { csrf_token: PortalClient.csrfOf(form), token, password: PASSWORD })).status).toBe(303);
    expect(await h.db('users').where({ email: email.toLowerCase() }).first()).toMatchObject({
      workspace_id: boss.workspaceId,
      role: 'member',
    });
    await expect(runCommand(h.db, ['member', 'invite'], { workspace: boss.workspaceId, email, role: 'member' })).rejects.toThrow(
      /already belongs/,
    );
  });
});
