/**
 * Every rate limit of the service, in one table (spec "Limits", plus the key list's 600/h
 * from the client's history, plus rows of our own for endpoints the spec leaves unlimited that
 * do unbounded work; docs/decisions/api.md "Rate limits"). Routes name a row; nothing else holds a limit.
 * Partition: per workspace and environment unless the spec says per user or per service key.
 */
import { addressLimitKey } from '../../platform/net/addresses';

export type Partition = 'workspace_env' | 'user' | 'key' | 'account' | 'address' | 'account_address' | 'deployment';

export interface LimitPolicy {
  limit: number;
  windowSeconds: number;
  partition: Partition;
  /** A fixed Retry-After (the spec fixes 120 s on rotate); otherwise the time until a slot frees. */
  retryAfterSeconds?: number;
  /** Each endpoint using the row counts separately (the spec's "read endpoints" row). */
  perRoute?: boolean;
  /**
   * A growing delay instead of a hard stop: the first `free` hits in the window pass at once, then
   * each further one waits `firstSeconds * 2^(hits - free)` (at most `maxSeconds`) after the latest.
   */
  growingDelay?: { free: number; firstSeconds: number; maxSeconds: number };
}

const HOUR = 3600;

export const RATE_LIMITS = {
  'lines.create': { limit: 10, windowSeconds: HOUR, partition: 'workspace_env' },
  'lines.update': { limit: 60, windowSeconds: HOUR, partition: 'workspace_env' },
  'lines.delete': { limit: 10, windowSeconds: HOUR, partition: 'workspace_env' },
  'calls.create': { limit: 60, windowSeconds: HOUR, partition: 'workspace_env' },
  'calls.conversation': { limit: 60, windowSeconds: HOUR, partition: 'workspace_env' },
  'messages.create': { limit: 10, windowSeconds: 60, partition: 'workspace_env' },
  'consent.create': { limit: 100, windowSeconds: HOUR, partition: 'workspace_env' },
  'disclosures.create': { limit: 20, windowSeconds: HOUR, partition: 'workspace_env' },
  'webhooks.test': { limit: 10, windowSeconds: HOUR, partition: 'workspace_env' },
  /** Campaigns (issue 31; docs/decisions/campaigns.md): each creation records up to 100,000 contacts; control is pause, resume, cancel. */
  'campaigns.create': { limit: 60, windowSeconds: HOUR, partition: 'workspace_env' },
  'campaigns.control': { limit: 120, windowSeconds: HOUR, partition: 'workspace_env' },
  /** Contact lists uploaded as CSV (up to 100,000 rows each): as many as creations, each upload being a campaign to be. */
  'campaigns.contact_lists': { limit: 60, windowSeconds: HOUR, partition: 'workspace_env' },
  /** Deleting a list before its expiry: at most one per upload, so the uploads' own measure, counted apart from them. */
  'campaigns.contact_lists_delete': { limit: 60, windowSeconds: HOUR, partition: 'workspace_env' },
  /**
   * Read endpoints named by the spec: conversations, settings, usage (and billing reads), and by
   * the same measure every list or aggregate that scans a workspace's history: lines, calls,
   * webhook deliveries and stats, compliance audit and events, disclosures.
   */
  reads: { limit: 60, windowSeconds: HOUR, partition: 'workspace_env', perRoute: true },
  /** Live call control (speak, wait, press, hangup), together: each is a Temporal update or signal. */
  'calls.control': { limit: 600, windowSeconds: 60, partition: 'workspace_env' },
  'settings.update': { limit: 60, windowSeconds: HOUR, partition: 'workspace_env' },
  'lines.secret_rotate': { limit: 10, windowSeconds: HOUR, partition: 'workspace_env' },
  'consent.revoke': { limit: 100, windowSeconds: HOUR, partition: 'workspace_env' },
  'audit.read': { limit: 60, windowSeconds: HOUR, partition: 'user' },
  'keys.mint': { limit: 60, windowSeconds: HOUR, partition: 'key' },
  'keys.rotate': { limit: 30, windowSeconds: HOUR, partition: 'key', retryAfterSeconds: 120 },
  'keys.list': { limit: 600, windowSeconds: HOUR, partition: 'key' },
  'keys.update': { limit: 60, windowSeconds: HOUR, partition: 'key' },
  'keys.revoke': { limit: 60, windowSeconds: HOUR, partition: 'key' },
  /**
   * Not a limit on requests: how often a refusal for the key's tier writes its compliance event
   * (one per key and verb per minute; every refusal is still answered 403 and logged).
   */
  'events.permission_denied': { limit: 1, windowSeconds: 60, partition: 'key', perRoute: true },
  /** Delegated minting (`/api-tokens`, `/api/v1/auth/keys`); not in the spec: the keys plane's 60/h, per workspace so a subtree cannot multiply it. */
  'tokens.mint': { limit: 60, windowSeconds: HOUR, partition: 'workspace_env' },
  /**
   * Failed portal sign-ins (issue 27, L12; docs/decisions/portal.md "Sign-in throttling (issue 27)"): only
   * failures count (a wrong password, a wrong second-factor code), per account AND client address, so
   * nobody elsewhere can slow a user down by guessing at their email. Five pass at once, then each
   * waits 15 s, 30 s, 1 min ... up to 15 min after the latest; a successful sign-in clears the count.
   * `limit` only bounds what one bucket stores (the delays allow about a dozen failures an hour).
   */
  'portal.login_failures': {
    limit: 100,
    windowSeconds: HOUR,
    partition: 'account_address',
    growingDelay: { free: 5, firstSeconds: 15, maxSeconds: 15 * 60 },
  },
  /** Failed sign-ins from one client address (an IPv6 /64), whatever the accounts: password spraying. */
  'portal.login_address': { limit: 30, windowSeconds: 15 * 60, partition: 'address' },
  /** Portal signups per client address: each one creates a workspace with its signup credit. */
  'portal.signup': { limit: 10, windowSeconds: HOUR, partition: 'address' },
  /**
   * Portal signups of the whole deployment (issue 27, H5): one bucket every API instance shares, so
   * no spread of client addresses outruns it. The limit is SIGNUP_RATE_PER_HOUR (100 by default);
   * each refusal counts in switchboard_portal_signups_total{outcome="rate_limited_global"}, which an
   * alert watches (docs/operations.md "Signup alerts").
   */
  'portal.signup_global': { limit: 100, windowSeconds: HOUR, partition: 'deployment' },
  /** Mail a visitor asks for (a new verification link, a password reset) per address and per account. */
  'portal.mail_address': { limit: 10, windowSeconds: HOUR, partition: 'address' },
  'portal.mail_account': { limit: 5, windowSeconds: HOUR, partition: 'account' },
  /** Accepting a member invitation sets a password and opens a session: limited as a signup is. */
  'portal.invitation_accept': { limit: 10, windowSeconds: HOUR, partition: 'address' },
  /**
   * OAuth for /mcp (issue 29), per client address, shared by every API instance (the MCP SDK's own
   * in-memory limiter is off): registrations create rows, so they are few; the token, authorize and
   * revoke endpoints are the RFCs' public endpoints, limited as generously as a host refreshing needs.
   */
  'oauth.register': { limit: 20, windowSeconds: HOUR, partition: 'address' },
  'oauth.endpoints': { limit: 300, windowSeconds: 15 * 60, partition: 'address' },
} as const satisfies Record<string, LimitPolicy>;

export type LimitName = keyof typeof RATE_LIMITS;

export function bucketFor(
  name: LimitName,
  who: { workspaceId: string; environment: string; userId: string; keyId: string },
  route?: string,
): string {
  const policy: LimitPolicy = RATE_LIMITS[name];
  const row = policy.perRoute && route ? `${name}[${route}]` : name;
  switch (policy.partition) {
    case 'workspace_env':
      return `${row}:ws:${who.workspaceId}:${who.environment}`;
    case 'user':
      return `${row}:user:${who.userId}`;
    case 'key':
      return `${row}:key:${who.keyId}`;
    case 'account':
    case 'address':
    case 'account_address':
    case 'deployment':
      throw new Error(`${name} limits callers before they have a key: use accessBucketFor`);
  }
}

/**
 * The bucket of a limit on callers without a key: per account (its email) or per client address
 * (an IPv6 address counted by its /64, an IPv4-mapped one as the IPv4 address: addressLimitKey).
 */
export function accessBucketFor(name: LimitName, value: string, clientAddress?: string): string {
  const policy: LimitPolicy = RATE_LIMITS[name];
  if (policy.partition === 'deployment') return `${name}:deployment`;
  if (policy.partition === 'address') return `${name}:address:${addressLimitKey(value)}`;
  if (policy.partition === 'account_address' && clientAddress !== undefined)
    return `${name}:account_address:${value}:${addressLimitKey(clientAddress)}`;
  if (policy.partition !== 'account') throw new Error(`${name} is partitioned by ${policy.partition} (an account and a client address)`);
  return `${name}:account:${value}`;
}
