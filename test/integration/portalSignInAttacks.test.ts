import crypto from 'node:crypto';
import { RATE_LIMITS } from '../../src/domain/limits/policies';
import { OPERATOR_PASSWORD, PortalClient, signUpOperator } from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * Issue 27, L12, as the attacker: the API behind one trusted reverse proxy (TRUST_PROXY_HOPS=1),
 * which appends the address it saw to X-Forwarded-For. Each request here plays that proxy: the
 * entries before the last are whatever the client wrote.
 */
describe('portal sign-in as an attacker behind a trusted proxy (L12)', () => {
  const { h } = useSuite({ portal: true, overrides: { trustProxyHops: 1 } });

  const viaProxy = (seenByProxy: string, writtenByClient?: string) => ({
    'x-forwarded-for': writtenByClient ? `${writtenByClient}, ${seenByProxy}` : seenByProxy,
  });
  const randomIpv4 = () => `203.0.113.${crypto.randomInt(1, 255)}`;
  const unknownEmail = () => `nobody+${crypto.randomBytes(4).toString('hex')}@example.test`;

  async function tryLogin(client: PortalClient, email: string, password: string, headers: Record<string, string>) {
    const page = await client.get('/portal/login');
    return client.post('/portal/login', { csrf_token: PortalClient.csrfOf(page), email, password }, headers);
  }

  it('a spoofed X-Forwarded-For does not move the client to a new address: the proxy-appended one counts', async () => {
    const attacker = new PortalClient(h.apiUrl);
    const perAddress = RATE_LIMITS['portal.login_address'].limit;
    for (let i = 0; i < perAddress; i += 1)
      expect((await tryLogin(attacker, unknownEmail(), 'guess', viaProxy('198.51.100.7', randomIpv4()))).status).toBe(401);
    const refused = await tryLogin(attacker, unknownEmail(), 'guess', viaProxy('198.51.100.7', randomIpv4()));
    expect(refused.status).toBe(429);

    // The session records the proxy-appended address too, not the client's claim.
    const { email } = await signUpOperator(h, 'spoof');
    const user = new PortalClient(h.apiUrl);
    expect((await tryLogin(user, email, OPERATOR_PASSWORD, viaProxy('198.51.100.8', '10.0.0.1'))).status).toBe(303);
    const session = await h
      .db('portal_sessions')
      .where({ token_hash: sessionHash(user) })
      .first();
    expect(session.client_address).toBe('198.51.100.8');
  });

  it('rotating addresses inside one IPv6 /64 (or IPv4-mapped forms) counts as one address; another /64 is not affected', async () => {
    const attacker = new PortalClient(h.apiUrl);
    const perAddress = RATE_LIMITS['portal.login_address'].limit;
    const inPrefix = () => `2001:db8:77:1:${crypto.randomBytes(2).toString('hex')}:${crypto.randomBytes(2).toString('hex')}::1`;
    for (let i = 0; i < perAddress; i += 1)
      expect((await tryLogin(attacker, unknownEmail(), 'guess', viaProxy(inPrefix()))).status).toBe(401);
    expect((await tryLogin(attacker, unknownEmail(), 'guess', viaProxy(inPrefix()))).status).toBe(429);
    expect((await tryLogin(attacker, unknownEmail(), 'guess', viaProxy('2001:db8:77:2::1'))).status).toBe(401);

    for (let i = 0; i < perAddress; i += 1)
      expect((await tryLogin(attacker, unknownEmail(), 'guess', viaProxy(i % 2 ? '::ffff:198.51.100.30' : '198.51.100.30'))).status).toBe(
        401,
      );
    expect((await tryLogin(attacker, unknownEmail(), 'guess', viaProxy('::ffff:198.51.100.30'))).status).toBe(429);
  });

  it("ten wrong passwords against a victim's email do not keep the victim out: the victim's right password gets in", async () => {
    const { email } = await signUpOperator(h, 'victim');
    const attacker = new PortalClient(h.apiUrl);
    const answers: number[] = [];
    for (let i = 0; i < 10; i += 1) answers.push((await tryLogin(attacker, email, `guess ${i}`, viaProxy('203.0.113.66'))).status);
    // The attacker is slowed: a few tries, then waits that grow.
    const { free } = RATE_LIMITS['portal.login_failures'].growingDelay;
    expect(answers.slice(0, free)).toEqual(Array(free).fill(401));
    expect(answers.slice(free)).toEqual(Array(10 - free).fill(429));
    expect((await tryLogin(attacker, email, OPERATOR_PASSWORD, viaProxy('203.0.113.66'))).status).toBe(429);

    const victim = new PortalClient(h.apiUrl);
    const signIn = await tryLogin(victim, email, OPERATOR_PASSWORD, viaProxy('198.51.100.99'));
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/portal');
    expect((await victim.get('/portal')).status).toBe(200);
  });
});

function sessionHash(client: PortalClient): string {
  return crypto.createHash('sha256').update(client.cookies.get('sb_portal_session')!).digest('hex');
}
