import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** A customer's audio handler that answers the caller with their own audio (an echo), and keeps every message it got. */
export interface EchoAudioHandler {
  /** The `audio_handler_url` to give an audio line. */
  url: string;
  /** Every message Switchboard sent, in order. */
  received: Array<Record<string, unknown>>;
  /** The socket Switchboard opened, once it has. */
  socket(): WebSocket | undefined;
  close(): Promise<void>;
}

export async function startEchoAudioHandler(): Promise<EchoAudioHandler> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const received: Array<Record<string, unknown>> = [];
  let socket: WebSocket | undefined;
  server.on('connection', (ws) => {
    socket = ws;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      received.push(message);
      if (message.event === 'media')
        ws.send(
          JSON.stringify({
            event: 'media',
            stream_id: message.stream_id,
            media: { payload: (message.media as { payload: string }).payload },
          }),
        );
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/agent`,
    received,
    socket: () => socket,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
