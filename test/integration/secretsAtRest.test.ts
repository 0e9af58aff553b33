import crypto from 'node:crypto';
import { runCommand } from '../../src/main/cli';
import {
  generateSecretsKey,
  keyIdOf,
  open,
  parseKeyMaterial,
  parseSecretsKey,
  seal,
  sealedKeyId,
} from '../../src/platform/crypto/secretBox';
import { currentSecret, readSecret } from '../../src/domain/lines/secrets';
import { webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/** Webhook signing secrets at rest (security review L6): bound to their row, with a key id and a key ring. */
describe('secrets at rest', () => {
  const ctx = useSuite({ worker: true });
  const globalKey = () => process.env.SECRETS_KEY!;

  async function lineWithSecret(): Promise<{ id: string; secret: string; row: { id: string; ciphertext: string } }> {
    const { h, tenant } = ctx;
    const res = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
    expect(res.status).toBe(201);
    const row = await h.db('line_webhook_secrets').where({ line_id: res.body.line.id, state: 'current' }).first('id', 'ciphertext');
    return { id: res.body.line.id, secret: res.body.webhook_secret, row };
  }

  /** A line whose secret is stored as releases before key ids wrote it (`sealV1`, under the global key). */
  async function lineWithV1Secret(): Promise<{ id: string; secret: string; row: { id: string; ciphertext: string } }> {
    const line = await lineWithSecret();
    await ctx.h
      .db('line_webhook_secrets')
      .where({ id: line.row.id })
      .update({ ciphertext: sealV1(globalKey(), line.secret) });
    return line;
  }

  /** The format written before key ids and AAD: `v1.<nonce>.<tag>.<ciphertext>`. */
  function sealV1(keyHex: string, plaintext: string): string {
    const nonce = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), nonce);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', nonce, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  it('seals new secrets in v2 under the key id, bound to their line and row', async () => {
    const { h } = ctx;
    const ring = parseSecretsKey(globalKey());
    const a = await lineWithSecret();
    const b = await lineWithSecret();
    expect(a.row.ciphertext.startsWith(`v2.${ring.current.id}.`)).toBe(true);
    expect(a.row.ciphertext).not.toContain(globalKey());
    expect(await currentSecret(h.db, ring, a.id)).toBe(a.secret);
    // A database-level attacker swapping ciphertexts between lines gets nothing that opens.
    await h.db('line_webhook_secrets').where({ id: a.row.id }).update({ ciphertext: b.row.ciphertext });
    await expect(currentSecret(h.db, ring, a.id)).rejects.toThrow();
    await h.db('line_webhook_secrets').where({ id: a.row.id }).update({ ciphertext: a.row.ciphertext });
    expect(await readSecret(h.db, ring, a.row.id)).toBe(a.secret);
  });

  it('still opens secrets sealed in the v1 format', async () => {
    const { h } = ctx;
    const line = await lineWithV1Secret();
    expect(await currentSecret(h.db, parseSecretsKey(globalKey()), line.id)).toBe(line.secret);
  });

  it('rotates SECRETS_KEY: a new key in front, `cli secrets reseal`, then the old key can go', async () => {
    const { h } = ctx;
    const line = await lineWithV1Secret();
    const newKey = generateSecretsKey();
    const saved = process.env.SECRETS_KEY;
    try {
      process.env.SECRETS_KEY = `${newKey},${globalKey()}`;
      const result = await runCommand(h.db, ['secrets', 'reseal'], {});
      expect(result).toMatchObject({
        key_id: keyIdOf(parseKeyMaterial(newKey)),
        resealed: expect.any(Number),
        already_current: expect.any(Number),
      });
      expect(result.resealed as number).toBeGreaterThanOrEqual(1);
      const rows = await h.db('line_webhook_secrets').select('ciphertext');
      expect(rows.every((r: { ciphertext: string }) => sealedKeyId(r.ciphertext) === keyIdOf(parseKeyMaterial(newKey)))).toBe(true);
      expect(await currentSecret(h.db, parseSecretsKey(newKey), line.id)).toBe(line.secret);
      // Nothing left for the old key; a second run has nothing to do.
      expect(await runCommand(h.db, ['secrets', 'reseal'], {})).toMatchObject({ resealed: 0 });
    } finally {
      // Leave every row under the suite's key for the test files that follow.
      process.env.SECRETS_KEY = `${saved},${newKey}`;
      await runCommand(h.db, ['secrets', 'reseal'], {});
      process.env.SECRETS_KEY = saved;
    }
    expect(await currentSecret(h.db, parseSecretsKey(globalKey()), line.id)).toBe(line.secret);
  });

  it('opens only what its context says, and parses keys strictly', () => {
    const ring = parseSecretsKey(generateSecretsKey());
    const sealed = seal(ring, 'whsec', 'line_webhook_secrets:a:b');
    expect(open(ring, sealed, 'line_webhook_secrets:a:b')).toBe('whsec');
    expect(() => open(ring, sealed, 'line_webhook_secrets:a:c')).toThrow();
    expect(() => open(parseSecretsKey(generateSecretsKey()), sealed, 'line_webhook_secrets:a:b')).toThrow(/not in SECRETS_KEY/);
    const key = crypto.randomBytes(32);
    expect(parseKeyMaterial(key.toString('base64'))).toEqual(key);
    expect(parseKeyMaterial(key.toString('base64url'))).toEqual(key);
    expect(parseKeyMaterial(key.toString('hex').toUpperCase())).toEqual(key);
    // The last base64 character carries 2 bits a decoder drops: setting one decodes to the same key, but is not canonical.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const canonical = key.toString('base64');
    const nonCanonical = `${canonical.slice(0, 42)}${alphabet[alphabet.indexOf(canonical[42]) ^ 1]}=`;
    expect(Buffer.from(nonCanonical, 'base64')).toEqual(key);
    for (const lenient of ['dGVzdA==', `${canonical}\u0000`, `${key.toString('hex')}00`, '', `${canonical}==`, nonCanonical]) {
      expect(() => parseKeyMaterial(lenient)).toThrow(/SECRETS_KEY must be 32 bytes/);
    }
  });
});
