import crypto from 'node:crypto';
import { Transform } from 'node:stream';
import { ChecksumMismatchError } from './port';

/** Passes bytes through, hashing (SHA-256) and counting them; `digest()` once the stream has ended. */
export function measuring(): { through: Transform; digest(): { size: number; sha256: string } } {
  const hash = crypto.createHash('sha256');
  let size = 0;
  const through = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { through, digest: () => ({ size, sha256: hash.digest('hex') }) };
}

/**
 * Passes a whole object's bytes through and errors the stream at its end when they do not hash to `sha256` (the
 * checksum recorded at write time), so a reader never takes corrupted bytes for the object. `''` (a store that
 * kept no checksum) passes.
 */
export function verifyingSha256(key: string, sha256: string): Transform {
  const hash = crypto.createHash('sha256');
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      const actual = hash.digest('hex');
      done(
        sha256 === '' || actual === sha256
          ? null
          : new ChecksumMismatchError(`${key}: the stored bytes hash to ${actual}, not the ${sha256} recorded`),
      );
    },
  });
}
