import { ROLE_PRESETS, type Role, type Scope } from '../../src/domain/keys/scopes';
import { rolesGrantableBy } from '../../src/domain/accounts/rules';

/**
 * What a role change gives or takes, in words (issue 30, item 3: a role change's confirmation says what the person
 * gains or loses). Derived from the roles' scope presets and the owner-only rules, so a new scope cannot be left out
 * (every scope has its words: the record below is total).
 */
export const SCOPE_ABILITIES: Readonly<Record<Scope, string>> = {
  'calls:create': 'place calls',
  'calls:control': 'control and hang up calls',
  'messages:create': 'send messages',
  'numbers:read': 'read lines and their numbers',
  'numbers:provision': 'create lines (buy or import numbers)',
  'numbers:release': 'release lines',
  'connections:read': "read lines' settings",
  'connections:write': "change lines' settings",
  'consent:write': 'record consent and opt-outs',
  'webhooks:write': 'rotate signing secrets and send test events',
  'billing:read': 'read billing',
  'keys:admin': 'manage members, invitations, API keys and service keys',
  read: 'read calls, messages and the audit log',
};

/** What only an owner may do (src/domain/accounts/rules.ts memberChangeRefusal, twoFactorPolicy.ts). */
export const OWNER_ABILITIES = ['make, demote or remove owners', 'decide whether the workspace requires two-factor sign-in'] as const;

function abilitiesOf(role: Role): string[] {
  return [...ROLE_PRESETS[role].map((scope) => SCOPE_ABILITIES[scope]), ...(role === 'owner' ? OWNER_ABILITIES : [])];
}

export interface RoleChangeWords {
  gained: string[];
  lost: string[];
  /** Scopes the new role lacks: the member's keys are narrowed to it. */
  narrowsKeys: boolean;
  /** Roles the member could invite to and no longer can: such pending invitations of theirs are revoked. */
  invitationsRevokedFor: Role[];
}

export function roleChangeWords(from: Role, to: Role): RoleChangeWords {
  const before = abilitiesOf(from);
  const after = abilitiesOf(to);
  const grantableAfter = rolesGrantableBy(to);
  return {
    gained: after.filter((ability) => !before.includes(ability)),
    lost: before.filter((ability) => !after.includes(ability)),
    narrowsKeys: ROLE_PRESETS[from].some((scope) => !ROLE_PRESETS[to].includes(scope)),
    invitationsRevokedFor: rolesGrantableBy(from).filter((role) => !grantableAfter.includes(role)),
  };
}

/** "a, b and c". */
export function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
