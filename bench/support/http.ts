/** Local HTTP servers and the client side of the benchmarks' loopback traffic. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on a free loopback port; resolves to the server's origin (`http://127.0.0.1:<port>`). */
export function listen(server: http.Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

/** Stops listening and drops kept-alive connections, so closing does not wait for idle sockets to time out. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** POSTs `body` as JSON and reads the answer to its end (so the socket can be reused); resolves to the status. */
export async function postJson(url: string, body: unknown): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.text();
  return response.status;
}
