import {
  digestOf,
  formActionSourceOf,
  isOpaque,
  isSameResource,
  mcpResourceOf,
  newOpaque,
  redirectUriProblem,
} from '../../src/domain/oauth/rules';

describe('OAuth rules (issue 29)', () => {
  it('binds tokens to the MCP endpoint under PUBLIC_BASE_URL and compares resources as URLs', () => {
    const resource = mcpResourceOf('https://switchboard.example.com');
    expect(resource).toBe('https://switchboard.example.com/mcp');
    expect(isSameResource('https://SWITCHBOARD.example.com:443/mcp', resource)).toBe(true);
    expect(isSameResource('https://switchboard.example.com/mcp/', resource)).toBe(true);
    expect(isSameResource('https://switchboard.example.com/mcp#x', resource)).toBe(false);
    expect(isSameResource('https://switchboard.example.com/mcp2', resource)).toBe(false);
    expect(isSameResource('http://switchboard.example.com/mcp', resource)).toBe(false);
    expect(isSameResource('https://evil.example/mcp', resource)).toBe(false);
    expect(isSameResource('not a url', resource)).toBe(false);
  });

  it('accepts https, loopback http and private-use schemes as redirect URIs, nothing else', () => {
    for (const ok of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://127.0.0.1:33418/cb',
      'http://localhost/cb',
      'http://[::1]:9/cb',
      'cursor://anysphere.cursor-mcp/oauth/callback',
    ])
      expect([ok, redirectUriProblem(ok)]).toEqual([ok, undefined]);
    for (const bad of [
      'http://evil.example/cb',
      'https://ok.example/cb#frag',
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'relative/path',
    ])
      expect(redirectUriProblem(bad)).toEqual(expect.any(String));
  });

  it('makes prefixed 256-bit tokens told apart by kind, and keeps only their digests', () => {
    const access = newOpaque('access');
    expect(access).toMatch(/^sbo_at_[A-Za-z0-9_-]{43}$/);
    expect(isOpaque('access', access)).toBe(true);
    expect(isOpaque('refresh', access)).toBe(false);
    expect(isOpaque('access', `${access}x`)).toBe(false);
    expect(isOpaque('access', 'sk_test_00000000000000000000000000000000')).toBe(false);
    expect(newOpaque('access')).not.toBe(access);
    expect(digestOf(access)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("widens the consent page's form-action to the redirect's origin, or its scheme for an app", () => {
    expect(formActionSourceOf('https://claude.ai/api/mcp/auth_callback?x=1')).toBe('https://claude.ai');
    expect(formActionSourceOf('http://127.0.0.1:33418/cb')).toBe('http://127.0.0.1:33418');
    expect(formActionSourceOf('cursor://anysphere.cursor-mcp/oauth/callback')).toBe('cursor:');
  });
});
