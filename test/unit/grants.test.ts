import fc from 'fast-check';
import { grantExcess, restrictedLineIds, type Grant } from '../../src/keys/grants';
import { SCOPES, type Scope } from '../../src/keys/scopes';
import { SETTABLE_TIERS, TIER_SCOPES, TIER_VERBS, tierAllows, VERBS } from '../../src/keys/tiers';

const scopesArb = fc.subarray([...SCOPES] as Scope[], { minLength: 1 });
const numbersArb = fc.option(fc.subarray(['l1', 'l2', 'l3', 'l4']), { nil: null });
const limitArb = fc.option(fc.record({ amountCents: fc.nat(10_000), resetPeriod: fc.constantFrom<'monthly' | null>('monthly', null) }), { nil: null });
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
    expect(grantExcess(parent, { scopes: ['read', 'keys:admin'], numbers: ['l1', 'l2'], spendLimit: { amountCents: 101, resetPeriod: 'monthly' } }).map((e) => e.field)).toEqual([
      'grant.scopes',
      'grant.resources.numbers',
      'grant.spendLimit',
    ]);
    expect(grantExcess(parent, { scopes: ['read'], numbers: null, spendLimit: null }).map((e) => e.field)).toEqual(['grant.resources.numbers', 'grant.spendLimit']);
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
