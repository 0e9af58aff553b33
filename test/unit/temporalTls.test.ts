import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { Connection } from '@temporalio/client';
import { loadConfig, temporalTlsFromEnv } from '../../src/platform/config';
import { temporalTlsOf } from '../../src/platform/temporal/client';

/**
 * TLS to the Temporal frontend (Temporal Cloud's mTLS; the Helm chart mounts the client certificate from a Secret and
 * sets these paths): Temporal's own environment names, read into every client's and worker's connection options.
 */
describe('TLS to Temporal', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-temporal-tls-'));
  const file = (name: string, text: string) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is off unless asked for, and TEMPORAL_TLS=true alone is TLS with the system CAs and no client certificate', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://x@db/x' }).temporalTls).toBeUndefined();
    expect(temporalTlsFromEnv({ TEMPORAL_TLS: 'false' })).toBeUndefined();
    const plainTls = loadConfig({ DATABASE_URL: 'postgres://x@db/x', TEMPORAL_TLS: 'true' });
    expect(temporalTlsOf(plainTls)).toEqual({});
    expect(temporalTlsOf({ temporalTls: undefined })).toBeUndefined();
  });

  it('reads the client certificate pair, the server CA and the server name into the connection options', () => {
    const env = {
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_CLIENT_CERT_PATH: file('tls.crt', 'CERT'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: file('tls.key', 'KEY'),
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: file('ca.crt', 'CA'),
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.internal',
    };
    const tls = temporalTlsOf({ temporalTls: temporalTlsFromEnv(env) });
    expect({
      crt: tls?.clientCertPair?.crt.toString(),
      key: tls?.clientCertPair?.key.toString(),
      ca: tls?.serverRootCACertificate?.toString(),
      serverName: tls?.serverNameOverride,
    }).toEqual({ crt: 'CERT', key: 'KEY', ca: 'CA', serverName: 'frontend.temporal.internal' });
    // The paths alone turn TLS on.
    expect(
      temporalTlsFromEnv({
        TEMPORAL_TLS_CLIENT_CERT_PATH: env.TEMPORAL_TLS_CLIENT_CERT_PATH,
        TEMPORAL_TLS_CLIENT_KEY_PATH: env.TEMPORAL_TLS_CLIENT_KEY_PATH,
      }),
    ).toEqual({
      clientCertPath: env.TEMPORAL_TLS_CLIENT_CERT_PATH,
      clientKeyPath: env.TEMPORAL_TLS_CLIENT_KEY_PATH,
      serverCaCertPath: undefined,
      serverName: undefined,
    });
  });

  it('refuses half a certificate pair, paths beside TEMPORAL_TLS=false, and names the setting of a file it cannot read', () => {
    expect(() => temporalTlsFromEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/c' })).toThrow(/go together/);
    expect(() => temporalTlsFromEnv({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_NAME: 'x' })).toThrow(/TEMPORAL_TLS=false/);
    expect(() => temporalTlsFromEnv({ TEMPORAL_TLS: 'yes' })).toThrow(/true or false/);
    const missing = { temporalTls: { clientCertPath: path.join(dir, 'none.crt'), clientKeyPath: path.join(dir, 'none.key') } };
    expect(() => temporalTlsOf(missing)).toThrow(/^TEMPORAL_TLS_CLIENT_CERT_PATH: .*none\.crt cannot be read/);
  });
});

/**
 * The options on a real TLS handshake: a loopback TLS server that requires a client certificate from its CA (as Temporal
 * Cloud's frontend does) sees the client's certificate, and the client accepts the server's only through the CA file and
 * the server name given. The server is no gRPC server, so the connection itself then fails: only the handshake is tested.
 */
describe('TLS to Temporal, on the wire', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-temporal-mtls-'));
  const pem = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const servers: tls.Server[] = [];

  beforeAll(() => {
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=test-ca');
    for (const [name, subject, extension] of [
      ['server', '/CN=temporal.test', 'subjectAltName=DNS:temporal.test'],
      ['client', '/CN=switchboard-worker', 'extendedKeyUsage=clientAuth'],
    ]) {
      openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
      fs.writeFileSync(pem(`${name}.ext`), `${extension}\n`);
      openssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '1',
        '-extfile',
        `${name}.ext`,
      );
    }
  });
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A server of its own for each test: a client channel of an earlier test may still be retrying against its own. */
  async function mtlsServer() {
    const handshakes: Array<{ authorized: boolean; client: string }> = [];
    const server = tls.createServer(
      {
        key: fs.readFileSync(pem('server.key')),
        cert: fs.readFileSync(pem('server.crt')),
        ca: fs.readFileSync(pem('ca.crt')),
        requestCert: true,
        rejectUnauthorized: false,
        ALPNProtocols: ['h2'],
      },
      (socket) => {
        handshakes.push({ authorized: socket.authorized, client: String(socket.getPeerCertificate().subject?.CN) });
        socket.destroy();
      },
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, handshakes };
  }

  const connect = (address: string, serverName: string) =>
    Connection.connect({
      address,
      tls: temporalTlsOf({
        temporalTls: temporalTlsFromEnv({
          TEMPORAL_TLS_CLIENT_CERT_PATH: pem('client.crt'),
          TEMPORAL_TLS_CLIENT_KEY_PATH: pem('client.key'),
          TEMPORAL_TLS_SERVER_CA_CERT_PATH: pem('ca.crt'),
          TEMPORAL_TLS_SERVER_NAME: serverName,
        }),
      }),
      connectTimeout: '2s',
    }).then(
      (connection) => connection.close(),
      () => undefined,
    );

  it("presents the client certificate, signed by the server's CA, and checks the server's against the CA file and name", async () => {
    const server = await mtlsServer();
    await connect(server.address, 'temporal.test');
    expect(server.handshakes).toContainEqual({ authorized: true, client: 'switchboard-worker' });
  });

  it('completes no handshake when the server name does not match its certificate (the check can fail)', async () => {
    const server = await mtlsServer();
    await connect(server.address, 'other.test');
    expect(server.handshakes).toEqual([]);
  });
});
