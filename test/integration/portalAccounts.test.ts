import crypto from 'node:crypto';
import { balanceOf } from '../../src/domain/billing/ledger';
import { RATE_LIMITS } from '../../src/domain/limits/policies';
import { OPERATOR_PASSWORD, PortalClient, verifyByMail } from '../support/portalClient';
import { useSuite } from '../support/suite';

const PASSWORD = OPERATOR_PASSWORD;
const JSON_ACCEPT = { accept: 'application/json' };

describe('portal accounts: signup, login, logout, password change, sessions and CSRF', () => {
  const { h } = useSuite({ portal: true });

  const newEmail = () => `Op+${crypto.randomBytes(5).toString('hex')}@Example.test`;
  const signUp = async (email: string, password = PASSWORD) => {
    const client = new PortalClient(h.apiUrl);
    const res = await client.submit('/portal/signup', '/portal/signup', { email, password, workspace_name: 'Acme' });
    return { client, res };
  };
  /** Signs up (202, the link mailed) and follows the verification link, which opens the session (303 to /portal). */
  const signUpVerified = async (email: string, password = PASSWORD) => {
    const { client, res: signedUp } = await signUp(email, password);
    if (signedUp.status !== 202) throw new Error(`signup answered ${signedUp.status}`);
    return { client, res: await verifyByMail(client, h.mail, email) };
  };

  it('signs up: workspace and owner together with the test signup credit, no live credit; the verification link opens a server-side session in an HttpOnly SameSite cookie', async () => {
    const email = newEmail();
    const { client, res: signedUp } = await signUp(email);
    // No session before the address is verified: the page says where the link went.
    expect(signedUp.status).toBe(202);
    expect(signedUp.setCookies.some((line) => line.startsWith('sb_portal_session='))).toBe(false);
    expect(signedUp.text).toContain(email.toLowerCase());
    const res = await verifyByMail(client, h.mail, email);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/portal');
    const sessionCookie = res.setCookies.find((line) => line.startsWith('sb_portal_session='))!;
    expect(sessionCookie).toMatch(/HttpOnly/);
    expect(sessionCookie).toMatch(/SameSite=Lax/);
    expect(sessionCookie).toMatch(/Path=\/portal/);
    expect(sessionCookie).not.toMatch(/Secure/); // the harness's PUBLIC_BASE_URL is http

    const user = await h.db('users').where({ email: email.toLowerCase() }).first();
    expect(user).toMatchObject({ role: 'owner' });
    // Hashed at the deployment's N (the harness lowers it; test/unit/portal.test.ts holds the deployment to PASSWORD_KDF.N).
    expect(user.password_hash).toMatch(
      new RegExp(`^scrypt\\$${h.config.passwordScryptN}\\$8\\$1\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$`),
    );
    expect(await h.db('workspaces').where({ id: user.workspace_id }).first()).toMatchObject({ name: 'Acme' });
    // The signup credit is the test environment's only (issue 27, H5).
    expect(await balanceOf(h.db, { workspaceId: user.workspace_id, environment: 'test' })).toEqual({ balanceCents: 500, heldCents: 0 });
    expect(await balanceOf(h.db, { workspaceId: user.workspace_id, environment: 'live' })).toEqual({ balanceCents: 0, heldCents: 0 });

    // Only the token's hash is stored.
    const token = client.cookies.get('sb_portal_session')!;
    const [session] = await h.db('portal_sessions').where({ user_id: user.id });
    expect(session.token_hash).toBe(crypto.createHash('sha256').update(token).digest('hex'));
    expect(new Date(session.expires_at).getTime() - new Date(session.created_at).getTime()).toBe(12 * 3600 * 1000);

    const overview = await client.get('/portal');
    expect(overview.status).toBe(200);
    expect(overview.text).toContain('$5.00');
    expect(overview.headers.get('content-security-policy')).toMatch(/default-src 'self'.*script-src 'self'.*style-src 'self'/);
    expect(overview.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a second signup of the address with 409 email_taken, on the page and as the error envelope', async () => {
    const email = newEmail();
    await signUpVerified(email);
    const { res } = await signUp(email.toUpperCase());
    expect(res.status).toBe(409);
    expect(res.text).toContain('email_taken');
    const again = new PortalClient(h.apiUrl);
    const json = await again.submit('/portal/signup', '/portal/signup', { email, password: PASSWORD }, JSON_ACCEPT);
    expect(json.status).toBe(409);
    expect(JSON.parse(json.text)).toEqual({ error: { code: 'email_taken', message: expect.any(String) } });
    expect(await h.db('users').where({ email: email.toLowerCase() })).toHaveLength(1);
  });

  it('refuses a short password and a malformed email with 422 validation_error naming the fields', async () => {
    const client = new PortalClient(h.apiUrl);
    const res = await client.submit('/portal/signup', '/portal/signup', { email: 'nope', password: 'short' }, JSON_ACCEPT);
    expect(res.status).toBe(422);
    const body = JSON.parse(res.text);
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'password']);
  });

  it('logs in; a wrong password and an unknown address are both 401 invalid_credentials', async () => {
    const email = newEmail();
    await signUpVerified(email);
    const wrong = await new PortalClient(h.apiUrl).submit('/portal/login', '/portal/login', { email, password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('invalid_credentials');
    const unknown = await new PortalClient(h.apiUrl).submit(
      '/portal/login',
      '/portal/login',
      { email: newEmail(), password: PASSWORD },
      JSON_ACCEPT,
    );
    expect(unknown.status).toBe(401);
    expect(JSON.parse(unknown.text).error.code).toBe('invalid_credentials');

    const client = new PortalClient(h.apiUrl);
    const ok = await client.submit('/portal/login', '/portal/login', { email, password: PASSWORD });
    expect(ok.status).toBe(303);
    expect((await client.get('/portal')).status).toBe(200);
  });

  it('a session cookie never authenticates the public API', async () => {
    const { client } = await signUpVerified(newEmail());
    const cookie = `sb_portal_session=${client.cookies.get('sb_portal_session')}`;
    for (const path of ['/api/v1/lines', '/v1/keys', '/api/v1/billing/balance']) {
      const res = await h.request('GET', path, { headers: { cookie } });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });

  it('refuses every state change without the CSRF token, with another token, or from another origin', async () => {
    const email = newEmail();
    const anonymous = new PortalClient(h.apiUrl);
    const page = await anonymous.get('/portal/signup');
    const token = PortalClient.csrfOf(page);
    expect((await anonymous.post('/portal/signup', { email, password: PASSWORD })).status).toBe(403);
    expect((await anonymous.post('/portal/signup', { email, password: PASSWORD, csrf_token: 'x'.repeat(43) })).status).toBe(403);
    const crossSite = await anonymous.post(
      '/portal/signup',
      { email, password: PASSWORD, csrf_token: token },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect(await h.db('users').where({ email: email.toLowerCase() })).toHaveLength(0);

    const { client } = await signUpVerified(email);
    // The pre-signup token is not the session's.
    expect((await client.post('/portal/logout', { csrf_token: token })).status).toBe(403);
    expect((await client.post('/portal/settings/password', { current_password: PASSWORD, new_password: 'another password' })).status).toBe(
      403,
    );
    expect((await client.get('/portal')).status).toBe(200);
  });

  it('logout revokes the session: its cookie signs in no one afterwards', async () => {
    const { client } = await signUpVerified(newEmail());
    const stolen = client.cookies.get('sb_portal_session')!;
    const out = await client.submit('/portal', '/portal/logout', {});
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/portal/login?signed_out=1');
    expect(client.cookies.has('sb_portal_session')).toBe(false);
    const replay = new PortalClient(h.apiUrl);
    replay.cookies.set('sb_portal_session', stolen);
    const res = await replay.get('/portal');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/portal/login');
    expect(
      await h
        .db('portal_sessions')
        .whereNull('revoked_at')
        .where({ token_hash: crypto.createHash('sha256').update(stolen).digest('hex') }),
    ).toHaveLength(0);
  });

  it('expires a session after 12 hours', async () => {
    const { client } = await signUpVerified(newEmail());
    h.clock.advance(12 * 3600 * 1000 + 1000);
    try {
      expect((await client.get('/portal')).status).toBe(302);
    } finally {
      h.clock.advance(-(12 * 3600 * 1000 + 1000));
    }
  });

  it('changes the password after checking the current one, and signs out the other sessions', async () => {
    const email = newEmail();
    const { client } = await signUpVerified(email);
    const other = new PortalClient(h.apiUrl);
    expect((await other.submit('/portal/login', '/portal/login', { email, password: PASSWORD })).status).toBe(303);

    const wrong = await client.submit('/portal/settings', '/portal/settings/password', {
      current_password: 'not it at all',
      new_password: 'a new password',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('invalid_credentials');
    const changed = await client.submit('/portal/settings', '/portal/settings/password', {
      current_password: PASSWORD,
      new_password: 'a new password',
    });
    expect(changed.status).toBe(200);
    expect((await client.get('/portal')).status).toBe(200);
    expect((await other.get('/portal')).status).toBe(302);

    const old = await new PortalClient(h.apiUrl).submit('/portal/login', '/portal/login', { email, password: PASSWORD });
    expect(old.status).toBe(401);
    const fresh = await new PortalClient(h.apiUrl).submit('/portal/login', '/portal/login', { email, password: 'a new password' });
    expect(fresh.status).toBe(303);
  });

  it('counts wrong current passwords as failed sign-ins of the account from that address: a growing delay, then the right one works', async () => {
    const email = newEmail();
    const { client } = await signUpVerified(email);
    const csrf_token = PortalClient.csrfOf(await client.get('/portal/settings'));
    const { free, firstSeconds } = RATE_LIMITS['portal.login_failures'].growingDelay;
    for (let i = 0; i < free; i += 1)
      expect(
        (await client.post('/portal/settings/password', { csrf_token, current_password: 'wrong one!', new_password: 'a new password' }))
          .status,
      ).toBe(401);
    const change = { csrf_token, current_password: PASSWORD, new_password: 'a new password' };
    const limited = await client.post('/portal/settings/password', change);
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('rate_limited');
    expect(limited.headers.get('retry-after')).toBe(String(firstSeconds));
    h.clock.advance(firstSeconds * 1000);
    try {
      expect((await client.post('/portal/settings/password', change)).status).toBe(200);
    } finally {
      h.clock.advance(-firstSeconds * 1000);
    }
  });

  it('delays sign-ins after failed ones (per account and address, growing), clears on success, and limits failures per address', async () => {
    const email = newEmail();
    await signUpVerified(email);
    const { free, firstSeconds } = RATE_LIMITS['portal.login_failures'].growingDelay;
    const client = new PortalClient(h.apiUrl);
    const page = await client.get('/portal/login');
    const csrf_token = PortalClient.csrfOf(page);
    for (let i = 0; i < free; i += 1)
      expect((await client.post('/portal/login', { csrf_token, email, password: 'wrong password' })).status).toBe(401);
    // From the address that failed, even the right password waits out the delay (checked, not counted).
    const limited = await client.post('/portal/login', { csrf_token, email, password: PASSWORD }, JSON_ACCEPT);
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.text).error.code).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBe(String(firstSeconds));
    h.clock.advance(firstSeconds * 1000);
    try {
      expect((await client.post('/portal/login', { csrf_token, email, password: PASSWORD })).status).toBe(303);
      // The success forgot the failures: a wrong password is simply wrong again.
      const next = new PortalClient(h.apiUrl);
      const token = PortalClient.csrfOf(await next.get('/portal/login'));
      expect((await next.post('/portal/login', { csrf_token: token, email, password: 'wrong password' })).status).toBe(401);

      // Spraying many accounts from one address: its failures are limited, whatever the accounts.
      const perAddress = RATE_LIMITS['portal.login_address'].limit;
      for (let i = free + 1; i < perAddress; i += 1)
        expect((await next.post('/portal/login', { csrf_token: token, email: newEmail(), password: 'wrong password' })).status).toBe(401);
      const fromAddress = await next.post('/portal/login', { csrf_token: token, email: newEmail(), password: PASSWORD });
      expect(fromAddress.status).toBe(429);
    } finally {
      h.clock.advance(-firstSeconds * 1000);
    }
  });
});
