import type Koa from 'koa';
import getRawBody from 'raw-body';
import type { AppState } from '../context';
import { ApiError } from '../errors';

/**
 * Reads and parses JSON request bodies with a size limit. An empty body is "no body"
 * (the client sends `Content-Type: application/json` on body-less POSTs too); a body
 * that is not JSON is 400 `invalid_json`; one over the limit is 413 `payload_too_large`.
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
