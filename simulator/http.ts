import crypto from 'node:crypto';
import type Koa from 'koa';
import getRawBody from 'raw-body';

/** Request helpers shared by the simulator's carrier and control routes. */

export async function readJson(ctx: Koa.Context): Promise<Record<string, unknown>> {
  const raw = await getRawBody(ctx.req, { limit: 64 * 1024 });
  if (raw.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    ctx.throw(400, 'invalid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) ctx.throw(400, 'body must be a JSON object');
  return parsed as Record<string, unknown>;
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function badRequest(ctx: Koa.Context, error: string): void {
  ctx.status = 400;
  ctx.body = { error };
}

/** `Authorization: Bearer <expected>`, compared in constant time (over digests, so lengths leak nothing). */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest();
  return crypto.timingSafeEqual(digest(header ?? ''), digest(`Bearer ${expected}`));
}
