import crypto from 'node:crypto';
import getRawBody from 'raw-body';
import type { AppContext, AppDeps } from '../context';
import { pageContentSecurityPolicy } from '../contentSecurityPolicy';
import { ApiError } from '../errors';
import { isLoopbackUrl } from '../../src/platform/startupCheck';
import type { Html } from './html';
import { noteAction } from './actionLog';

/**
 * The portal's HTTP plumbing: headers on every answer, cookies, form bodies and CSRF
 * (docs/decisions/portal.md, "Operator portal and accounts (issue 17)").
 */

export const CONTENT_SECURITY_POLICY = pageContentSecurityPolicy(["style-src 'self'", "img-src 'self' data:"]);

/** One year, as browsers' preload lists ask; sent only when the portal is served over https (RFC 6797 §7.2). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

export function securityHeaders(ctx: AppContext, deps: Pick<AppDeps, 'config'>): void {
  ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  if (deps.config.publicBaseUrl.startsWith('https:')) ctx.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

export const SESSION_COOKIE = 'sb_portal_session';
/** The double-submit token of forms shown before sign-in (signup, login). */
export const PRE_SESSION_CSRF_COOKIE = 'sb_portal_csrf';

interface CookieOptions {
  maxAgeSeconds?: number;
  sameSite: 'Lax' | 'Strict';
}

/**
 * Secure whenever the deployment is reached over https (whatever the hop to this process was), and
 * outside the dev profile always but on a loopback http URL (issue 27, L16): the startup check lets
 * production serve plain http only there, where a browser may refuse a Secure cookie over http.
 */
function isSecure(deps: AppDeps): boolean {
  const { publicBaseUrl, profile } = deps.config;
  return publicBaseUrl.startsWith('https:') || (profile !== 'dev' && !isLoopbackUrl(publicBaseUrl));
}

export function setCookie(ctx: AppContext, deps: AppDeps, name: string, value: string, options: CookieOptions): void {
  const parts = [`${name}=${value}`, 'Path=/portal', 'HttpOnly', `SameSite=${options.sameSite}`];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (isSecure(deps)) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(ctx: AppContext, deps: AppDeps, name: string): void {
  setCookie(ctx, deps, name, '', { maxAgeSeconds: 0, sameSite: 'Lax' });
}

export function readCookie(ctx: AppContext, name: string): string | undefined {
  return ctx.cookies.get(name) || undefined;
}

const FORM_LIMIT_BYTES = 16 * 1024;

/** A form (or, from scripts, a JSON object of strings) of at most `limitBytes`; every value a string, missing ones empty. */
export async function readForm(ctx: AppContext, limitBytes = FORM_LIMIT_BYTES): Promise<Record<string, string>> {
  const type = ctx.request.type;
  if (type !== 'application/x-www-form-urlencoded' && type !== 'application/json')
    throw new ApiError(415, 'unsupported_media_type', 'Send a form (application/x-www-form-urlencoded) or JSON');
  let raw: string;
  try {
    raw = (await getRawBody(ctx.req, { limit: limitBytes, length: ctx.get('content-length') || undefined })).toString('utf8');
  } catch {
    throw new ApiError(413, 'payload_too_large', `Request body exceeds ${limitBytes} bytes`);
  }
  const form = parsedForm(type, raw);
  noteAction(ctx, { form });
  return form;
}

function parsedForm(type: string, raw: string): Record<string, string> {
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(raw));
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The body is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
  return Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, typeof value === 'string' ? value : '']));
}

/** The CSRF token of a session: derived from its secret token, so it needs no storage and dies with the session. */
export function sessionCsrfToken(sessionToken: string): string {
  return crypto.createHmac('sha256', sessionToken).update('portal-csrf').digest('base64url');
}

export function newPreSessionToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

/**
 * Refuses a state change that is not from the portal's own pages: a cross-site `Origin` or
 * `Sec-Fetch-Site`, or a `csrf_token` field (or `X-CSRF-Token` header) other than `expected`.
 */
export function assertCsrf(ctx: AppContext, deps: AppDeps, form: Record<string, string>, expected: string | undefined): void {
  const origin = ctx.get('origin');
  // Koa 3's ctx.origin echoes the Origin header: our own is built from the request's protocol and host.
  const ownOrigins = [`${ctx.protocol}://${ctx.host}`, new URL(deps.config.publicBaseUrl).origin];
  const crossSite =
    (origin && origin !== 'null' && !ownOrigins.includes(origin)) || origin === 'null' || ctx.get('sec-fetch-site') === 'cross-site';
  const presented = form.csrf_token || ctx.get('x-csrf-token');
  if (crossSite || !expected || !presented || !sameToken(presented, expected))
    throw new ApiError(403, 'forbidden', 'The form is stale or did not come from this portal: reload the page and try again');
  noteAction(ctx, { formTrusted: true });
}

/** Scripts asking for JSON get the API's error envelope; browsers get the page again, with the error on it. */
export function wantsJson(ctx: AppContext): boolean {
  return ctx.accepts('html', 'json') === 'json';
}

export function sendPage(ctx: AppContext, status: number, page: Html): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page.value;
}
