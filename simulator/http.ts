import crypto from 'node:crypto';
import type Koa from 'koa';
import getRawBody from 'raw-body';

/** Request helpers shared by the simulator's carrier and control routes. */

export const E164 = /^\+[1-9]\d{6,14}$/;

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

/** How a refusal of a call operation is answered: 409 with this error text, or this status and body. */
export type Refusal = string | { status: number; body: Record<string, unknown> };

/**
 * Answers what an operation on a call returned: `unknown` (or no result) is 404 `no such call`;
 * another code is refused as `refusals` says; anything else is `status` with `reply(result)`.
 */
export function answer<Result extends object | string | null | undefined>(
  ctx: Koa.Context,
  result: Result,
  refusals: Record<Exclude<Extract<Result, string>, 'unknown'>, Refusal>,
  reply: (result: Exclude<Result, string | null | undefined>) => unknown,
  status = 200,
): void {
  if (result === 'unknown' || result === null || result === undefined) {
    ctx.status = 404;
    ctx.body = { error: 'no such call' };
    return;
  }
  if (typeof result === 'string') {
    const refusal: Refusal = refusals[result as Exclude<Extract<Result, string>, 'unknown'>];
    ctx.status = typeof refusal === 'string' ? 409 : refusal.status;
    ctx.body = typeof refusal === 'string' ? { error: refusal } : refusal.body;
    return;
  }
  ctx.status = status;
  ctx.body = reply(result as Exclude<Result, string | null | undefined>);
}

/** `Authorization: Bearer <expected>`, compared in constant time (over digests, so lengths leak nothing). */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest();
  return crypto.timingSafeEqual(digest(header ?? ''), digest(`Bearer ${expected}`));
}
