import fc from 'fast-check';
import { digestsEqual, generateKey, hashKey, keyTypePrefix, parseKey } from '../../src/domain/keys/format';
import { hasScope, ROLE_PRESETS, SCOPES } from '../../src/domain/keys/scopes';

describe('key format', () => {
  it.each([
    ['standard', 'test', /^sk_test_[0-9A-Za-z]{32}$/],
    ['standard', 'live', /^sk_live_[0-9A-Za-z]{32}$/],
    ['service', 'test', /^sk_svc_test_[0-9A-Za-z]{32}$/],
    ['service', 'live', /^sk_svc_live_[0-9A-Za-z]{32}$/],
  ] as const)('%s %s keys have the documented prefix', (kind, env, pattern) => {
    const key = generateKey(kind, env);
    expect(key.plaintext).toMatch(pattern);
    expect(key.prefix).toBe(key.plaintext.slice(0, keyTypePrefix(kind, env).length + 8));
    expect(key.hash).toBe(hashKey(key.plaintext));
    expect(parseKey(key.plaintext)).toEqual({ kind, environment: env, prefix: key.prefix });
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateKey('standard', 'test').plaintext));
    expect(keys.size).toBe(2000);
  });

  it.each(['', 'sk_test_', 'sk_prod_0123456789abcdefghijABCDEFGHIJ0123', 'sk_test_0123456789abcdefghijABCDEFGHIJ012', 'sk_test_0123456789abcdefghijABCDEFGHIJ01234', 'sk_svc_0123456789abcdefghijABCDEFGHIJ0123', 'sk_test_0123456789abcdefghijABCDEFGHIJ012!'])(
    'rejects the malformed key %p',
    (raw) => expect(parseKey(raw)).toBeUndefined(),
  );

  it('compares digests by value, and only equal-length non-empty ones', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(digestsEqual(hashKey(a), hashKey(b))).toBe(a === b);
      }),
    );
    expect(digestsEqual('', '')).toBe(false);
    expect(digestsEqual('ab', 'abab')).toBe(false);
  });
});

describe('scopes and role presets', () => {
  it('has the 13 scopes of the spec', () => {
    expect(SCOPES).toHaveLength(13);
  });

  it('owner and admin hold every scope; member holds the listed subset', () => {
    expect([...ROLE_PRESETS.owner]).toEqual([...SCOPES]);
    expect([...ROLE_PRESETS.admin]).toEqual([...SCOPES]);
    expect([...ROLE_PRESETS.member].sort()).toEqual(
      ['calls:create', 'calls:control', 'messages:create', 'numbers:read', 'connections:read', 'consent:write', 'billing:read', 'read'].sort(),
    );
    for (const denied of ['numbers:provision', 'numbers:release', 'keys:admin'] as const) expect(hasScope(ROLE_PRESETS.member, denied)).toBe(false);
  });
});
