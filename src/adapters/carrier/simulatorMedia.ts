import WebSocket from 'ws';
import { CarrierRejectedError } from './port';
import { WebSocketMediaStream, type DecodedMediaMessage } from './webSocketMedia';

/**
 * The simulator's media stream for one call (docs/simulator.md, "Audio (media streams)"): a
 * WebSocket to `/carrier/v1/calls/{carrier_call_id}/media` carrying JSON messages.
 *
 * Simulator → us: `start`, `media {sequence, timestamp, payload}`, `mark {name}` (played),
 * `stop {reason}`. Us → simulator: `media {sequence, payload}`, `mark {name}`, `clear`.
 */
export class SimulatorMediaStream extends WebSocketMediaStream {
  /**
   * Connects. A 4xx answer to the upgrade (401, 404: unknown call, 409: call not answered) is a
   * `CarrierRejectedError`; anything else that fails (5xx, network, `timeoutMs`) a plain `Error`.
   */
  static open(url: URL, apiKey: string, timeoutMs: number): Promise<SimulatorMediaStream> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, {
        headers: { authorization: `Bearer ${apiKey}` },
        handshakeTimeout: timeoutMs,
        perMessageDeflate: false,
        maxPayload: 1024 * 1024,
      });
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        reject(err);
      };
      ws.once('unexpected-response', (_req, res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8').slice(0, 200);
          if (status >= 400 && status < 500) fail(new CarrierRejectedError(`carrier refused the media stream: ${status} ${body}`));
          else fail(new Error(`carrier error opening the media stream: ${status}`));
        });
        res.on('error', (err) => fail(err));
      });
      ws.once('error', (err) => fail(err));
      ws.once('open', () => {
        if (settled) return;
        settled = true;
        ws.removeAllListeners();
        resolve(new SimulatorMediaStream(ws));
      });
    });
  }

  protected encodeMedia(payload: Buffer, sequence: number): object {
    return { event: 'media', sequence, payload: payload.toString('base64') };
  }

  protected encodeMark(name: string): object {
    return { event: 'mark', name };
  }

  protected encodeClear(): object {
    return { event: 'clear' };
  }

  protected decode(message: Record<string, unknown>): DecodedMediaMessage | null {
    if (message.event === 'media' && typeof message.payload === 'string')
      return {
        kind: 'media',
        sequence: Number(message.sequence),
        timestamp: Number(message.timestamp),
        payload: Buffer.from(message.payload, 'base64'),
      };
    if (message.event === 'mark' && typeof message.name === 'string') return { kind: 'mark', name: message.name };
    if (message.event === 'stop') return { kind: 'stop' };
    return null;
  }
}
