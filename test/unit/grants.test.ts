import fc from 'fast-check';
import {
  authorityExcess,
  authorityOf,
  grantExcess,
  keyRestrictions,
  restrictedLineIds,
  type Authority,
  type Grant,
  type KeyRestrictions,
} from '../../src/domain/keys/grants';
import { ROLE_PRESETS, SCOPES, type Scope } from '../../src/domain/keys/scopes';
import { SETTABLE_TIERS, TIER_SCOPES, TIER_VERBS, TIERS, tierAllows, VERBS, type Tier } from '../../src/domain/keys/tiers';

const scopesArb = fc.subarray([...SCOPES] as Scope[], { minLength: 1 });
const numbersArb = fc.option(fc.subarray(['l1', 'l2', 'l3', 'l4']), { nil: null });
const limitArb = fc.option(fc.record({ amountCents: fc.nat(10_000), resetPeriod: fc.constantFrom<'monthly' | null>('monthly', null) }), {
  nil: null,
});
const grantArb: fc.Arbitrary<Grant> = fc.record({ scopes: scopesArb, numbers: numbersArb, spendLimit: limitArb });

describe('grant subset rule', () => {
  it('a grant never exceeds itself', () => {
    fc.assert(fc.property(grantArb, (g) => expect(grantExcess(g, g)).toEqual([])));
  });

  it('is transitive: within a child within its parent means within the parent', () => {
    fc.assert(
      fc.property(grantArb, grantArb, grantArb, (a, b, c) => {
        if (grantExcess(a, b).length === 0 && grantExcess(b, c).length === 0) expect(grantExcess(a, c)).toEqual([]);
      }),
    );
  });

  it('names each exceeding part', () => {
    const parent: Grant = { scopes: ['read', 'numbers:read'], numbers: ['l1'], spendLimit: { amountCents: 100, resetPeriod: 'monthly' } };
    expect(
      grantExcess(parent, {
        scopes: ['read', 'keys:admin'],
        numbers: ['l1', 'l2'],
        spendLimit: { amountCents: 101, resetPeriod: 'monthly' },
      }).map((e) => e.field),
    ).toEqual(['grant.scopes', 'grant.resources.numbers', 'grant.spendLimit']);
    expect(grantExcess(parent, { scopes: ['read'], numbers: null, spendLimit: null }).map((e) => e.field)).toEqual([
      'grant.resources.numbers',
      'grant.spendLimit',
    ]);
  });

  it('a lifetime limit admits only lifetime children; a monthly one admits both', () => {
    const lifetime: Grant = { scopes: ['read'], numbers: null, spendLimit: { amountCents: 100, resetPeriod: null } };
    const monthly: Grant = { scopes: ['read'], numbers: null, spendLimit: { amountCents: 100, resetPeriod: 'monthly' } };
    expect(grantExcess(lifetime, monthly)).toHaveLength(1);
    expect(grantExcess(monthly, lifetime)).toEqual([]);
  });

  it('an unrestricted parent admits any allow-list and any limit', () => {
    const parent: Grant = { scopes: ['read'], numbers: null, spendLimit: null };
    expect(grantExcess(parent, { scopes: ['read'], numbers: ['l9'], spendLimit: { amountCents: 10 ** 9, resetPeriod: null } })).toEqual([]);
  });

  it('a line binding restricts more tightly than an allow-list', () => {
    expect(restrictedLineIds({ grant_numbers: ['a', 'b'], line_id: 'c' })).toEqual(['c']);
    expect(restrictedLineIds({ grant_numbers: ['a', 'b'], line_id: null })).toEqual(['a', 'b']);
    expect(restrictedLineIds({ grant_numbers: null, line_id: null })).toBeUndefined();
  });
});

const authorityArb: fc.Arbitrary<Authority> = fc.record({
  scopes: scopesArb,
  lines: numbersArb,
  spendLimits: fc.array(fc.record({ amountCents: fc.nat(10_000), resetPeriod: fc.constantFrom<'monthly' | null>('monthly', null) }), {
    maxLength: 2,
  }),
  tier: fc.constantFrom<Tier>(...TIERS.filter((t) => t !== 'legacy_full')),
});

const row = (overrides: Partial<KeyRestrictions> = {}): KeyRestrictions => ({
  kind: 'standard',
  scopes: ['read'],
  grant_numbers: null,
  line_id: null,
  spend_limit_cents: null,
  spend_reset_period: null,
  monthly_cap_cents: null,
  permissions: 'full',
  ...overrides,
});

describe('the delegation rule over whole authorities (every minting path)', () => {
  it('is transitive, with tiers, line bindings and several caps', () => {
    fc.assert(
      fc.property(authorityArb, authorityArb, authorityArb, (a, b, c) => {
        if (authorityExcess(a, b).length === 0 && authorityExcess(b, c).length === 0) expect(authorityExcess(a, c)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('a key never exceeds itself unless a monthly cap promises more than another of its caps', () => {
    fc.assert(
      fc.property(authorityArb, (a) => {
        const falsePromise = a.spendLimits.some(
          (m) => m.resetPeriod === 'monthly' && a.spendLimits.some((o) => m.amountCents > o.amountCents),
        );
        expect(authorityExcess(a, a).length > 0).toBe(falsePromise);
      }),
    );
  });

  it('refuses a tier with verbs the minter’s tier lacks', () => {
    const minter: Authority = { scopes: ['read', 'calls:create'], lines: null, spendLimits: [], tier: 'call_only' };
    expect(authorityExcess(minter, { ...minter, tier: 'read_only' })).toEqual([]);
    expect(authorityExcess(minter, { ...minter, tier: 'sms_only' })).toEqual([
      { part: 'tier', message: "The minting key's call_only tier does not allow: sms" },
    ]);
  });

  it('a monthly cap may not promise more than a lifetime limit it inherits', () => {
    const minter = authorityOf(row({ spend_limit_cents: '100' }), 'owner');
    expect(authorityExcess(minter, authorityOf(row({ spend_limit_cents: '100', monthly_cap_cents: 50 })))).toEqual([]);
    expect(authorityExcess(minter, authorityOf(row({ spend_limit_cents: '100', monthly_cap_cents: 101 })))).toEqual([
      { part: 'spend', message: "A monthly cap of 101 cents exceeds the minting key's 100 cents" },
    ]);
  });

  it('a service key acts with its user’s role preset; a minter’s scopes are clamped to its user’s current role', () => {
    expect(authorityOf(row({ kind: 'service', scopes: [] }), 'member')).toEqual({
      scopes: ROLE_PRESETS.member,
      lines: null,
      spendLimits: [],
      tier: 'full',
    });
    const demoted = authorityOf(row({ scopes: ['keys:admin', 'read', 'numbers:provision'] }), 'member');
    expect(demoted.scopes).toEqual(['read']);
    expect(authorityOf(row({ permissions: 'legacy_full' })).tier).toBe('full');
    expect(authorityOf(row({ line_id: 'l1', grant_numbers: ['l1', 'l2'] })).lines).toEqual(['l1']);
  });

  it('names every restriction that keeps a key from being unrestricted', () => {
    const root = { ...row(), ancestor_ids: [], parent_key_id: null, created_by_service_key_id: null };
    expect(keyRestrictions(root)).toEqual([]);
    const delegated = {
      ...root,
      ancestor_ids: ['p'],
      parent_key_id: 'p',
      grant_numbers: ['l1'],
      spend_limit_cents: '5',
      permissions: 'read_only',
    };
    expect(keyRestrictions(delegated).map((r) => r.field)).toEqual([
      'parent_key_id',
      'grant.resources.numbers',
      'grant.spendLimit',
      'permissions',
    ]);
  });
});

describe('permission tiers', () => {
  it('maps tiers to verbs as documented', () => {
    expect(TIER_VERBS).toEqual({
      full: VERBS,
      legacy_full: VERBS,
      call_only: ['read', 'call'],
      sms_only: ['read', 'sms'],
      read_only: ['read'],
    });
    expect(tierAllows('read_only', 'call')).toBe(false);
    expect(tierAllows('unknown', 'read')).toBe(false);
  });

  it('never gives an agent tier keys:admin, and each tier holds the scopes of its verbs', () => {
    for (const tier of SETTABLE_TIERS) expect(TIER_SCOPES[tier]).not.toContain('keys:admin');
    expect(TIER_SCOPES.call_only).toEqual(expect.arrayContaining(['calls:create', 'calls:control', 'read']));
    expect(TIER_SCOPES.call_only).not.toContain('messages:create');
    expect(TIER_SCOPES.sms_only).toEqual(expect.arrayContaining(['messages:create', 'read']));
    expect(TIER_SCOPES.sms_only).not.toContain('calls:create');
    expect(TIER_SCOPES.read_only.every((s) => s === 'read' || s.endsWith(':read'))).toBe(true);
    expect(SETTABLE_TIERS).not.toContain('legacy_full');
  });
});
