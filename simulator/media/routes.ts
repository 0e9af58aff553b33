import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type Router from '@koa/router';
import { WebSocketServer } from 'ws';
import { FRAME_MS, MULAW_SAMPLE_RATE } from '../../src/platform/audio/mulaw';
import { answer, badRequest, bearerMatches, readJson } from '../http';
import { MAX_DURATION_MS, MAX_TEXT } from './callerAudio';
import type { MediaSimulatorState } from './state';

/** How the media side is reached: the carrier's WebSocket upgrade, and the control API's audio routes. */

const MEDIA_PATH = /^\/carrier\/v1\/calls\/([^/?#]+)\/media(?:\?.*)?$/;

/**
 * Serves media connections on the simulator's HTTP server: `GET /carrier/v1/calls/{carrier_call_id}/media`
 * with `Upgrade: websocket` and the carrier bearer. Other upgrade paths are left to other
 * `upgrade` handlers (answered 404 when there is none).
 */
export function handleMediaUpgrades(server: http.Server, media: MediaSimulatorState, apiKey: string): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = MEDIA_PATH.exec(req.url ?? '');
    if (!match) {
      // Another path: another handler's, if there is one; otherwise nobody serves it.
      if (server.listenerCount('upgrade') === 1) refuse(socket, 404, 'no WebSocket endpoint here');
      return;
    }
    if (!bearerMatches(req.headers.authorization, apiKey)) return refuse(socket, 401, 'invalid carrier credentials');
    let carrierCallId: string;
    try {
      carrierCallId = decodeURIComponent(match[1]);
    } catch {
      return refuse(socket, 404, 'no such call');
    }
    const admitted = media.admit(carrierCallId);
    if ('status' in admitted) return refuse(socket, admitted.status, admitted.error);
    wss.handleUpgrade(req, socket, head, (ws) => media.attach(admitted, ws));
  });
  return wss;
}

function refuse(socket: Duplex, status: 401 | 404 | 409, error: string): void {
  const body = JSON.stringify({ error });
  const text = status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Conflict';
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** `POST/GET /control/calls/{call_id}/audio`: the caller speaks; what the caller heard. */
export function mediaRoutes(router: Router, media: MediaSimulatorState): void {
  router.post('/control/calls/:call_id/audio', async (ctx) => {
    const body = await readJson(ctx);
    const { tone_hz: toneHz, duration_ms: durationMs, text, stamp } = body;
    if (toneHz !== undefined && !(typeof toneHz === 'number' && Number.isFinite(toneHz) && toneHz > 0 && toneHz < MULAW_SAMPLE_RATE / 2))
      return badRequest(ctx, 'tone_hz must be a number above 0 and below 4000');
    if (
      durationMs !== undefined &&
      !(typeof durationMs === 'number' && Number.isSafeInteger(durationMs) && durationMs >= FRAME_MS && durationMs <= MAX_DURATION_MS)
    ) {
      return badRequest(ctx, `duration_ms must be an integer from ${FRAME_MS} to ${MAX_DURATION_MS}`);
    }
    if (text !== undefined && !(typeof text === 'string' && text.trim() !== '' && text.length <= MAX_TEXT))
      return badRequest(ctx, `text must be a non-blank string of at most ${MAX_TEXT} characters`);
    if (stamp !== undefined && typeof stamp !== 'boolean') return badRequest(ctx, 'stamp must be a boolean');
    const result = await media.speak(ctx.params.call_id, { toneHz, durationMs, text, stamp });
    const refusals = { not_answered: 'call is not answered', not_connected: 'no media stream is connected' };
    answer(ctx, result, refusals, (spoken) => ({ call_id: ctx.params.call_id, ...spoken }), 202);
  });
  router.get('/control/calls/:call_id/audio', async (ctx) => {
    answer(ctx, media.report(ctx.params.call_id), {}, (report) => report);
  });
}
