import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a real server (the S3 store's), which a test switches between passing connections through,
 * refusing them (each is reset at once: the server looks down) and holding them (accepted, nothing forwarded: a
 * request in flight that never ends), without the server itself knowing.
 */
export interface TcpProxy {
  url: string;
  mode: 'pass' | 'refuse' | 'hold';
  /** Connections accepted while holding, still open. */
  readonly held: number;
  /** Connections refused so far. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const heldSockets = new Set<net.Socket>();
  const open = new Set<net.Socket>();
  let refused = 0;
  const proxy: TcpProxy = {
    url: '',
    mode: 'pass',
    get held() {
      return heldSockets.size;
    },
    get refused() {
      return refused;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = net.createServer((client) => {
    open.add(client);
    client.once('close', () => void (open.delete(client), heldSockets.delete(client)));
    client.on('error', () => undefined);
    if (proxy.mode === 'refuse') {
      refused += 1;
      client.resetAndDestroy();
      return;
    }
    if (proxy.mode === 'hold') {
      heldSockets.add(client);
      client.resume();
      return;
    }
    const upstream = net.connect(Number(port), hostname);
    open.add(upstream);
    upstream.once('close', () => void (open.delete(upstream), client.destroy()));
    upstream.on('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
