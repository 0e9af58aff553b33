/**
 * Permission tiers of agent (child) keys, and the verb each route needs. A tier allows a set
 * of verbs; a request whose verb the tier lacks is 403 `agent_permission_denied` with the
 * tier and the verb in details. Recorded in docs/decisions/keys.md.
 */
import { SCOPES, type Scope } from './scopes';

export const TIERS = ['full', 'call_only', 'sms_only', 'read_only', 'legacy_full'] as const;
export type Tier = (typeof TIERS)[number];
/** `legacy_full` marks keys from before v0.5.7.0; it can be read but never set through the API. */
export const SETTABLE_TIERS = ['full', 'call_only', 'sms_only', 'read_only'] as const;
export type SettableTier = (typeof SETTABLE_TIERS)[number];
export const DEFAULT_TIER: SettableTier = 'full';

export const VERBS = ['read', 'call', 'sms', 'admin'] as const;
export type Verb = (typeof VERBS)[number];

export const TIER_VERBS: Readonly<Record<Tier, readonly Verb[]>> = {
  full: VERBS,
  legacy_full: VERBS,
  call_only: ['read', 'call'],
  sms_only: ['read', 'sms'],
  read_only: ['read'],
};

/**
 * The scopes an agent key of each tier holds. Agent keys never hold `keys:admin`: delegation
 * is for people and their scoped tokens, not for agents.
 */
const AGENT_SCOPES = SCOPES.filter((scope) => scope !== 'keys:admin');
export const TIER_SCOPES: Readonly<Record<Tier, readonly Scope[]>> = {
  full: AGENT_SCOPES,
  legacy_full: AGENT_SCOPES,
  call_only: ['calls:create', 'calls:control', 'numbers:read', 'connections:read', 'billing:read', 'read'],
  sms_only: ['messages:create', 'numbers:read', 'connections:read', 'consent:write', 'billing:read', 'read'],
  read_only: ['numbers:read', 'connections:read', 'billing:read', 'read'],
};

export function tierAllows(tier: string, verb: Verb): boolean {
  const verbs = TIER_VERBS[tier as Tier];
  return verbs !== undefined && verbs.includes(verb);
}

export function isSettableTier(value: string): value is SettableTier {
  return (SETTABLE_TIERS as readonly string[]).includes(value);
}
