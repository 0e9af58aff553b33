import type Koa from 'koa';
import { CODEC_PREFIX } from '../routes/temporalCodec';

/**
 * Permissive CORS, as the public client expects: every route answers an OPTIONS preflight. Not the
 * operator portal's pages: no other origin may script them (api/portal/router.ts).
 */
export function cors(): Koa.Middleware {
  // Not an async function: it only passes on or answers, and an async layer costs a promise and ticks per request.
  return (ctx, next) => {
    if (ctx.path === '/portal' || ctx.path.startsWith('/portal/')) return next();
    // The codec endpoint admits only the Temporal UI's origins (api/routes/temporalCodec.ts).
    if (ctx.path === CODEC_PREFIX || ctx.path.startsWith(`${CODEC_PREFIX}/`)) return next();
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', 'x-request-id, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'Authorization, Content-Type, Idempotency-Key');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return Promise.resolve();
    }
    return next();
  };
}
