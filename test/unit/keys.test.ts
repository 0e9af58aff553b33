import fc from 'fast-check';
import { digestsEqual, generateKey, hashKey, keyTypePrefix, parseKey } from '../../src/domain/keys/format';
import { hasScope, isScope, ROLE_PRESETS, SCOPES } from '../../src/domain/keys/scopes';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

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

  it('draws the random part uniformly from all 62 base62 characters and nothing else', () => {
    const counts = new Map<string, number>();
    const keys = 4000;
    for (let i = 0; i < keys; i += 1) {
      for (const char of generateKey('service', 'live').plaintext.slice('sk_svc_live_'.length))
        counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect([...counts.keys()].sort().join('')).toBe(BASE62.split('').sort().join(''));
    // 2065 of each on average (standard deviation about 45); `byte % 62` without rejection would
    // give the first eight characters 25 % more.
    const mean = (keys * 32) / 62;
    for (const [char, count] of counts) expect({ char, off: Math.abs(count - mean) / mean < 0.12 }).toEqual({ char, off: true });
  });

  it('parses exactly the keys of the format: prefix, environment, 32 base62 characters', () => {
    const random = (length: number) => fc.string({ unit: fc.constantFrom(...BASE62.split('')), minLength: length, maxLength: length });
    const kinds = fc.constantFrom(
      ['standard', 'test'] as const,
      ['standard', 'live'] as const,
      ['service', 'test'] as const,
      ['service', 'live'] as const,
    );
    fc.assert(
      fc.property(kinds, random(32), ([kind, env], body) => {
        const typePrefix = keyTypePrefix(kind, env);
        // The displayed prefix keeps the type and the first 8 random characters.
        expect(parseKey(typePrefix + body)).toEqual({ kind, environment: env, prefix: typePrefix + body.slice(0, 8) });
      }),
    );
    fc.assert(
      fc.property(
        kinds,
        fc.integer({ min: 0, max: 64 }).filter((n) => n !== 32),
        ([kind, env], length) => {
          expect(parseKey(keyTypePrefix(kind, env) + 'a'.repeat(length))).toBeUndefined();
        },
      ),
    );
    fc.assert(
      fc.property(
        kinds,
        random(31),
        fc.constantFrom('_', '-', '+', '/', '=', ' ', 'é'),
        fc.integer({ min: 0, max: 31 }),
        ([kind, env], body, bad, at) => {
          expect(parseKey(keyTypePrefix(kind, env) + body.slice(0, at) + bad + body.slice(at))).toBeUndefined();
        },
      ),
    );
  });

  it.each([
    '',
    'sk_test_',
    'sk_prod_0123456789abcdefghijABCDEFGHIJ0123',
    'sk_test_0123456789abcdefghijABCDEFGHIJ012',
    'sk_test_0123456789abcdefghijABCDEFGHIJ01234',
    'sk_svc_0123456789abcdefghijABCDEFGHIJ0123',
    'sk_test_0123456789abcdefghijABCDEFGHIJ012!',
  ])('rejects the malformed key %p', (raw) => expect(parseKey(raw)).toBeUndefined());

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
  it('has exactly the 13 scopes of the spec, each once', () => {
    // The spec's table ("Authentication", rule 5), in its order.
    expect([...SCOPES]).toEqual([
      'calls:create',
      'calls:control',
      'messages:create',
      'numbers:read',
      'numbers:provision',
      'numbers:release',
      'connections:read',
      'connections:write',
      'consent:write',
      'webhooks:write',
      'billing:read',
      'keys:admin',
      'read',
    ]);
    expect(new Set(SCOPES).size).toBe(SCOPES.length);
    for (const scope of SCOPES) expect(isScope(scope)).toBe(true);
    for (const other of ['', 'admin', 'calls', 'calls:*', 'Calls:create', 'calls:create ', 'keys:write'])
      expect(isScope(other)).toBe(false);
  });

  it('owner and admin hold every scope; member holds the listed subset', () => {
    expect([...ROLE_PRESETS.owner]).toEqual([...SCOPES]);
    expect([...ROLE_PRESETS.admin]).toEqual([...SCOPES]);
    expect([...ROLE_PRESETS.member].sort()).toEqual(
      [
        'calls:create',
        'calls:control',
        'messages:create',
        'numbers:read',
        'connections:read',
        'consent:write',
        'billing:read',
        'read',
      ].sort(),
    );
    for (const denied of ['numbers:provision', 'numbers:release', 'keys:admin'] as const)
      expect(hasScope(ROLE_PRESETS.member, denied)).toBe(false);
  });
});
