import crypto from 'node:crypto';
import { METADATA_ENCODING_KEY, ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { parseKeyRing, type SecretsKeyRing } from '../crypto/secretBox';

/**
 * The payload codec of every Temporal client and worker (security review L10): each payload
 * (workflow and activity inputs and results, signals, updates, queries, memos, heartbeats) is
 * encrypted with AES-256-GCM before it leaves the process, so the Temporal server, its database
 * and its UI hold phone numbers, transcripts and URLs only as ciphertext.
 *
 * The shape follows Temporal's samples-typescript `encryption` sample
 * (github.com/temporalio/samples-typescript, encryption/src/encryption-codec.ts): the whole
 * Payload message (its metadata included) is serialised and encrypted into the data of a new
 * payload whose metadata says `encoding: binary/encrypted` and names the key in
 * `encryption-key-id`. The data is `nonce (12 bytes) | ciphertext | GCM tag (16 bytes)`, the
 * key id is the GCM additional data.
 *
 * Keys: TEMPORAL_PAYLOAD_KEY, a key ring in SECRETS_KEY's format (src/platform/crypto/secretBox.ts):
 * the first key encrypts, every key decrypts, so a rotation (`<new>,<old>`) keeps old histories
 * readable. A payload without the encrypted encoding passes through untouched: histories written
 * before the codec (test/histories/) still decode and replay.
 *
 * This runs in the client and in the worker's main thread (`dataConverter.payloadCodecs`), never
 * in the workflow sandbox: workflow code and its commands are unchanged.
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
export const PAYLOAD_KEY_SETTING = 'TEMPORAL_PAYLOAD_KEY';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export class PayloadEncryptionCodec implements PayloadCodec {
  constructor(private readonly ring: SecretsKeyRing) {}

  /** The key id new payloads are encrypted under. */
  get currentKeyId(): string {
    return this.ring.current.id;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  private encrypt(payload: Payload): Payload {
    const { id, key } = this.ring.current;
    const nonce = crypto.randomBytes(NONCE_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(id, 'utf8'));
    const plaintext = temporal.api.common.v1.Payload.encode(payload).finish();
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      metadata: { [METADATA_ENCODING_KEY]: utf8.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8.encode(id) },
      data: Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]),
    };
  }

  private decrypt(payload: Payload): Payload {
    if (!isEncrypted(payload)) return payload;
    const keyIdBytes = payload.metadata?.[KEY_ID_METADATA];
    if (!keyIdBytes) throw new ValueError(`an encrypted payload names no key (metadata ${KEY_ID_METADATA})`);
    const keyId = fromUtf8.decode(keyIdBytes);
    const key = this.ring.keys.get(keyId);
    if (!key) throw new ValueError(`payload encrypted with key ${keyId}, which is not in ${PAYLOAD_KEY_SETTING}`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < NONCE_BYTES + TAG_BYTES) throw new ValueError(`encrypted payload (key ${keyId}) is truncated`);
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(keyId, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plaintext: Buffer;
    try {
      plaintext = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new ValueError(`encrypted payload (key ${keyId}) does not authenticate: altered, or encrypted under another key with this id`);
    }
    const decoded = temporal.api.common.v1.Payload.decode(plaintext);
    return { metadata: decoded.metadata, data: decoded.data };
  }
}

export function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
  return encoding !== undefined && encoding !== null && fromUtf8.decode(encoding) === ENCRYPTED_ENCODING;
}

/** The codec of TEMPORAL_PAYLOAD_KEY's key ring (refused with the setting's name when malformed). */
export function payloadEncryptionCodec(rawKeyRing: string): PayloadEncryptionCodec {
  return new PayloadEncryptionCodec(parseKeyRing(rawKeyRing, PAYLOAD_KEY_SETTING));
}
