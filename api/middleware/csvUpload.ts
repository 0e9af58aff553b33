import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { AppState } from '../context';
import { ApiError } from '../errors';
import { readContactListCsv } from '../../src/domain/campaigns/contactListCsv';

/**
 * Reads a CSV upload (a campaign's contact list) as it streams in, in the place of the JSON reader
 * (api/middleware/jsonBody.ts) and after authentication like it: the bytes are counted (413
 * `payload_too_large` past `limitBytes`), hashed (the idempotency fingerprint) and decoded as UTF-8,
 * and each chunk goes straight to the CSV reader, so the file is never held whole, only the
 * contacts read from it. A list with problems is 422 `validation_error` naming each row and
 * column at fault; a body that is not `text/csv` is 415, and one that is not UTF-8 is 422 `body`.
 */
export function csvUpload(limitBytes: number): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const type = ctx.request.type;
    const charset = ctx.request.charset;
    if (type !== 'text/csv' || (charset && charset.toLowerCase() !== 'utf-8'))
      throw new ApiError(415, 'unsupported_media_type', 'Send the contact list as CSV in UTF-8 (Content-Type: text/csv)');
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limitBytes) throw closingIfUnread(ctx.req, tooLarge(limitBytes));
    const hash = crypto.createHash('sha256');
    let reading;
    try {
      reading = await readContactListCsv(decoded(ctx.req, limitBytes, hash));
    } catch (err) {
      throw err instanceof ApiError ? closingIfUnread(ctx.req, err) : err;
    }
    if (!reading.ok)
      throw closingIfUnread(
        ctx.req,
        new ApiError(422, 'validation_error', 'The contact list has invalid rows or columns', reading.problems),
      );
    ctx.state.upload = { sha256: hash.digest('hex'), list: reading.list };
    return next();
  };
}

/**
 * A refusal answered before the body was read to its end closes the connection (`Connection: close`): the client may
 * still be sending, and a connection reused with the rest of that body in it would answer its next request with garbage.
 */
function closingIfUnread(req: IncomingMessage, err: ApiError): ApiError {
  if (req.complete) return err;
  return new ApiError(err.status, err.code, err.message, err.details, { ...err.headers, Connection: 'close' });
}

function tooLarge(limitBytes: number): ApiError {
  return new ApiError(413, 'payload_too_large', `Request body exceeds ${limitBytes} bytes`);
}

/** The request's text, chunk by chunk; leaving early does not destroy the request, so the refusal can still be answered. */
async function* decoded(req: IncomingMessage, limitBytes: number, hash: crypto.Hash): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  try {
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > limitBytes) throw tooLarge(limitBytes);
      hash.update(chunk);
      yield decoder.decode(chunk, { stream: true });
    }
    yield decoder.decode();
  } catch (err) {
    // By its code: under a test runner's sandbox the TypeError may be another realm's.
    if ((err as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA')
      throw new ApiError(422, 'validation_error', 'The contact list is not UTF-8 text', [
        { field: 'body', message: 'Not UTF-8: save the file as CSV UTF-8' },
      ]);
    if (err instanceof ApiError) throw err;
    throw new ApiError(400, 'bad_request', 'The request body could not be read');
  }
}
