import type Koa from 'koa';
import getRawBody from 'raw-body';
import type { AppState } from '../context';
import { ApiError } from '../errors';

/** Deeper JSON is refused before it is parsed: no request schema nests past a handful of levels, and recursive code (fingerprints, validation) must never meet a body deep enough to overflow the stack. */
export const MAX_JSON_DEPTH = 32;

/**
 * Reads and parses a JSON request body with the route's size limit. It runs inside the route's
 * chain, after authentication for key-authenticated routes, so nothing is buffered or parsed for
 * an unknown route or an unauthenticated caller. An empty body is "no body" (the client sends
 * `Content-Type: application/json` on body-less POSTs too); a body that is not JSON, or nests
 * deeper than MAX_JSON_DEPTH, is 400 `invalid_json`; one over the limit is 413 `payload_too_large`.
 */
export function jsonBody(limitBytes: number): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS') return next();
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit: limitBytes, length: ctx.get('content-length') || undefined });
    } catch (err) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') {
        throw new ApiError(413, 'payload_too_large', `Request body exceeds ${limitBytes} bytes`);
      }
      throw new ApiError(400, 'bad_request', 'The request body could not be read');
    }
    if (raw.length > 0 && raw.toString('utf8').trim() !== '') {
      const type = ctx.request.type;
      if (type && type !== 'application/json' && !type.endsWith('+json')) {
        throw new ApiError(415, 'unsupported_media_type', 'Request bodies must be JSON (Content-Type: application/json)');
      }
      if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
        throw new ApiError(400, 'invalid_json', `The request body nests deeper than ${MAX_JSON_DEPTH} levels`, [
          { field: 'body', message: `At most ${MAX_JSON_DEPTH} levels of nesting` },
        ]);
      }
      try {
        ctx.state.body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON');
      }
      ctx.state.rawBody = raw;
    }
    return next();
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

/** One pass over the bytes, outside strings; UTF-8 continuation bytes never equal these ASCII ones. */
export function nestsDeeperThan(raw: Buffer, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (OPENERS.has(byte)) {
      if (++depth > maxDepth) return true;
    } else if (CLOSERS.has(byte)) depth--;
  }
  return false;
}
