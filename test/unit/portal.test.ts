import type { AppContext, AppDeps } from '../../api/context';
import { html, escapeHtml } from '../../api/portal/html';
import {
  CONTENT_SECURITY_POLICY,
  securityHeaders,
  SESSION_COOKIE,
  sessionCsrfToken,
  setCookie,
  STRICT_TRANSPORT_SECURITY,
} from '../../api/portal/http';
import { decoyPasswordHash, hashPassword, PASSWORD_KDF, verifyPassword } from '../../src/platform/crypto/password';
import { emailProblems, normalizeEmail, passwordProblems } from '../../src/domain/accounts/rules';
import { loadConfig } from '../../src/platform/config';

describe('portal templates', () => {
  it('escapes every interpolated value but another template', () => {
    // Through an alias: prettier reformats the markup of a template tagged `html`.
    const t = html;
    const name = `<script>alert("x")</script>&'`;
    expect(t`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
    expect(t`<ul>${['<a>', t`<li>ok</li>`]}</ul>`.value).toBe('<ul>&lt;a&gt;<li>ok</li></ul>');
    expect(t`${null}${undefined}${false}${0}`.value).toBe('0');
    expect(escapeHtml('"&"')).toBe('&quot;&amp;&quot;');
  });
});

describe('portal cookies and CSP', () => {
  const cookieOf = (publicBaseUrl: string, profile = 'production') => {
    const headers: string[] = [];
    const ctx = { append: (_name: string, value: string) => headers.push(value) } as unknown as AppContext;
    setCookie(ctx, { config: { publicBaseUrl, profile } } as AppDeps, SESSION_COOKIE, 'token', { sameSite: 'Lax', maxAgeSeconds: 60 });
    return headers[0];
  };
  const headersOf = (publicBaseUrl: string) => {
    const headers = new Map<string, string>();
    const ctx = { set: (name: string, value: string) => headers.set(name, value) } as unknown as AppContext;
    securityHeaders(ctx, { config: { publicBaseUrl } } as AppDeps);
    return headers;
  };

  it('marks the session cookie HttpOnly and SameSite, and Secure when the deployment is reached over https', () => {
    expect(cookieOf('http://127.0.0.1:8080')).toBe('sb_portal_session=token; Path=/portal; HttpOnly; SameSite=Lax; Max-Age=60');
    expect(cookieOf('https://switchboard.example.com')).toBe(
      'sb_portal_session=token; Path=/portal; HttpOnly; SameSite=Lax; Max-Age=60; Secure',
    );
  });

  it('keeps the cookie Secure outside the dev profile even when PUBLIC_BASE_URL says http on a network address (L16)', () => {
    // A TLS proxy in front of an API whose PUBLIC_BASE_URL was left at http: the browser still sees https.
    expect(cookieOf('http://switchboard.example.com')).toMatch(/; Secure$/);
    expect(cookieOf('http://0.0.0.0:8080')).toMatch(/; Secure$/);
    expect(cookieOf('http://switchboard.test:8080', 'dev')).not.toMatch(/Secure/);
    expect(cookieOf('http://localhost:8080')).not.toMatch(/Secure/);
  });

  it('sends HSTS when the portal is served over https, never over http (L16)', () => {
    expect(headersOf('https://switchboard.example.com').get('Strict-Transport-Security')).toBe(STRICT_TRANSPORT_SECURITY);
    expect(STRICT_TRANSPORT_SECURITY).toMatch(/^max-age=31536000\b/);
    expect(headersOf('http://127.0.0.1:8080').has('Strict-Transport-Security')).toBe(false);
  });

  it('allows no inline script or style and nothing from another origin', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
  });

  it('derives a CSRF token per session', () => {
    expect(sessionCsrfToken('a')).not.toBe(sessionCsrfToken('b'));
    expect(sessionCsrfToken('a')).toBe(sessionCsrfToken('a'));
  });
});

describe('passwords', () => {
  it('hashes with scrypt and a salt of its own each time, and verifies', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    expect(first).not.toBe(second);
    expect(first.startsWith(`scrypt$${PASSWORD_KDF.N}$${PASSWORD_KDF.r}$${PASSWORD_KDF.p}$`)).toBe(true);
    await expect(verifyPassword('correct horse battery', first)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', first)).resolves.toBe(false);
    await expect(verifyPassword('correct horse battery', 'md5$abc')).resolves.toBe(false);
    await expect(verifyPassword('anything', await decoyPasswordHash())).resolves.toBe(false);
  });

  it('hashes every deployment at PASSWORD_KDF.N (2^15): no setting lowers it, and the decoy costs what a hash costs', async () => {
    expect(PASSWORD_KDF.N).toBe(2 ** 15);
    expect(loadConfig({}).passwordScryptN).toBe(PASSWORD_KDF.N);
    expect(loadConfig({ PASSWORD_SCRYPT_N: '1024', SCRYPT_N: '1024' }).passwordScryptN).toBe(PASSWORD_KDF.N);
    // A lowered N (the test harnesses') is what its hashes and its decoy say.
    const lowered = await hashPassword('correct horse battery', 2 ** 10);
    expect(lowered.startsWith(`scrypt$1024$${PASSWORD_KDF.r}$${PASSWORD_KDF.p}$`)).toBe(true);
    await expect(verifyPassword('correct horse battery', lowered)).resolves.toBe(true);
    expect((await decoyPasswordHash(2 ** 10)).startsWith('scrypt$1024$')).toBe(true);
    expect((await decoyPasswordHash()).startsWith(`scrypt$${PASSWORD_KDF.N}$`)).toBe(true);
  });

  it('checks signup fields', () => {
    expect(normalizeEmail('  Op@Example.COM ')).toBe('op@example.com');
    expect(emailProblems('op@example.com')).toEqual([]);
    expect(emailProblems('op@example')).toHaveLength(1);
    expect(passwordProblems('123456789')).toHaveLength(1);
    expect(passwordProblems('1234567890')).toEqual([]);
    expect(passwordProblems('x'.repeat(257))).toHaveLength(1);
  });
});
