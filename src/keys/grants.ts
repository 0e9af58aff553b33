import type { Scope } from './scopes';

/**
 * A key's grant (spec: "Scoped API key and its grant"): non-empty scopes, an optional
 * allow-list of numbers (line ids), an optional spend limit that is lifetime (resetPeriod
 * null) or monthly. A child grant may never exceed its parent's.
 */
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
  field: 'grant.scopes' | 'grant.resources.numbers' | 'grant.spendLimit';
  message: string;
}

/** What part of `child` exceeds `parent`; empty when the child is within it. */
export function grantExcess(parent: Grant, child: Grant): GrantExcess[] {
  const excess: GrantExcess[] = [];
  const extraScopes = child.scopes.filter((scope) => !parent.scopes.includes(scope));
  if (extraScopes.length > 0) excess.push({ field: 'grant.scopes', message: `Not held by the minting key: ${extraScopes.join(', ')}` });

  if (parent.numbers !== null) {
    if (child.numbers === null) {
      excess.push({ field: 'grant.resources.numbers', message: 'The minting key is limited to a number allow-list; the child must be too' });
    } else {
      const extraNumbers = child.numbers.filter((n) => !parent.numbers!.includes(n));
      if (extraNumbers.length > 0) excess.push({ field: 'grant.resources.numbers', message: `Not in the minting key's allow-list: ${extraNumbers.join(', ')}` });
    }
  }

  if (parent.spendLimit !== null) {
    const p = parent.spendLimit;
    const c = child.spendLimit;
    if (c === null) {
      excess.push({ field: 'grant.spendLimit', message: `The minting key has a spend limit of ${p.amountCents} cents; the child needs one too` });
    } else if (c.amountCents > p.amountCents) {
      excess.push({ field: 'grant.spendLimit', message: `${c.amountCents} cents exceeds the minting key's ${p.amountCents} cents` });
    } else if (p.resetPeriod === null && c.resetPeriod === 'monthly') {
      // A monthly cap renews; under a lifetime parent it could spend more than the parent ever may.
      excess.push({ field: 'grant.spendLimit', message: "A monthly limit cannot sit under the minting key's lifetime limit" });
    }
  }
  return excess;
}

/** Line ids a grant or a line binding restricts a key to; undefined when unrestricted. */
export function restrictedLineIds(key: { grant_numbers: string[] | null; line_id: string | null }): readonly string[] | undefined {
  if (key.line_id) return [key.line_id];
  if (key.grant_numbers) return key.grant_numbers;
  return undefined;
}
