/**
 * A key's grant (spec: "Scoped API key and its grant"): non-empty scopes, an optional
 * allow-list of numbers (line ids), an optional spend limit that is lifetime (resetPeriod
 * null) or monthly. A child grant may never exceed its parent's.
 */
import { ROLE_PRESETS, type Role, type Scope } from './scopes';
import { TIER_VERBS, type Tier } from './tiers';

export interface SpendLimit {
  amountCents: number;
  resetPeriod: 'monthly' | null;
}

export interface Grant {
  scopes: readonly Scope[];
  numbers: readonly string[] | null;
  spendLimit: SpendLimit | null;
}

export interface GrantExcess {
  field: string;
  message: string;
}

/**
 * Everything a key may do and spend, whichever path made it: what every minting, updating and
 * rotating path compares between the minting key and the key it makes (spec Auth rule 7).
 */
export interface Authority {
  scopes: readonly Scope[];
  /** Lines the key is restricted to (its line binding, else its allow-list); null when account-wide. */
  lines: readonly string[] | null;
  /** Every cap the key is under: its grant spend limit and an agent key's monthly cap. */
  spendLimits: readonly SpendLimit[];
  tier: Tier;
}

/** The part of a minted key that exceeds its minter; each path names it after its own request field. */
export type AuthorityPart = 'scopes' | 'tier' | 'lines' | 'spend';
export interface AuthorityExcess {
  part: AuthorityPart;
  message: string;
}

/** The columns of a key row that carry its authority (bigints come back from Postgres as strings). */
export interface KeyRestrictions {
  kind: 'standard' | 'service';
  scopes: readonly string[];
  grant_numbers: readonly string[] | null;
  line_id: string | null;
  spend_limit_cents: string | number | null;
  spend_reset_period: 'monthly' | null;
  monthly_cap_cents: string | number | null;
  permissions: string;
}

const cents = (value: string | number | null): number | null => (value === null ? null : Number(value));

/** Line ids a grant or a line binding restricts a key to; undefined when unrestricted. */
export function restrictedLineIds(key: { grant_numbers: readonly string[] | null; line_id: string | null }): readonly string[] | undefined {
  if (key.line_id) return [key.line_id];
  if (key.grant_numbers) return key.grant_numbers;
  return undefined;
}

/**
 * A key's authority. Given its user's current `role`, its scopes are clamped to the role's
 * preset (a minter whose user was demoted mints no more than the role allows); a service key has
 * no scopes of its own and acts with its user's preset. Without a role (a key about to be
 * minted), the scopes are taken as stored. Legacy tiers act as `full`.
 */
export function authorityOf(key: KeyRestrictions, role?: Role): Authority {
  const preset = role ? ROLE_PRESETS[role] : [];
  const scopes =
    key.kind === 'service' ? preset : role ? (key.scopes as Scope[]).filter((scope) => preset.includes(scope)) : (key.scopes as Scope[]);
  const limits: SpendLimit[] = [];
  const spendLimit = cents(key.spend_limit_cents);
  if (spendLimit !== null) limits.push({ amountCents: spendLimit, resetPeriod: key.spend_reset_period });
  const monthlyCap = cents(key.monthly_cap_cents);
  if (monthlyCap !== null) limits.push({ amountCents: monthlyCap, resetPeriod: 'monthly' });
  return {
    scopes,
    lines: key.kind === 'service' ? null : (restrictedLineIds(key) ?? null),
    spendLimits: key.kind === 'service' ? [] : limits,
    tier: key.kind === 'service' || key.permissions === 'legacy_full' ? 'full' : (key.permissions as Tier),
  };
}

function formatCents(amount: number): string {
  return `${amount} cents`;
}

/**
 * The one delegation rule: what part of `child` exceeds `minter`; empty when the child is
 * within it. Scopes and the tier's verbs must be a subset; a restricted minter's child must be
 * restricted to lines within the minter's; every cap of the minter must be matched by a child
 * cap no larger and no more renewing (a monthly cap renews, so it cannot stand in for a lifetime
 * one); and no child monthly cap may promise more than any minter cap. Pure and transitive.
 */
export function authorityExcess(minter: Authority, child: Authority): AuthorityExcess[] {
  const excess: AuthorityExcess[] = [];
  const extraScopes = child.scopes.filter((scope) => !minter.scopes.includes(scope));
  if (extraScopes.length > 0) excess.push({ part: 'scopes', message: `Not held by the minting key: ${extraScopes.join(', ')}` });

  const extraVerbs = TIER_VERBS[child.tier].filter((verb) => !TIER_VERBS[minter.tier].includes(verb));
  if (extraVerbs.length > 0)
    excess.push({ part: 'tier', message: `The minting key's ${minter.tier} tier does not allow: ${extraVerbs.join(', ')}` });

  if (minter.lines !== null) {
    if (child.lines === null) {
      excess.push({ part: 'lines', message: 'The minting key is limited to a number allow-list; the child must be too' });
    } else {
      const extraLines = child.lines.filter((line) => !minter.lines!.includes(line));
      if (extraLines.length > 0) excess.push({ part: 'lines', message: `Not in the minting key's allow-list: ${extraLines.join(', ')}` });
    }
  }

  const spendProblem = spendExcess(minter.spendLimits, child.spendLimits);
  if (spendProblem) excess.push({ part: 'spend', message: spendProblem });
  return excess;
}

/**
 * Every lifetime cap of the minter is matched by a child lifetime cap no larger; every monthly cap
 * by a child cap (of either kind) no larger; and no child monthly cap exceeds any minter cap.
 */
function spendExcess(minter: readonly SpendLimit[], child: readonly SpendLimit[]): string | undefined {
  const childLifetime = child.filter((c) => c.resetPeriod === null);
  for (const cap of minter) {
    const candidates = cap.resetPeriod === null ? childLifetime : child;
    if (candidates.some((c) => c.amountCents <= cap.amountCents)) continue;
    if (candidates.length > 0)
      return `${formatCents(Math.min(...candidates.map((c) => c.amountCents)))} exceeds the minting key's ${formatCents(cap.amountCents)}`;
    if (child.length > 0) return "A monthly limit cannot sit under the minting key's lifetime limit";
    return `The minting key has a spend limit of ${formatCents(cap.amountCents)}; the child needs one too`;
  }
  for (const monthly of child.filter((c) => c.resetPeriod === 'monthly')) {
    const above = minter.find((cap) => monthly.amountCents > cap.amountCents);
    if (above) return `A monthly cap of ${formatCents(monthly.amountCents)} exceeds the minting key's ${formatCents(above.amountCents)}`;
  }
  return undefined;
}

/** How `/api-tokens` names each part of a key's authority: after the grant's request fields. */
export const GRANT_FIELDS: Record<AuthorityPart, string> = {
  scopes: 'grant.scopes',
  tier: 'grant.scopes',
  lines: 'grant.resources.numbers',
  spend: 'grant.spendLimit',
};

function grantAuthority(grant: Grant): Authority {
  return { scopes: grant.scopes, lines: grant.numbers, spendLimits: grant.spendLimit ? [grant.spendLimit] : [], tier: 'full' };
}

/** `authorityExcess` for two `/api-tokens` grants, named by the grant's fields. */
export function grantExcess(parent: Grant, child: Grant): GrantExcess[] {
  return authorityExcess(grantAuthority(parent), grantAuthority(child)).map((e) => ({ field: GRANT_FIELDS[e.part], message: e.message }));
}

/** Raised inside a minting transaction (so nothing is written); the API answers 403 with `excess`. */
export class GrantExceededError extends Error {
  constructor(readonly excess: GrantExcess[]) {
    super("The requested key exceeds the minting key's own grant");
    this.name = 'GrantExceededError';
  }
}

/** Names each exceeding part after a path's request fields, and refuses when there is any. */
export function assertWithin(minter: Authority, child: Authority, fields: Record<AuthorityPart, string>): void {
  const excess = authorityExcess(minter, child);
  if (excess.length > 0) throw new GrantExceededError(excess.map((e) => ({ field: fields[e.part], message: e.message })));
}

/**
 * Why a key is not an unrestricted key of its workspace: delegated (it has a minter), bound to
 * a line, limited to an allow-list, capped, or of an agent tier below full. Empty when it is
 * unrestricted. Workspace-wide money and routing settings need an unrestricted key.
 */
export function keyRestrictions(
  key: KeyRestrictions & { ancestor_ids: readonly string[]; parent_key_id: string | null; created_by_service_key_id: string | null },
): GrantExcess[] {
  const found: GrantExcess[] = [];
  if (key.ancestor_ids.length > 0 || key.parent_key_id || key.created_by_service_key_id)
    found.push({ field: 'parent_key_id', message: 'A delegated key (minted by another key)' });
  if (key.line_id) found.push({ field: 'line_id', message: key.line_id });
  if (key.grant_numbers) found.push({ field: 'grant.resources.numbers', message: 'Limited to a number allow-list' });
  if (key.spend_limit_cents !== null) found.push({ field: 'grant.spendLimit', message: 'Limited by a spend limit' });
  if (key.monthly_cap_cents !== null) found.push({ field: 'monthly_cap_cents', message: 'Limited by a monthly cap' });
  if (key.permissions !== 'full' && key.permissions !== 'legacy_full') found.push({ field: 'permissions', message: key.permissions });
  return found;
}
