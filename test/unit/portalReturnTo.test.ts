import { isReturnable } from '../../api/portal/returnTo';

/** Which paths a sign-in may come back to (issue 30): portal pages only, never another origin or a sign-in page. */
describe('the deep link kept across sign-in', () => {
  it.each([
    '/portal',
    '/portal/calls?env=test',
    '/portal/calls/3f2a9c1e-7b1d-4c55-9a0e-2b4d6f8a0c11?env=live',
    '/portal/deliveries?env=test&status=failed',
    '/portal/conversations/0b6c/%2B14155550123?env=test',
    '/portal/audit?env=test&from=2026-11-01T00:00:00Z&actor=ops%40example.test',
    '/portal/oauth/consent?request=abc_DEF-123&env=test',
  ])('returns to %s', (path) => expect(isReturnable(path)).toBe(true));

  it.each([
    '//evil.example/portal',
    '/\\evil.example',
    'https://evil.example/portal',
    '/portalx',
    '/api/v1/lines',
    '/portal/../api/v1/lines',
    '/portal/login',
    '/portal/login/code',
    '/portal/logout',
    '/portal/signup?env=test',
    '/portal/assets/portal.css',
    '/portal/overview/stats?env=test',
    '/portal/password/reset?token=x',
    '/portal/calls?env=test"><script>',
  ])('never returns to %s', (path) => expect(isReturnable(path)).toBe(false));

  it('never returns to a path longer than a page link', () => expect(isReturnable(`/portal/calls?${'a'.repeat(1000)}`)).toBe(false));
});
