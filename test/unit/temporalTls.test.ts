import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
