/**
 * OAuth 2.1 for the MCP endpoint (issue 29; docs/decisions/keys.md "OAuth 2.1 for the MCP endpoint (issue 29)"):
 * token formats, lifetimes and the resource a token is bound to. Pure.
 */
import crypto from 'node:crypto';

/** Access tokens are short-lived: a host refreshes them (rotating the refresh token) rather than holding one long. */
export const ACCESS_TOKEN_LIFETIME_S = 15 * 60;
/** A refresh token unused this long lapses; each use replaces it with a new one. */
export const REFRESH_TOKEN_LIFETIME_S = 30 * 24 * 3600;
/** Codes are exchanged by the client right after the redirect (RFC 6749 §4.1.2: short, at most ten minutes). */
export const CODE_LIFETIME_S = 2 * 60;
/** Time a person has to sign in (second factor included) and consent. */
export const AUTHORIZATION_REQUEST_LIFETIME_S = 15 * 60;

export type OpaqueKind = 'access' | 'refresh' | 'code' | 'request';

/**
 * Prefixes make a leaked token recognisable to secret scanners and keep it apart from API keys
 * (`sk_...`, src/domain/keys/format.ts), so /mcp tells the two credentials apart by their form.
 */
const PREFIXES: Record<OpaqueKind, string> = { access: 'sbo_at_', refresh: 'sbo_rt_', code: 'sbo_ac_', request: 'sbo_ar_' };

/** 256 random bits: a plain SHA-256 is a sufficient at-rest digest, as for API keys. */
export function newOpaque(kind: OpaqueKind): string {
  return PREFIXES[kind] + crypto.randomBytes(32).toString('base64url');
}

export function isOpaque(kind: OpaqueKind, value: string): boolean {
  return value.startsWith(PREFIXES[kind]) && /^[A-Za-z0-9_-]{43}$/.test(value.slice(PREFIXES[kind].length));
}

export function digestOf(value: string): string {
  return crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

export function addSeconds(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000);
}

/** The protected resource (RFC 8707, RFC 9728): the MCP endpoint's absolute URL under PUBLIC_BASE_URL. */
export function mcpResourceOf(publicBaseUrl: string): string {
  return new URL('/mcp', publicBaseUrl).href;
}

/**
 * Whether a `resource` a client names is this resource: the same URL once parsed (scheme and host
 * case, default port), with or without a trailing slash. Anything else is another resource (RFC 8707
 * `invalid_target`), so a token is never issued for, nor accepted by, a resource it was not meant for.
 */
export function isSameResource(requested: string, resource: string): boolean {
  if (!URL.canParse(requested)) return false;
  const strip = (href: string) => (href.endsWith('/') ? href.slice(0, -1) : href);
  const url = new URL(requested);
  return url.hash === '' && strip(url.href) === strip(new URL(resource).href);
}

/** The seal of a grant's delegated key is bound to its grant: a ciphertext moved to another row does not open. */
export function keySealingContext(grantId: string): string {
  return `oauth_grants:${grantId}`;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Redirect URIs a public client may register (OAuth 2.1 §7.5.1, RFC 8252 §7): https, http on a
 * loopback address (native apps), or a private-use scheme with a dot or a single word (`claude:`);
 * never a fragment, never plain http elsewhere, never `javascript:`/`data:`-like schemes.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (!URL.canParse(uri)) return 'is not an absolute URI';
  const url = new URL(uri);
  if (url.hash) return 'must not have a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname) ? undefined : 'must use https unless it is a loopback address';
  if (['javascript:', 'data:', 'file:', 'blob:', 'about:', 'vbscript:', 'ftp:', 'ws:', 'wss:'].includes(url.protocol))
    return `must not use the ${url.protocol} scheme`;
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? undefined : 'has an invalid scheme';
}

/** A CSP `form-action` source that lets the consent form's answer redirect to `redirectUri`. */
export function formActionSourceOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}
