import { pageContentSecurityPolicy } from '../../api/contentSecurityPolicy';
import { CONTENT_SECURITY_POLICY } from '../../api/portal/http';
import { REFERENCE_CONTENT_SECURITY_POLICY } from '../../api/reference/router';

describe('the pages’ Content-Security-Policy', () => {
  it('puts a page’s own sources between script-src and the same-origin, no-framing tail', () => {
    expect(pageContentSecurityPolicy(["style-src 'self'"])).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    );
  });

  it('gives the portal and the API reference the policies they always sent', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; " +
        "frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    );
    expect(REFERENCE_CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    );
  });
});
