import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { canConnect, stopProcess, waitForPort } from '../../dev/infra/proc';
import { freePort } from '../../src/platform/net/freePort';
import { createTenant, eventually } from '../support/harness';
import { useSuite } from '../support/suite';

/** One HTTP/1.1 exchange over a socket the test controls byte by byte; the answer is read until the server closes. */
function rawExchange(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  let closed = false;
  socket.on('data', (chunk) => (received += chunk.toString('utf8')));
  const ended = new Promise<void>((resolve) =>
    socket.on('close', () => {
      closed = true;
      resolve();
    }),
  );
  socket.on('error', () => undefined);
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    connected,
    write: (text: string) => new Promise<void>((resolve) => socket.write(text, () => resolve())),
    received: () => received,
    closed: () => closed,
    /** The status, headers and JSON body of the one answer, once the server has closed the connection. */
    async answer() {
      await ended;
      const [head, body] = received.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
    },
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * SIGTERM drains an API process (src/main/api.ts): /readyz answers 503 at once, new connections are
 * refused, idle keep-alive connections are closed, a request in flight finishes with its normal
 * answer, then the process exits 0.
 */
describe('API process drain on SIGTERM', () => {
  const { h } = useSuite({ tenant: 'none' });
  let api: ChildProcess | undefined;
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-api-drain-'));
  const apiLog = path.join(logDir, 'api.log');

  afterAll(async () => {
    if (api) await stopProcess(api, 1_000);
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  it('finishes the slow request in flight, refuses new connections, says not ready, and exits 0', async () => {
    const tenant = await createTenant(h.db);
    const port = await freePort();
    const DRAIN_SECONDS = 15;
    api = h.spawnApiProcess(apiLog, port, { API_DRAIN_SECONDS: String(DRAIN_SECONDS) });
    await waitForPort('127.0.0.1', port, 60_000, api);
    const exited = new Promise<number | null>((resolve) => api!.once('exit', (code) => resolve(code)));
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    // A keep-alive connection that has finished its request and sits idle.
    const idle = rawExchange(port);
    await idle.connected;
    await idle.write('GET /healthz HTTP/1.1\r\nHost: api\r\n\r\n');
    await eventually(async () => (idle.received().includes('"ok"') ? true : undefined), 5_000, 'the idle connection’s answer');

    // A customer whose request body arrives slowly: its headers and half its body are in when SIGTERM lands.
    const body = JSON.stringify({ message: 'This call is handled by an AI assistant, sent slowly.' });
    const slow = rawExchange(port);
    await slow.connected;
    await slow.write(
      `POST /api/v1/disclosures HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer ${tenant.keys.test}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 20)}`,
    );
    // A load balancer's readiness probe whose request is under way on its own connection.
    const probe = rawExchange(port);
    await probe.connected;
    await probe.write('GET /readyz HTTP/1.1\r\nHost: api\r\n');
    await pause(500); // pacing: the probe is mid-request when the drain starts

    const signalledAt = Date.now();
    api.kill('SIGTERM');
    await eventually(async () => ((await canConnect('127.0.0.1', port)) ? undefined : true), 5_000, 'new connections to be refused');
    await eventually(async () => (idle.closed() ? true : undefined), 5_000, 'the idle keep-alive connection to be closed');

    await probe.write('\r\n');
    const notReady = await probe.answer();
    expect(notReady.status).toBe(503);
    expect(notReady.body).toEqual({
      error: { code: 'not_ready', message: 'The service is not ready', details: [{ field: 'draining', message: 'shutting down' }] },
    });
    expect(notReady.headers.connection).toBe('close');
    expect(api.exitCode).toBeNull();

    // The rest of the body, in two slow pieces: the request still gets its normal answer.
    await slow.write(body.slice(20, 40));
    await pause(700); // pacing: the body trickles in slowly while the API drains
    expect(api.exitCode).toBeNull();
    await slow.write(body.slice(40));
    const created = await slow.answer();
    expect(created.status).toBe(201);
    expect(created.body.disclosure).toMatchObject({ message: 'This call is handled by an AI assistant, sent slowly.' });
    expect(created.headers.connection).toBe('close');
    expect(await h.db('disclosures').where({ workspace_id: tenant.workspaceId }).count('id')).toEqual([{ count: '1' }]);

    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(DRAIN_SECONDS * 1000);
    const log = fs.readFileSync(apiLog, 'utf8');
    expect(log).toContain('"msg":"draining"');
    expect(log).toContain('"msg":"api stopped"');
    expect(log).not.toContain('drain deadline passed');
    api = undefined;
  }, 90_000);

  it('cuts a request that outlives API_DRAIN_SECONDS and still exits 0', async () => {
    const tenant = await createTenant(h.db);
    const port = await freePort();
    api = h.spawnApiProcess(apiLog, port, { API_DRAIN_SECONDS: '1' });
    await waitForPort('127.0.0.1', port, 60_000, api);
    const exited = new Promise<number | null>((resolve) => api!.once('exit', (code) => resolve(code)));
    // A body that never finishes arriving.
    const stalled = rawExchange(port);
    await stalled.connected;
    await stalled.write(
      `POST /api/v1/disclosures HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer ${tenant.keys.test}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mes',
    );
    await pause(300); // pacing: the stalled request has reached the API before the signal
    const signalledAt = Date.now();
    api.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(1_000);
    await eventually(async () => (stalled.closed() ? true : undefined), 2_000, 'the stalled connection to be cut');
    expect(stalled.received()).toBe('');
    expect(fs.readFileSync(apiLog, 'utf8')).toContain('drain deadline passed');
    api = undefined;
  }, 90_000);
});
