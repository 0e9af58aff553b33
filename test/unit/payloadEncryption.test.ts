import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import {
  decodeOptionalFailureToOptionalError,
  encodeErrorToFailure,
  loadDataConverter,
} from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { generateSecretsKey, keyIdOf, parseKeyMaterial } from '../../src/platform/crypto/secretBox';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA, payloadEncryptionCodec } from '../../src/platform/codecs/payloadEncryption';
import { dataConverterWith } from '../../src/platform/temporal/client';

/** The payload codec of every Temporal client and worker (security review L10). */
describe('payload encryption codec', () => {
  const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
  const input = { to_number: '+16505552671', transcript: 'my card ends in 4242' };

  it('encrypts the whole payload under the current key, named in the metadata, and decrypts it back', async () => {
    const key = generateSecretsKey();
    const codec = payloadEncryptionCodec(key);
    const plain = defaultPayloadConverter.toPayload(input);
    const [encrypted] = await codec.encode([plain]);
    expect(text(encrypted.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encrypted.metadata![KEY_ID_METADATA])).toBe(keyIdOf(parseKeyMaterial(key)));
    const wire = Buffer.from(temporal.api.common.v1.Payload.encode(encrypted).finish());
    expect(wire.includes('+16505552671')).toBe(false);
    expect(wire.includes('json/plain')).toBe(false); // the inner metadata is encrypted too
    const [decrypted] = await codec.decode([encrypted]);
    expect(defaultPayloadConverter.fromPayload(decrypted)).toEqual(input);
    // A random nonce each time: equal inputs do not give equal ciphertexts.
    const [again] = await codec.encode([plain]);
    expect(Buffer.from(again.data!).equals(Buffer.from(encrypted.data!))).toBe(false);
  });

  it('passes unencrypted payloads through, so histories written before the codec still decode', async () => {
    const plain = defaultPayloadConverter.toPayload(input);
    const [out] = await payloadEncryptionCodec(generateSecretsKey()).decode([plain]);
    expect(out).toBe(plain);
  });

  it('rotates: a new key in front encrypts, the old one still decrypts; dropping it makes old payloads fail by name', async () => {
    const a = generateSecretsKey();
    const b = generateSecretsKey();
    const [underA] = await payloadEncryptionCodec(a).encode([defaultPayloadConverter.toPayload(input)]);
    const rotated = payloadEncryptionCodec(`${b},${a}`);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([underA]))[0])).toEqual(input);
    const [underB] = await rotated.encode([defaultPayloadConverter.toPayload(input)]);
    expect(text(underB.metadata![KEY_ID_METADATA])).toBe(keyIdOf(parseKeyMaterial(b)));
    await expect(payloadEncryptionCodec(b).decode([underA])).rejects.toThrow(
      `payload encrypted with key ${keyIdOf(parseKeyMaterial(a))}, which is not in TEMPORAL_PAYLOAD_KEY`,
    );
  });

  it('refuses an altered ciphertext or a payload whose key id was swapped', async () => {
    const a = generateSecretsKey();
    const b = generateSecretsKey();
    const codec = payloadEncryptionCodec(`${a},${b}`);
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload(input)]);
    const flipped = Buffer.from(encrypted.data!);
    flipped[20] ^= 1;
    await expect(codec.decode([{ ...encrypted, data: flipped }])).rejects.toThrow(/does not authenticate/);
    const swapped = { ...encrypted, metadata: { ...encrypted.metadata, [KEY_ID_METADATA]: Buffer.from(keyIdOf(parseKeyMaterial(b))) } };
    await expect(codec.decode([swapped])).rejects.toThrow(/does not authenticate/);
    await expect(codec.decode([{ ...encrypted, data: Buffer.alloc(10) }])).rejects.toThrow(/truncated/);
  });

  it('refuses a malformed key ring naming TEMPORAL_PAYLOAD_KEY', () => {
    expect(() => payloadEncryptionCodec('short')).toThrow(/^TEMPORAL_PAYLOAD_KEY must be 32 bytes/);
    expect(() => payloadEncryptionCodec(`${generateSecretsKey()},`)).toThrow(/^TEMPORAL_PAYLOAD_KEY has an empty entry/);
  });

  it("encrypts a failure's message and stack trace too (a provider's message may name a number), and reads failures recorded in clear", async () => {
    const converter = loadDataConverter(dataConverterWith(payloadEncryptionCodec(generateSecretsKey())));
    const failure = await encodeErrorToFailure(
      converter,
      ApplicationFailure.nonRetryable('+16505552671 was bought meanwhile', 'NumberTaken'),
    );
    const wire = Buffer.from(temporal.api.failure.v1.Failure.encode(failure).finish());
    expect(wire.includes('+16505552671')).toBe(false);
    expect(failure.message).toBe('Encoded failure');
    expect(text(failure.encodedAttributes!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    const error = await decodeOptionalFailureToOptionalError(converter, failure);
    expect(error).toMatchObject({ message: '+16505552671 was bought meanwhile', type: 'NumberTaken' });
    const inClear = { message: 'recorded before the codec', applicationFailureInfo: { type: 'Old' } };
    expect(await decodeOptionalFailureToOptionalError(converter, inClear)).toMatchObject({ message: 'recorded before the codec' });
  });
});
