import { OPERATOR_PASSWORD, PortalClient, signUpOperator } from '../support/portalClient';
import { useSuite } from '../support/suite';

/** Issue 30, items 6 and 7 over HTTP: the deep link kept across sign-in, the checklist, badges, the test-mode banner, copying. */
describe('portal onboarding and look', () => {
  const { h } = useSuite({ portal: true });

  async function signIn(client: PortalClient, email: string) {
    return client.submit('/portal/login', '/portal/login', { email, password: OPERATOR_PASSWORD });
  }

  it('comes back to the page a visitor opened once signed in, once, and never to another origin', async () => {
    const { email } = await signUpOperator(h, 'look');
    const visitor = new PortalClient(h.apiUrl);
    const opened = await visitor.get('/portal/deliveries?env=test&status=failed');
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe('/portal/login');
    const signedIn = await signIn(visitor, email);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/portal/deliveries?env=test&status=failed');

    // Once: the next sign-in lands on the overview.
    await visitor.post('/portal/logout', { csrf_token: PortalClient.csrfOf(await visitor.get('/portal')) });
    expect((await signIn(visitor, email)).headers.get('location')).toBe('/portal');

    // An htmx fragment polled after the session ended is no page to come back to.
    const later = new PortalClient(h.apiUrl);
    await later.get('/portal/calls?env=test');
    await later.get('/portal/calls/00000000-0000-4000-8000-000000000000/live?env=test', { 'HX-Request': 'true' });
    expect((await signIn(later, email)).headers.get('location')).toBe('/portal/calls?env=test');

    // A forged return cookie naming another origin is ignored.
    const forged = new PortalClient(h.apiUrl);
    forged.cookies.set('sb_portal_return', encodeURIComponent('//evil.example/portal'));
    expect((await signIn(forged, email)).headers.get('location')).toBe('/portal');
  });
});
