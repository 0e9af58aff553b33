import crypto from 'node:crypto';
import { eventually } from '../support/harness';
import {
  createLineInPortal,
  mailedInvitationToken,
  PortalClient,
  placeTestCallInPortal,
  signInMember,
  signUpOperator,
  type PortalResponse,
} from '../support/portalClient';
import { joinAs } from '../support/portalMembers';
import { useSuite } from '../support/suite';
import { decryptedHistory } from '../../dev/temporalHistory';

/**
 * Destructive portal actions (issue 30 item 3) as an operator and an attacker: one click only opens the question; a
 * post without `confirm=yes` (a one-click form, a replay, a script) changes nothing and shows it again; with it, it
 * happens; a stale page gets what changed and the current state, never a 404.
 */
describe('portal confirmations', () => {
  const { h, receiver } = useSuite({ portal: true, worker: true, receiver: true });

  const shownError = (page: PortalResponse) => /<strong class="code">([^<]+)<\/strong>/.exec(page.text)?.[1];
  /** How many `hangup` signals the call's workflow has received (its id is the call's). */
  const hangUpsSignalled = async (callId: string) =>
    (await decryptedHistory(h.temporal, callId)).events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'hangup')
      .length;
  const consequences = (page: PortalResponse) => /<ul id="consequences">([\s\S]*?)<\/ul>/.exec(page.text)?.[1] ?? '';

  /** GETs the confirmation at `path` and posts its own form back (its CSRF token and hidden fields), with or without `confirm`. */
  async function answer(client: PortalClient, path: string, confirm: boolean): Promise<PortalResponse> {
    const page = await client.get(path);
    expect(page.status).toBe(200);
    const action = path.split('?')[0];
    const form: Record<string, string> = { csrf_token: PortalClient.csrfOf(page), env: 'test' };
    if (confirm) form.confirm = 'yes';
    return client.post(action, form);
  }

  async function webhookLine(client: PortalClient, name: string) {
    return (await createLineInPortal(client, { name, mode: 'webhook', webhook_url: receiver.url })).lineId;
  }

  it('releases a line only once confirmed, says what happens to its number, and answers a stale release with its state', async () => {
    const { client, workspaceId } = await signUpOperator(h, 'release');
    const lineId = await webhookLine(client, 'Front desk');
    const number = (await h.db('lines').where({ id: lineId }).first()).phone_number as string;

    const linePage = await client.get(`/portal/lines/${lineId}?env=test`);
    expect(linePage.text).toContain(`href="/portal/lines/${lineId}/release?env=test"`);
    const asked = await client.get(`/portal/lines/${lineId}/release?env=test`);
    expect(asked.text).toContain('Release the line Front desk?');
    expect(consequences(asked)).toContain(number);
    expect(consequences(asked)).toContain('given back to the carrier');
    expect(asked.text).toContain('name="confirm" value="yes"');

    // The one-click post (no confirmation), a forged one (confirmed, no CSRF token) and a plain member: nothing changes.
    const unconfirmed = await answer(client, `/portal/lines/${lineId}/release?env=test`, false);
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.text).toContain('id="confirmation"');
    const script = await client.post(
      `/portal/lines/${lineId}/release`,
      { csrf_token: PortalClient.csrfOf(asked), env: 'test' },
      { accept: 'application/json' },
    );
    expect(script.status).toBe(422);
    expect(JSON.parse(script.text).error.details[0].field).toBe('confirm');
    expect((await client.post(`/portal/lines/${lineId}/release`, { env: 'test', confirm: 'yes' })).status).toBe(403);
    const member = await signInMember(h.apiUrl, h.db, workspaceId);
    const memberPage = await member.get('/portal/lines?env=test');
    const byMember = await member.post(`/portal/lines/${lineId}/release`, {
      csrf_token: PortalClient.csrfOf(memberPage),
      env: 'test',
      confirm: 'yes',
    });
    expect(byMember.status).toBe(403);
    // Another workspace's operator: 404, as for a line that does not exist.
    const other = await signUpOperator(h, 'release-other');
    expect((await other.client.get(`/portal/lines/${lineId}/release?env=test`)).status).toBe(404);
    const otherPage = await other.client.get('/portal/lines?env=test');
    const theirs = await other.client.post(`/portal/lines/${lineId}/release`, {
      csrf_token: PortalClient.csrfOf(otherPage),
      env: 'test',
      confirm: 'yes',
    });
    expect(theirs.status).toBe(404);
    expect((await h.db('lines').where({ id: lineId }).first()).status).toBe('active');

    const released = await answer(client, `/portal/lines/${lineId}/release?env=test`, true);
    expect(released.status).toBe(303);
    expect(released.headers.get('location')).toBe(`/portal/lines/${lineId}?env=test&released=1`);
    expect((await h.db('lines').where({ id: lineId }).first()).status).toBe('released');
    expect((await client.get(released.headers.get('location')!)).text).toContain('Line released.');

    // The same confirmation again (a second tab, a reload): what changed and the state, never a 404.
    const stale = await client.post(`/portal/lines/${lineId}/release`, {
      csrf_token: PortalClient.csrfOf(asked),
      env: 'test',
      confirm: 'yes',
    });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('This line is already released.');
    expect(stale.text).toContain('id="current-state"');
    expect(stale.text).not.toContain('name="confirm"');
    const reloaded = await client.get(`/portal/lines/${lineId}/release?env=test`);
    expect(reloaded.status).toBe(200);
    expect(reloaded.text).toContain('This line is already released.');
  });

  it('rotates a signing secret only once confirmed, with the two-secret window and its dates, and shows the staged secret in the list', async () => {
    const { client } = await signUpOperator(h, 'rotate');
    const lineId = await webhookLine(client, 'Signed');
    const list = await client.get('/portal/lines?env=test');
    expect(list.text).toContain(`href="/portal/lines/${lineId}/rotate-secret?env=test"`);
    expect(list.text).not.toContain('data-secret-staged');

    const asked = await client.get(`/portal/lines/${lineId}/rotate-secret?env=test`);
    expect(consequences(asked)).toContain('The current secret keeps signing');
    expect(consequences(asked)).toMatch(/From <time datetime="[^"]+"/);
    const unconfirmed = await answer(client, `/portal/lines/${lineId}/rotate-secret?env=test`, false);
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.text).not.toMatch(/id="webhook-secret"/);
    expect(await h.db('line_webhook_secrets').where({ line_id: lineId, state: 'next' })).toHaveLength(0);

    const rotated = await answer(client, `/portal/lines/${lineId}/rotate-secret?env=test`, true);
    expect(rotated.status).toBe(200);
    expect(rotated.text).toMatch(/id="webhook-secret"[^>]*>[0-9a-f]{64}</);
    const staged = (await h.db('line_webhook_secrets').where({ line_id: lineId, state: 'next' }).first()) as { created_at: Date };
    const promotable = new Date(staged.created_at.getTime() + 24 * 3600 * 1000).toISOString().slice(0, 16);
    expect(rotated.text).toContain('id="rotation-window"');
    expect(rotated.text).toContain('does not sign yet');

    const after = await client.get('/portal/lines?env=test');
    const cell = /<td[^>]*data-secret-state[^>]*>([\s\S]*?)<\/td>/.exec(after.text)![1];
    expect(cell).toContain('New secret staged');
    expect(cell).toContain(promotable.replace('T', ' '));

    // Rotating again within 24 hours: nothing to do yet, with the time it becomes possible.
    const tooSoon = await client.get(`/portal/lines/${lineId}/rotate-secret?env=test`);
    expect(tooSoon.text).toContain('A new secret is already staged');
    expect(tooSoon.text).not.toContain('name="confirm"');
    const replay = await client.post(`/portal/lines/${lineId}/rotate-secret`, {
      csrf_token: PortalClient.csrfOf(asked),
      env: 'test',
      confirm: 'yes',
    });
    expect(replay.status).toBe(409);
    expect(shownError(replay)).toBeUndefined();
    expect(replay.text).toContain(promotable.replace('T', ' '));
    expect(await h.db('line_webhook_secrets').where({ line_id: lineId, state: 'next' })).toHaveLength(1);
  });

  it('hangs up a call only once confirmed; a second hang-up reads that the call has ended', async () => {
    const { client } = await signUpOperator(h, 'hangup');
    const lineId = (await createLineInPortal(client, { name: 'Desk', mode: 'hosted', system_prompt: 'Be brief.' })).lineId;
    const callId = await placeTestCallInPortal(client, lineId);
    await eventually(async () => ((await h.db('calls').where({ id: callId }).first()).status === 'in_progress' ? true : undefined));
    expect((await client.get(`/portal/calls/${callId}/live?env=test`)).text).toContain(`href="/portal/calls/${callId}/hangup?env=test"`);

    const unconfirmed = await answer(client, `/portal/calls/${callId}/hangup?env=test`, false);
    expect(unconfirmed.status).toBe(200);
    expect(consequences(unconfirmed)).toContain('ends now for both parties');
    // The hang-up is signalled before the post is answered: the unconfirmed one sent none, the confirmed one sends one.
    expect(await hangUpsSignalled(callId)).toBe(0);
    expect((await h.db('calls').where({ id: callId }).first()).status).toBe('in_progress');

    const hungUp = await answer(client, `/portal/calls/${callId}/hangup?env=test`, true);
    expect(hungUp.status).toBe(303);
    expect(await hangUpsSignalled(callId)).toBe(1);
    await eventually(async () => ((await h.db('calls').where({ id: callId }).first()).status === 'completed' ? true : undefined));
    const stale = await answer(client, `/portal/calls/${callId}/hangup?env=test`, true);
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('This call has already ended.');
    expect(stale.text).toContain('Hung up by the API or portal');
  });

  it("changes a member's role only once confirmed, saying what they gain or lose; a stale page shows their role now", async () => {
    const boss = await signUpOperator(h, 'confirm-role');
    const { client } = boss;
    await signInMember(h.apiUrl, h.db, boss.workspaceId);
    const member = await h.db('users').where({ workspace_id: boss.workspaceId, role: 'member' }).first();
    const path = `/portal/members/${member.id}/role`;
    const roleOf = async () => (await h.db('users').where({ id: member.id }).first()).role as string;

    // The members page's role form only opens the question (a GET carrying the role, no token).
    expect((await client.get('/portal/members')).text).toContain(`<form method="get" action="${path}">`);
    const promote = await client.get(`${path}?role=admin`);
    expect(promote.status).toBe(200);
    expect(promote.text).toContain(`Make ${member.email} admin?`);
    expect(consequences(promote)).toContain('Gains: can create lines (buy or import numbers); release lines');
    expect(consequences(promote)).toContain('manage members, invitations, API keys and service keys');
    expect(consequences(promote)).not.toContain('Loses');
    const token = PortalClient.csrfOf(promote);

    // The one-click post of before (no `confirm`), with a valid token: nothing changes, the question is shown.
    const unconfirmed = await client.post(path, { csrf_token: token, role: 'admin' });
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.text).toContain('id="confirmation"');
    expect(await roleOf()).toBe('member');
    const unconfirmedJson = await client.post(path, { csrf_token: token, role: 'admin' }, { accept: 'application/json' });
    expect(unconfirmedJson.status).toBe(422);
    expect(await roleOf()).toBe('member');

    const confirmed = await client.post(path, { csrf_token: token, role: 'admin', confirm: 'yes' });
    expect(confirmed.status).toBe(303);
    expect(await roleOf()).toBe('admin');
    // The same confirmation again (a second tab): what holds now, never a 404.
    const stale = await client.post(path, { csrf_token: token, role: 'admin', confirm: 'yes' });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('id="current-state"');
    const staleJson = await client.post(path, { csrf_token: token, role: 'admin', confirm: 'yes' }, { accept: 'application/json' });
    expect([staleJson.status, JSON.parse(staleJson.text).error.code]).toEqual([409, 'role_unchanged']);
    // A reload of the address without a role shows the member as they are.
    const reload = await client.get(path);
    expect(reload.status).toBe(200);
    expect(reload.text).toContain(`${member.email} is admin`);

    // A demotion says what they lose, and what happens to their keys and invitations.
    const demote = await client.get(`${path}?role=member`);
    expect(consequences(demote)).toContain('Loses: can no longer create lines (buy or import numbers)');
    expect(consequences(demote)).toContain('keeps only the scopes of the new role');
    expect(consequences(demote)).toContain('Pending invitations they sent as admin and member are revoked.');
    expect(consequences(demote)).not.toContain('Gains');
    // An admin is not asked about making an owner: only an owner may.
    const { client: asAdmin } = await joinAs(h, client, 'admin');
    const ownerAsked = await asAdmin.get(`${path}?role=owner`);
    expect(ownerAsked.status).toBe(403);
    expect(await roleOf()).toBe('admin');
  });

  /** Each revoke and remove: the confirmation's post without `confirm` changes nothing; with it, the row changes. */
  it.each([
    ['a service key', 'keys'],
    ['an API key', 'api-keys'],
    ['a member', 'members'],
    ['an invitation', 'invitations'],
  ])('revokes or removes %s only once confirmed', async (_what, kind) => {
    const boss = await signUpOperator(h, `confirm-${kind}`);
    const { client } = boss;
    let path: string;
    let changedYet: () => Promise<boolean>;
    if (kind === 'keys' || kind === 'api-keys') {
      const minted = await client.submit(`/portal/${kind}?env=test`, `/portal/${kind}`, {
        env: 'test',
        name: 'Doomed',
        ...(kind === 'api-keys' ? { 'scope.read': 'on' } : {}),
      });
      expect(minted.status).toBe(201);
      const key = await h.db('api_keys').where({ workspace_id: boss.workspaceId, name: 'Doomed' }).first();
      path = `/portal/${kind}/${key.id}/revoke?env=test`;
      changedYet = async () => (await h.db('api_keys').where({ id: key.id }).first()).revoked_at !== null;
    } else if (kind === 'members') {
      await signInMember(h.apiUrl, h.db, boss.workspaceId);
      const member = await h.db('users').where({ workspace_id: boss.workspaceId, role: 'member' }).first();
      path = `/portal/members/${member.id}/remove`;
      changedYet = async () => (await h.db('users').where({ id: member.id }).first()).removed_at !== null;
    } else {
      const email = `invitee+${crypto.randomBytes(3).toString('hex')}@example.test`;
      expect((await client.submit('/portal/members', '/portal/members/invite', { email, role: 'member' })).status).toBe(201);
      await mailedInvitationToken(h.mail, email);
      const invitation = await h.db('member_invitations').where({ workspace_id: boss.workspaceId, email }).first();
      path = `/portal/invitations/${invitation.id}/revoke`;
      changedYet = async () => (await h.db('member_invitations').where({ id: invitation.id }).first()).revoked_at !== null;
    }
    const unconfirmed = await answer(client, path, false);
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.text).toContain('id="consequences"');
    expect(await changedYet()).toBe(false);
    const done = await answer(client, path, true);
    expect(done.status).toBe(303);
    expect(await changedYet()).toBe(true);
    const stale = await answer(client, path, true);
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('id="current-state"');
  });

  it('says what a signing secret signs (nothing, on a hosted line without URLs) and shows a failed test event on the line page', async () => {
    const { client } = await signUpOperator(h, 'signs');
    const hosted = await createLineInPortal(client, { name: 'Hosted', mode: 'hosted', system_prompt: 'Be brief.' });
    expect(hosted.page.text).toContain('Nothing this line sends is signed yet');
    expect(hosted.page.text).not.toContain('It signs');
    expect(/<td[^>]*data-secret-state[^>]*>([^<]*)<\/td>/.exec(hosted.page.text)?.[1]).toBe('Nothing signed');
    const hostedPage = await client.get(`/portal/lines/${hosted.lineId}?env=test`);
    expect(hostedPage.text).toContain('id="no-test-destination"');

    const hooked = await createLineInPortal(client, { name: 'Hooked', mode: 'webhook', webhook_url: receiver.url });
    expect(hooked.page.text).toContain("It signs this line's webhook events.");
    receiver.script({ status: 500, body: 'down' });
    const page = await client.get(`/portal/lines/${hooked.lineId}?env=test`);
    const sent = await client.post(`/portal/lines/${hooked.lineId}/test-event`, { csrf_token: PortalClient.csrfOf(page), env: 'test' });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('data-test-status="failed"');
    expect(sent.text).toMatch(/Test event failed:\s+HTTP 500/);
    expect(receiver.requests.at(-1)?.body).toMatchObject({ event: 'test' });
    // Its reload (a GET of the post's address) is the line's page.
    expect((await client.get(`/portal/lines/${hooked.lineId}/test-event?env=test`)).headers.get('location')).toBe(
      `/portal/lines/${hooked.lineId}?env=test`,
    );
    // Another workspace's operator cannot send one to this line.
    const other = await signUpOperator(h, 'signs-other');
    const otherPage = await other.client.get('/portal/lines?env=test');
    const theirs = await other.client.post(`/portal/lines/${hooked.lineId}/test-event`, {
      csrf_token: PortalClient.csrfOf(otherPage),
      env: 'test',
    });
    expect(theirs.status).toBe(404);
    expect(receiver.requests).toHaveLength(1);
  });
});
