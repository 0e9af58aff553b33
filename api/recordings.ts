import type { AppContext, AppDeps } from './context';
import { ApiError } from './errors';
import { recordingPresentation } from '../src/domain/calls/rules';
import type { CallRow } from '../src/domain/calls/store';
import { byteRangeOf } from '../src/domain/recordings/rules';
import { serveCallRecording } from '../src/domain/recordings/serve';

/** The 404 of a call without a recording either can hand over. */
export const recordingNotFound = () => new ApiError(404, 'not_found', 'This call has no recording');

/**
 * Answers a call's recording (the API's `GET /api/v1/calls/{id}/recording` and the portal's player alike; the caller
 * found the call as the asker's): the stored copy with `Range` (206 and `Content-Range`; 416 with `Content-Range:
 * bytes *\/size` past its end; `Accept-Ranges: bytes`; the ETag its SHA-256), or, until it is stored, the carrier's
 * whole (`Accept-Ranges: none`). src/domain/recordings/serve.ts decides which.
 */
export async function sendCallRecording(ctx: AppContext, deps: AppDeps, row: CallRow): Promise<void> {
  const range = byteRangeOf(ctx.get('range') || undefined);
  const served = await serveCallRecording({ ...deps, log: ctx.state.log }, row, range);
  if (!served.ok) {
    if (served.refused === 'no_recording') throw recordingNotFound();
    if (served.refused === 'range_not_satisfiable')
      throw new ApiError(416, 'range_not_satisfiable', `The range asked for starts past the recording's ${served.size} bytes`, undefined, {
        'Content-Range': `bytes */${served.size}`,
        'Accept-Ranges': 'bytes',
      });
    throw new ApiError(503, 'service_unavailable', 'The recording cannot be read right now; retry shortly', undefined, {
      'Retry-After': '5',
    });
  }
  const contentType = served.from === 'store' ? served.read.head.contentType : served.recording.contentType;
  const shown = recordingPresentation(contentType);
  if (shown.disposition === 'attachment')
    ctx.state.log.warn({ call_id: row.id, content_type: contentType }, 'recording of an unexpected type sent as a download');
  ctx.type = shown.contentType;
  ctx.set('Content-Disposition', `${shown.disposition}; filename="${row.id}.${shown.extension}"`);
  ctx.set('Cache-Control', 'private, no-store');
  if (served.from === 'carrier') {
    ctx.set('Accept-Ranges', 'none');
    if (served.recording.contentLength !== undefined) ctx.length = served.recording.contentLength;
    ctx.body = served.recording.body;
    return;
  }
  const { head, start, end, body } = served.read;
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', `"${head.sha256}"`);
  if (served.ranged) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${start}-${end}/${head.size}`);
  }
  ctx.length = end - start + 1;
  ctx.body = body;
}
