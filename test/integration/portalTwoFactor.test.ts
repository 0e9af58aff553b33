import crypto from 'node:crypto';
import { generate } from 'otplib';
import { OPERATOR_PASSWORD, PortalClient, signInMember, signUpOperator } from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * Two-factor sign-in (issue 27) as an operator and as someone holding only the password: enrolment
 * on the security page, the code step of a sign-in, recovery codes, replays, the owner's requirement.
 */
describe('portal two-factor sign-in (TOTP and recovery codes)', () => {
  const apiLog: string[] = [];
  const { h } = useSuite({ portal: true, apiLog });
  /** What the portal logged, parsed. */
  const logged = () => apiLog.map((line) => JSON.parse(line) as Record<string, unknown>);
  // Each test on a still clock, early in a 30-second step, so "the same code" and "the next code" are certain.
  beforeEach(() => h.clock.freeze(new Date(Math.floor(Date.now() / 30_000) * 30_000 + 1_000)));
  afterEach(() => h.clock.freeze(null));

  const codeFor = (secret: string) => generate({ secret, epoch: Math.floor(h.clock.now().getTime() / 1000) });
  /** Moves the clock to the next 30-second step, so a new code exists. */
  const nextStep = () => h.clock.advance(30_000);

  /** Signs up, enrols TOTP on the security page; the secret and recovery codes as the page showed them. */
  async function enrolledOperator(tag = 'tfa') {
    const operator = await signUpOperator(h, tag);
    const started = await operator.client.submit('/portal/security', '/portal/security/two-factor', {});
    expect(started.status).toBe(200);
    const secret = /data-totp-secret>([A-Z2-7]+)</.exec(started.text)![1];
    const confirmed = await operator.client.submit('/portal/security', '/portal/security/two-factor/confirm', {
      code: await codeFor(secret),
    });
    expect(confirmed.status).toBe(200);
    const recoveryCodes = [...confirmed.text.matchAll(/<li><code class="mono">([0-9a-z-]{19})<\/code><\/li>/g)].map((m) => m[1]);
    return { ...operator, secret, recoveryCodes };
  }

  async function passwordStep(email: string) {
    const client = new PortalClient(h.apiUrl);
    const res = await client.submit('/portal/login', '/portal/login', { email, password: OPERATOR_PASSWORD });
    return { client, res };
  }

  it('enrols: the secret shown as text and otpauth URI, sealed at rest, on only once a code confirms it; recovery codes shown once, stored hashed', async () => {
    const { client, userId, email } = await signUpOperator(h, 'enrol');
    const started = await client.submit('/portal/security', '/portal/security/two-factor', {});
    expect(started.status).toBe(200);
    const secret = /data-totp-secret>([A-Z2-7]+)</.exec(started.text)![1];
    const uri = /data-totp-uri>([^<]+)</.exec(started.text)![1].replace(/&amp;/g, '&');
    expect(uri).toBe(`otpauth://totp/Switchboard:${encodeURIComponent(email)}?secret=${secret}&issuer=Switchboard`);
    const pending = await h.db('users').where({ id: userId }).first();
    expect(pending.totp_pending_sealed).toMatch(/^v2\./);
    expect(pending.totp_pending_sealed).not.toContain(secret);
    expect(pending.totp_enabled_at).toBeNull();

    // Not on yet: the password alone still signs in.
    expect((await passwordStep(email)).res.headers.get('location')).toBe('/portal');

    const wrong = await client.submit(
      '/portal/security',
      '/portal/security/two-factor/confirm',
      { code: '000000' },
      { accept: 'application/json' },
    );
    expect(wrong.status).toBe(422);
    expect(JSON.parse(wrong.text).error.code).toBe('invalid_code');
    expect((await h.db('users').where({ id: userId }).first()).totp_enabled_at).toBeNull();

    const confirmed = await client.submit('/portal/security', '/portal/security/two-factor/confirm', { code: await codeFor(secret) });
    expect(confirmed.status).toBe(200);
    const codes = [...confirmed.text.matchAll(/<li><code class="mono">([0-9a-z-]{19})<\/code><\/li>/g)].map((m) => m[1]);
    expect(codes).toHaveLength(10);
    const stored = await h.db('recovery_codes').where({ user_id: userId });
    expect(stored.map((row) => row.code_hash).sort()).toEqual(codes.map((c) => crypto.createHash('sha256').update(c).digest('hex')).sort());
    const user = await h.db('users').where({ id: userId }).first();
    expect(user.totp_secret_sealed).toMatch(/^v2\./);
    expect(user.totp_pending_sealed).toBeNull();
    expect(user.totp_enabled_at).not.toBeNull();
    // Shown once: the page afterwards counts them and shows none.
    const later = await client.get('/portal/security');
    expect(later.text).toContain('Recovery codes left: 10');
    for (const code of codes) expect(later.text).not.toContain(code);
  });

  it('makes new recovery codes and turns two-factor sign-in off only once confirmed with the password; old codes then stop working', async () => {
    const { client, email, userId, recoveryCodes } = await enrolledOperator('confirm-tfa');
    const consequences = (text: string) => /<ul id="consequences">([\s\S]*?)<\/ul>/.exec(text)?.[1] ?? '';
    const hashes = async () => (await h.db('recovery_codes').where({ user_id: userId })).map((row) => row.code_hash as string).sort();
    const enabled = async () => (await h.db('users').where({ id: userId }).first()).totp_enabled_at !== null;
    const RENEW = '/portal/security/recovery-codes';
    const OFF = '/portal/security/two-factor/remove';

    const security = await client.get('/portal/security');
    expect(security.text).toContain(`href="${RENEW}"`);
    expect(security.text).toContain(`href="${OFF}"`);
    const asked = await client.get(RENEW);
    expect(asked.status).toBe(200);
    expect(consequences(asked.text)).toContain('Your old recovery codes stop working at once');
    expect(asked.text).toMatch(/<label for="password">Your password<\/label>/);
    const before = await hashes();
    // Without `confirm` (a one-click form, a script), even with the password: nothing changes.
    const unconfirmed = await client.submit(RENEW, RENEW, { password: OPERATOR_PASSWORD });
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.text).toContain('id="confirmation"');
    // Confirmed with a wrong password: refused on the confirmation itself.
    const wrong = await client.submit(RENEW, RENEW, { password: 'not my password', confirm: 'yes' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('id="confirmation"');
    expect(await hashes()).toEqual(before);
    const renewed = await client.submit(RENEW, RENEW, { password: OPERATOR_PASSWORD, confirm: 'yes' });
    expect(renewed.status).toBe(200);
    const fresh = [...renewed.text.matchAll(/<li><code class="mono">([0-9a-z-]{19})<\/code><\/li>/g)].map((m) => m[1]);
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(recoveryCodes[0]);
    // An old recovery code no longer signs in; a new one does.
    const withOld = await passwordStep(email);
    expect((await withOld.client.submit('/portal/login/code', '/portal/login/code', { code: recoveryCodes[0] })).status).toBe(401);
    const withNew = await passwordStep(email);
    expect((await withNew.client.submit('/portal/login/code', '/portal/login/code', { code: fresh[0] })).status).toBe(303);

    const offAsked = await client.get(OFF);
    expect(consequences(offAsked.text)).toContain('Signing in needs only your password from now on');
    expect(consequences(offAsked.text)).toContain('your 9 unused recovery codes: they are deleted');
    expect((await client.submit(OFF, OFF, { password: OPERATOR_PASSWORD })).status).toBe(200);
    expect(await enabled()).toBe(true);
    const off = await client.submit(OFF, OFF, { password: OPERATOR_PASSWORD, confirm: 'yes' });
    expect(off.status).toBe(303);
    expect(await enabled()).toBe(false);
    expect(await hashes()).toEqual([]);
    // The same confirmation from a stale tab: what holds now, not a 404.
    const stale = await client.submit('/portal/security', OFF, { password: OPERATOR_PASSWORD, confirm: 'yes' });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('id="current-state"');
    const staleJson = await client.submit(
      '/portal/security',
      OFF,
      { password: OPERATOR_PASSWORD, confirm: 'yes' },
      { accept: 'application/json' },
    );
    expect([staleJson.status, JSON.parse(staleJson.text).error.code]).toEqual([409, 'two_factor_not_enabled']);
  });

  it('asks for the code after the password; refuses and logs a wrong code and a replay of a just-used one; a recovery code works once', async () => {
    const { email, userId, secret, recoveryCodes } = await enrolledOperator('signin');
    const { client, res } = await passwordStep(email);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/portal/login/code');
    expect(client.cookies.has('sb_portal_session')).toBe(false);
    expect((await client.get('/portal')).status).toBe(302);

    const current = await codeFor(secret);
    const wrongCode = current === '000000' ? '111111' : '000000';
    const wrong = await client.submit('/portal/login/code', '/portal/login/code', { code: wrongCode });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('invalid_code');
    expect(logged()).toContainEqual(
      expect.objectContaining({ msg: 'portal second factor refused', user_id: userId, reason: 'wrong_code' }),
    );

    // The code that confirmed enrolment was used in this step: it does not sign in again.
    const replayed = await client.submit('/portal/login/code', '/portal/login/code', { code: current });
    expect(replayed.status).toBe(401);
    expect(logged()).toContainEqual(
      expect.objectContaining({ msg: 'portal second factor refused', user_id: userId, reason: 'replayed_code' }),
    );

    nextStep();
    const fresh = await codeFor(secret);
    const signedIn = await client.submit('/portal/login/code', '/portal/login/code', { code: fresh });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/portal');
    expect((await client.get('/portal')).status).toBe(200);

    // Someone who saw that code and knows the password, inside the same 30 seconds: refused.
    const thief = await passwordStep(email);
    expect((await thief.client.submit('/portal/login/code', '/portal/login/code', { code: fresh })).status).toBe(401);

    const withRecovery = await passwordStep(email);
    const recovered = await withRecovery.client.submit('/portal/login/code', '/portal/login/code', {
      code: recoveryCodes[0].toUpperCase(),
    });
    expect(recovered.status).toBe(303);
    expect((await withRecovery.client.get('/portal')).status).toBe(200);
    const again = await passwordStep(email);
    const reused = await again.client.submit('/portal/login/code', '/portal/login/code', { code: recoveryCodes[0] });
    expect(reused.status).toBe(401);
    expect(logged()).toContainEqual(
      expect.objectContaining({ msg: 'portal second factor refused', user_id: userId, reason: 'used_recovery_code' }),
    );
  });

  it('keeps the deep link across the second factor: password, code, then the page first opened; never another origin', async () => {
    const { email, secret } = await enrolledOperator('deep');
    nextStep();
    const visitor = new PortalClient(h.apiUrl);
    const opened = await visitor.get('/portal/deliveries?env=test&status=failed');
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe('/portal/login');
    const password = await visitor.submit('/portal/login', '/portal/login', { email, password: OPERATOR_PASSWORD });
    expect(password.headers.get('location')).toBe('/portal/login/code');
    const code = await visitor.submit('/portal/login/code', '/portal/login/code', { code: await codeFor(secret) });
    expect(code.status).toBe(303);
    expect(code.headers.get('location')).toBe('/portal/deliveries?env=test&status=failed');
    expect((await visitor.get('/portal/deliveries?env=test&status=failed')).status).toBe(200);

    // A return path naming another origin (a forged cookie, or a `return_to` in the sign-in's address) is ignored.
    for (const forged of ['//evil.example/portal', 'https://evil.example/portal', '/portal/../\\evil.example']) {
      nextStep();
      const lured = new PortalClient(h.apiUrl);
      lured.cookies.set('sb_portal_return', encodeURIComponent(forged));
      const step = await lured.submit('/portal/login?return_to=https%3A%2F%2Fevil.example%2F', '/portal/login', {
        email,
        password: OPERATOR_PASSWORD,
      });
      expect(step.headers.get('location')).toBe('/portal/login/code');
      const landed = await lured.submit('/portal/login/code', '/portal/login/code', { code: await codeFor(secret) });
      expect([forged, landed.status, landed.headers.get('location')]).toEqual([forged, 303, '/portal']);
    }
  });

  it('refuses the code step without its CSRF token or without a password step first', async () => {
    const { email, secret } = await enrolledOperator('csrf');
    nextStep();
    const { client } = await passwordStep(email);
    const noToken = await client.post('/portal/login/code', { code: await codeFor(secret) });
    expect(noToken.status).toBe(403);
    expect(client.cookies.has('sb_portal_session')).toBe(false);

    const stranger = new PortalClient(h.apiUrl);
    const page = await stranger.get('/portal/login');
    const noChallenge = await stranger.post('/portal/login/code', { csrf_token: PortalClient.csrfOf(page), code: await codeFor(secret) });
    expect(noChallenge.status).toBe(401);
    expect(noChallenge.text).toContain('challenge_expired');
  });

  it('an owner requires two-factor sign-in: members without it are sent to enrol before anything else; only an owner who has it may switch', async () => {
    const owner = await signUpOperator(h, 'owner');
    const member = await signInMember(h.apiUrl, h.db, owner.workspaceId);
    const byMember = await member.submit('/portal/security', '/portal/security/require', { required: 'true' });
    expect(byMember.status).toBe(403);
    const withoutOwn = await owner.client.submit('/portal/security', '/portal/security/require', { required: 'true' });
    expect(withoutOwn.status).toBe(409);
    expect(withoutOwn.text).toContain('two_factor_not_enabled');

    const started = await owner.client.submit('/portal/security', '/portal/security/two-factor', {});
    const secret = /data-totp-secret>([A-Z2-7]+)</.exec(started.text)![1];
    await owner.client.submit('/portal/security', '/portal/security/two-factor/confirm', { code: await codeFor(secret) });
    const required = await owner.client.submit('/portal/security', '/portal/security/require', { required: 'true' });
    expect(required.status).toBe(303);
    expect((await h.db('workspaces').where({ id: owner.workspaceId }).first()).require_two_factor).toBe(true);
    // The compliance log of each environment names the owner who changed it, once (L21).
    const logged = await h.db('compliance_events').where({ workspace_id: owner.workspaceId, event_type: 'settings_changed' });
    expect(logged.map((e) => e.environment).sort()).toEqual(['live', 'test']);
    for (const event of logged)
      expect(event.metadata).toEqual({ changed: { require_two_factor: { from: false, to: true } }, via: 'portal', user_id: owner.userId });
    await owner.client.submit('/portal/security', '/portal/security/require', { required: 'true' });
    expect(await h.db('compliance_events').where({ workspace_id: owner.workspaceId, event_type: 'settings_changed' })).toHaveLength(2);

    for (const path of ['/portal', '/portal/lines', '/portal/api-keys']) {
      const page = await member.get(path);
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/portal/security');
    }
    const csrf = PortalClient.csrfOf(await member.get('/portal/security'));
    const agent = `Mozilla/5.0 (X11; Linux x86_64) GateWalk/${crypto.randomBytes(4).toString('hex')} Firefox/133.0`;
    const change = await member.post(
      '/portal/lines',
      { csrf_token: csrf, env: 'test', name: 'x', mode: 'webhook' },
      { accept: 'application/json', 'user-agent': agent },
    );
    expect(change.status).toBe(403);
    expect(JSON.parse(change.text).error.code).toBe('two_factor_required');
    // The refused attempt is on the workspace's audit log with its author, address and browser.
    const memberRow = await h.db('users').where({ workspace_id: owner.workspaceId, role: 'member' }).first();
    expect(await h.db('portal_actions').where({ user_agent: agent })).toEqual([
      expect.objectContaining({
        workspace_id: owner.workspaceId,
        environment: 'test',
        user_id: memberRow.id,
        email: memberRow.email,
        action: 'line.created',
        outcome: 'refused',
        refusal_code: 'two_factor_required',
        client_address: expect.stringMatching(/127\.0\.0\.1|::1/),
        details: expect.objectContaining({ name: 'x', mode: 'webhook' }),
      }),
    ]);
    // A forged post riding the member's cookie (no token) is refused and recorded nowhere.
    const forged = await member.post(
      '/portal/lines',
      { env: 'test', name: 'y' },
      { origin: 'https://evil.example', 'user-agent': `${agent} forged` },
    );
    expect(forged.status).toBe(403);
    expect(await h.db('portal_actions').where({ user_agent: `${agent} forged` })).toHaveLength(0);
    const security = await member.get('/portal/security');
    expect(security.status).toBe(200);
    expect(security.text).toContain('This workspace requires two-factor sign-in');

    const memberStart = await member.submit('/portal/security', '/portal/security/two-factor', {});
    const memberSecret = /data-totp-secret>([A-Z2-7]+)</.exec(memberStart.text)![1];
    expect(
      (await member.submit('/portal/security', '/portal/security/two-factor/confirm', { code: await codeFor(memberSecret) })).status,
    ).toBe(200);
    expect((await member.get('/portal')).status).toBe(200);
    // Required: it cannot be turned off.
    const off = await member.submit('/portal/security', '/portal/security/two-factor/remove', {
      password: OPERATOR_PASSWORD,
      confirm: 'yes',
    });
    expect(off.status).toBe(409);
  });
});
