import crypto from 'node:crypto';
import { registry } from '../../api/metrics';
import { runCommand } from '../../src/main/cli';
import { loadConfig } from '../../src/platform/config';
import type { Harness } from '../support/harness';
import { OPERATOR_PASSWORD, PortalClient, signUpOperator, verifyByMail } from '../support/portalClient';
import { linkIn } from '../support/smtpReceiver';
import { useSuite } from '../support/suite';

const PASSWORD = OPERATOR_PASSWORD;
const JSON_ACCEPT = { accept: 'application/json' };

/**
 * Issue 27, H5: who may create a workspace (SIGNUP_MODE), email verification before a workspace is
 * usable, operator approval, password reset by mail, and the deployment-wide signup rate. Mail is
 * read from the harness's real SMTP receiver. The harness's config object is the API's, so a test
 * switches the mode for itself and puts it back.
 */
describe('portal signup modes, email verification and password reset (issue 27, H5)', () => {
  const apiLog: string[] = [];
  const { h } = useSuite({ portal: true, apiLog });
  const logged = (message: string) => apiLog.map((line) => JSON.parse(line)).filter((entry) => entry.msg === message);

  const newEmail = (tag = 'signup') => `${tag}+${crypto.randomBytes(5).toString('hex')}@example.test`;
  async function withConfig<T>(change: Partial<Harness['config']>, run: () => Promise<T>): Promise<T> {
    const saved = { ...h.config };
    Object.assign(h.config, change);
    try {
      return await run();
    } finally {
      Object.assign(h.config, saved);
    }
  }
  const signUp = (client: PortalClient, email: string, headers: Record<string, string> = {}) =>
    client.submit('/portal/signup', '/portal/signup', { email, password: PASSWORD }, headers);
  const login = (email: string, password = PASSWORD) =>
    new PortalClient(h.apiUrl).submit('/portal/login', '/portal/login', { email, password }, JSON_ACCEPT);
  const signupsCounted = async (outcome: string) => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'switchboard_portal_signups_total');
    return Number(
      (metric?.values as Array<{ labels: { outcome?: string }; value: number }> | undefined)?.find((v) => v.labels.outcome === outcome)
        ?.value ?? 0,
    );
  };

  it('invite (the production default): no signup page, a posted signup is refused and creates nothing', async () => {
    await withConfig({ signupMode: 'invite' }, async () => {
      const visitor = new PortalClient(h.apiUrl);
      const page = await visitor.get('/portal/signup');
      expect(page.status).toBe(403);
      expect(page.text).toContain('signup_closed');
      const loginPage = await visitor.get('/portal/login');
      expect(loginPage.text).not.toContain('href="/portal/signup"');
      const email = newEmail();
      const before = await signupsCounted('closed');
      const posted = await visitor.post(
        '/portal/signup',
        { csrf_token: PortalClient.csrfOf(loginPage), email, password: PASSWORD },
        JSON_ACCEPT,
      );
      expect(posted.status).toBe(403);
      expect(JSON.parse(posted.text).error.code).toBe('signup_closed');
      expect(await h.db('users').where({ email })).toHaveLength(0);
      expect(await signupsCounted('closed')).toBe(before + 1);
    });
    // Production's default, as loadConfig gives it.
    expect(loadConfig({ SWITCHBOARD_PROFILE: 'production' }).signupMode).toBe('invite');
    expect(loadConfig({ SWITCHBOARD_PROFILE: 'dev' }).signupMode).toBe('open');
  });

  it('invite: the first owner, made by the CLI, sets a password through a mailed reset link and signs in', async () => {
    await withConfig({ signupMode: 'invite' }, async () => {
      const email = newEmail('first-owner');
      await runCommand(h.db, ['workspace', 'create'], { name: 'Operator Co', 'owner-email': email });
      expect((await login(email)).status).toBe(401); // no password yet
      const visitor = new PortalClient(h.apiUrl);
      expect((await visitor.submit('/portal/password/forgot', '/portal/password/forgot', { email })).status).toBe(202);
      const link = linkIn(await h.mail.waitForMail(email, { subject: /Reset your/ }), '/portal/password/reset');
      const token = new URL(link, 'http://x').searchParams.get('token')!;
      expect((await visitor.submit(link, '/portal/password/reset', { token, password: PASSWORD })).status).toBe(303);
      expect((await login(email)).status).toBe(200);
    });
  });

  it('open: no session and no sign-in until the mailed link is followed; the link works once, a replay changes nothing', async () => {
    const email = newEmail('open');
    const client = new PortalClient(h.apiUrl);
    const before = await signupsCounted('created');
    const signedUp = await signUp(client, email, JSON_ACCEPT);
    expect(signedUp.status).toBe(202);
    expect(JSON.parse(signedUp.text)).toMatchObject({ email_verification: 'mailed', awaiting_approval: false });
    expect(client.cookies.has('sb_portal_session')).toBe(false);
    expect(await signupsCounted('created')).toBe(before + 1);
    expect((await client.get('/portal')).status).toBe(302);

    const unverified = await login(email);
    expect(unverified.status).toBe(403);
    expect(JSON.parse(unverified.text).error.code).toBe('email_unverified');
    expect(await h.db('portal_sessions').join('users', 'users.id', 'portal_sessions.user_id').where('users.email', email)).toHaveLength(0);

    const mail = await h.mail.waitForMail(email);
    expect(mail.subject).toBe('Confirm your email address for Switchboard');
    const link = linkIn(mail, '/portal/verify');
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    // Only the token's hash is stored.
    const row = await h
      .db('account_tokens')
      .where({ token_hash: crypto.createHash('sha256').update(token).digest('hex') })
      .first();
    expect(row).toMatchObject({ purpose: 'email_verification', used_at: null });
    // Opening the link uses nothing (a mail scanner may fetch it): its form does.
    expect((await new PortalClient(h.apiUrl).get(link)).status).toBe(200);
    const verified = await client.submit(link, '/portal/verify', { token });
    expect(verified.status).toBe(303);
    expect(verified.headers.get('location')).toBe('/portal');
    expect((await client.get('/portal')).status).toBe(200);
    expect((await login(email)).status).toBe(200);

    // A replay: the portal's error page, nothing changes (no session opens).
    const sessions = await h.db('portal_sessions').count<{ count: string }[]>({ count: '*' });
    const attacker = new PortalClient(h.apiUrl);
    const replay = await attacker.submit(link, '/portal/verify', { token });
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('link_invalid');
    expect(replay.text).toContain('Something went wrong');
    expect(attacker.cookies.has('sb_portal_session')).toBe(false);
    expect(await h.db('portal_sessions').count<{ count: string }[]>({ count: '*' })).toEqual(sessions);
    // Logged for the operator with why and whose link, never the link itself.
    expect(logged('verification link refused')).toContainEqual(
      expect.objectContaining({ level: 40, why: 'used', account_token_id: row.id }),
    );
    expect(apiLog.some((line) => line.includes(token))).toBe(false);
  });

  it('open: an expired verification link is refused; asking again mails a new one and the old one stops working', async () => {
    const email = newEmail('expired');
    const client = new PortalClient(h.apiUrl);
    expect((await signUp(client, email)).status).toBe(202);
    const first = linkIn(await h.mail.waitForMail(email), '/portal/verify');
    const firstToken = new URL(first, 'http://x').searchParams.get('token')!;
    h.clock.advance(24 * 3600 * 1000 + 1000);
    try {
      const expired = await client.submit(first, '/portal/verify', { token: firstToken }, JSON_ACCEPT);
      expect(expired.status).toBe(400);
      expect(JSON.parse(expired.text).error.code).toBe('link_invalid');
    } finally {
      h.clock.advance(-(24 * 3600 * 1000 + 1000));
    }
    const resent = await client.submit('/portal/login', '/portal/verify/resend', { email });
    expect(resent.status).toBe(202);
    const stale = await new PortalClient(h.apiUrl).submit(first, '/portal/verify', { token: firstToken }, JSON_ACCEPT);
    expect(stale.status).toBe(400);
    expect((await verifyByMail(client, h.mail, email)).status).toBe(303);
    // Asking for an address with no pending verification answers alike and mails nothing.
    const unknown = newEmail('nobody');
    expect((await new PortalClient(h.apiUrl).submit('/portal/login', '/portal/verify/resend', { email: unknown })).status).toBe(202);
    await expect(h.mail.waitForMail(unknown, { timeoutMs: 300 })).rejects.toThrow(/no mail/); // 300 ms: the mail for `email` above arrived in less
  });

  it('approval: the verified owner waits for an operator (CLI `workspace approve`), then signs in', async () => {
    await withConfig({ signupMode: 'approval' }, async () => {
      const email = newEmail('approval');
      const client = new PortalClient(h.apiUrl);
      const signedUp = await signUp(client, email, JSON_ACCEPT);
      expect(signedUp.status).toBe(202);
      const { workspace_id: workspaceId } = JSON.parse(signedUp.text);
      const verified = await verifyByMail(client, h.mail, email);
      expect(verified.status).toBe(200);
      expect(verified.text).toContain('Waiting for approval');
      expect(client.cookies.has('sb_portal_session')).toBe(false);
      const waiting = await login(email);
      expect(waiting.status).toBe(403);
      expect(JSON.parse(waiting.text).error.code).toBe('approval_pending');

      const pending = (await runCommand(h.db, ['workspace', 'pending'], {})) as { workspaces: Array<Record<string, unknown>> };
      expect(pending.workspaces).toContainEqual(
        expect.objectContaining({ workspace_id: workspaceId, owner_email: email, email_verified: true }),
      );
      await expect(runCommand(h.db, ['workspace', 'approve'], { workspace: crypto.randomUUID() })).rejects.toThrow(/awaiting approval/);
      expect(await runCommand(h.db, ['workspace', 'approve'], { workspace: workspaceId })).toEqual({
        workspace_id: workspaceId,
        approved: true,
      });
      expect((await login(email)).status).toBe(200);
    });
  });

  it('password reset: mailed link, once; the new password works, every session ends, a reused link changes nothing', async () => {
    const owner = await signUpOperator(h, 'reset');
    const other = new PortalClient(h.apiUrl);
    expect((await other.submit('/portal/login', '/portal/login', { email: owner.email, password: PASSWORD })).status).toBe(303);

    const asked = await new PortalClient(h.apiUrl).submit('/portal/password/forgot', '/portal/password/forgot', { email: owner.email });
    expect(asked.status).toBe(202);
    const link = linkIn(await h.mail.waitForMail(owner.email, { subject: /Reset your/ }), '/portal/password/reset');
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    const visitor = new PortalClient(h.apiUrl);
    const form = await visitor.get(link);
    expect(form.status).toBe(200);
    const weak = await visitor.post('/portal/password/reset', { csrf_token: PortalClient.csrfOf(form), token, password: 'short' });
    expect(weak.status).toBe(422);
    const reset = await visitor.post('/portal/password/reset', {
      csrf_token: PortalClient.csrfOf(form),
      token,
      password: 'a brand new password',
    });
    expect(reset.status).toBe(303);
    expect(reset.headers.get('location')).toBe('/portal/login?reset=1');
    expect((await owner.client.get('/portal')).status).toBe(302);
    expect((await other.get('/portal')).status).toBe(302);
    expect((await login(owner.email)).status).toBe(401);
    expect((await login(owner.email, 'a brand new password')).status).toBe(200);

    // Reused: the error page, and the password stays the one just set.
    const hashBefore = (await h.db('users').where({ id: owner.userId }).first()).password_hash;
    const again = new PortalClient(h.apiUrl);
    expect((await again.get(link)).status).toBe(400);
    const reused = await again.post(
      '/portal/password/reset',
      { csrf_token: PortalClient.csrfOf(await again.get('/portal/login')), token, password: 'the attackers password' },
      JSON_ACCEPT,
    );
    expect(reused.status).toBe(400);
    expect(JSON.parse(reused.text).error.code).toBe('link_invalid');
    expect(logged('password reset link refused')).toContainEqual(expect.objectContaining({ why: 'used', user_id: owner.userId }));
    expect(apiLog.some((line) => line.includes(token))).toBe(false);
    expect((await h.db('users').where({ id: owner.userId }).first()).password_hash).toBe(hashBefore);
    expect((await login(owner.email, 'the attackers password')).status).toBe(401);

    // An unknown address gets the same answer, and no mail.
    const unknown = newEmail('nobody');
    const nobody = await new PortalClient(h.apiUrl).submit('/portal/password/forgot', '/portal/password/forgot', { email: unknown });
    expect(nobody.status).toBe(202);
    const withoutToken = (text: string) => text.replace(/name="csrf_token" value="[^"]+"/, '');
    expect(withoutToken(nobody.text)).toBe(withoutToken(asked.text));
    await expect(h.mail.waitForMail(unknown, { timeoutMs: 300 })).rejects.toThrow(/no mail/); // 300 ms: the owner's reset mail arrived in less
  });

  it('a deployment-wide signup rate refuses signups from any address once spent, counted for an alert', async () => {
    await withConfig({ signupRatePerHour: 2 }, async () => {
      for (let i = 0; i < 2; i += 1) expect((await signUp(new PortalClient(h.apiUrl), newEmail('global'))).status).toBe(202);
      const before = await signupsCounted('rate_limited_global');
      // Another client address would pass its own limit; the deployment's is spent.
      const refused = await signUp(new PortalClient(h.apiUrl), newEmail('global'), JSON_ACCEPT);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.text).error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await signupsCounted('rate_limited_global')).toBe(before + 1);
    });
  });
});
