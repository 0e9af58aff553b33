import { EventEmitter } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { drainHttpServer, drainOnSignal, type TerminationOptions } from '../../src/platform/lifecycle/drain';
import { createLogger } from '../../src/platform/logger';
import { until } from '../support/waits';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw HTTP/1.1 connection: what it has received, and whether the server has closed it. */
function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const state = { received: '', closed: false };
  socket.on('data', (chunk) => (state.received += chunk.toString('latin1')));
  socket.on('close', () => (state.closed = true));
  socket.on('error', () => undefined);
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, state, connected };
}

describe('drainHttpServer', () => {
  let server: http.Server;
  let port: number;
  beforeEach(async () => {
    // Echoes the size of the body once it has all arrived.
    server = http.createServer((req, res) => {
      let size = 0;
      req.on('data', (chunk: Buffer) => (size += chunk.length));
      req.on('end', () => res.end(`got ${size}`));
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });

  it('refuses new connections, closes idle ones, finishes the request in flight, then closes its connection', async () => {
    const started: string[] = [];
    server.on('request', (req: http.IncomingMessage) => started.push(req.url!));
    const idle = rawConnection(port);
    idle.socket.write('GET /first HTTP/1.1\r\nHost: t\r\n\r\n');
    const slow = rawConnection(port);
    slow.socket.write('POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nabc');
    await Promise.all([idle.connected, slow.connected]);
    await until(() => idle.state.received.includes('got 0') && started.includes('/slow'), 'the idle answer and the slow request');

    const drained = drainHttpServer(server, 5_000);
    await until(() => idle.state.closed, 'the idle connection to close');
    const refused = await new Promise<string>((resolve) => {
      const late = net.connect(port, '127.0.0.1');
      late.once('connect', () => resolve('connected'));
      late.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');

    slow.socket.write('def');
    expect(await drained).toBe(true);
    // The server may have closed before this side read the answer: what it sent arrives before the close.
    await new Promise<void>((resolve) => (slow.state.closed ? resolve() : slow.socket.once('close', () => resolve())));
    expect(slow.state.received).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(slow.state.received).toContain('got 6');
  });

  it('cuts a request still in flight at the deadline', async () => {
    const stalled = rawConnection(port);
    const inFlight: string[] = [];
    server.on('request', (req: http.IncomingMessage) => inFlight.push(req.url!));
    stalled.socket.write('POST /stalled HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nabc');
    await stalled.connected;
    await until(() => inFlight.includes('/stalled'), 'the stalled request to reach the server');
    const started = Date.now();
    expect(await drainHttpServer(server, 300)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await until(() => stalled.state.closed, 'the stalled connection to be cut');
    expect(stalled.state.received).toBe('');
  });
});

describe('drainOnSignal', () => {
  const log = createLogger('drain-test', 'silent');

  /** drainOnSignal on a stand-in process: the signals to send it, and the exit codes it asked for. */
  function drainOnFake(drain: TerminationOptions['drain'], forceExitAfterMs = 10_000) {
    const signals = new EventEmitter();
    const exits: number[] = [];
    drainOnSignal({ log, forceExitAfterMs, signals: signals as unknown as NodeJS.Process, exit: (code) => exits.push(code), drain });
    return { signals, exits };
  }

  it('drains on the first signal and exits 1 when it comes again; the other signal is the same stop', async () => {
    const drained: string[] = [];
    // A drain still running when the next signals come.
    const { signals, exits } = drainOnFake((signal) => {
      drained.push(signal);
      return new Promise(() => undefined);
    });
    // Ctrl-C's SIGINT to the process group, then the supervisor's SIGTERM: one drain.
    signals.emit('SIGINT', 'SIGINT');
    await until(() => drained.length === 1, 'the drain to start');
    signals.emit('SIGTERM', 'SIGTERM');
    expect(drained).toEqual(['SIGINT']);
    expect(exits).toEqual([]);
    // Ctrl-C again: out at once.
    signals.emit('SIGINT', 'SIGINT');
    expect(drained).toEqual(['SIGINT']);
    expect(exits).toEqual([1]);
  });

  it('exits 1 when the drain outlives its deadline or fails', async () => {
    const slow = drainOnFake(() => new Promise(() => undefined), 100);
    const signalled = Date.now();
    slow.signals.emit('SIGTERM', 'SIGTERM');
    await pause(50); // waits out half the 100 ms deadline: no exit before it
    expect(slow.exits).toEqual([]);
    await until(() => slow.exits.length === 1, 'the exit at the deadline');
    expect(slow.exits).toEqual([1]);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(95);

    const failing = drainOnFake(async () => {
      throw new Error('pool would not close');
    });
    failing.signals.emit('SIGINT', 'SIGINT');
    await until(() => failing.exits.length === 1, 'the exit after the failed drain');
    expect(failing.exits).toEqual([1]);
  });

  it('leaves the exit to the process when the drain finishes', async () => {
    const { signals, exits } = drainOnFake(() => undefined);
    signals.emit('SIGTERM', 'SIGTERM');
    await pause(10); // waits out an exit after the finished drain (the 10 s deadline is unref'd)
    expect(exits).toEqual([]);
  });
});
