import crypto from 'node:crypto';
import fc from 'fast-check';
import {
  computeSignature,
  DEFAULT_TOLERANCE_SECONDS,
  signatureHeaders,
  verifySignature,
  WEBHOOK_HEADERS,
  type VerifyFailure,
} from '../../src/domain/webhooks/signature';

const SECRET = 'a3f1c2e4b5d6978812345678901234567890abcdefabcdefabcdef0123456789';
const DELIVERY_ID = '3b241101-e2bb-4255-8caf-4136c566a962';
const BODY = '{"event_id":"evt_1","line_id":"line_1","type":"call.completed"}';
const NOW = new Date('2025-01-15T12:00:00Z');
const TS = Math.floor(NOW.getTime() / 1000);

function independentHmac(secret: string, payload: string): string {
  return crypto.createHmac('sha256', secret).update(payload).digest('hex');
}

/** The headers the fixture delivery (SECRET, DELIVERY_ID, BODY) is sent with at `now`. */
function fixtureHeaders(now: Date, attempt = 1): Record<string, string> {
  return signatureHeaders({ secret: SECRET, deliveryId: DELIVERY_ID, rawBody: BODY, attempt, now });
}

function goodHeaders(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    ...fixtureHeaders(NOW),
    ...overrides,
  };
  return Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));
}

function verify(
  headers: Record<string, string | string[] | undefined> | Headers,
  opts: { body?: string | Buffer; now?: Date; secret?: string } = {},
) {
  return verifySignature({ secret: opts.secret ?? SECRET, headers, rawBody: opts.body ?? BODY, now: opts.now ?? NOW });
}

describe('webhook signature', () => {
  it('matches an independently computed HMAC-SHA256 over "<timestamp>.<delivery_id>.<body>"', () => {
    const expected = `v1=${independentHmac(SECRET, `${TS}.${DELIVERY_ID}.${BODY}`)}`;
    expect(computeSignature(SECRET, TS, DELIVERY_ID, BODY)).toBe(expected);
    expect(computeSignature(SECRET, TS, DELIVERY_ID, Buffer.from(BODY, 'utf8'))).toBe(expected);
    expect(expected).toMatch(/^v1=[0-9a-f]{64}$/);
  });

  it('keys the HMAC with the secret as UTF-8 text, not hex-decoded bytes', () => {
    const hexDecoded = crypto.createHmac('sha256', Buffer.from(SECRET, 'hex')).update(`${TS}.${DELIVERY_ID}.${BODY}`).digest('hex');
    expect(computeSignature(SECRET, TS, DELIVERY_ID, BODY)).not.toBe(`v1=${hexDecoded}`);
  });

  it('signs non-ASCII bodies as UTF-8 bytes', () => {
    const body = '{"text":"héllo ☎"}';
    expect(computeSignature(SECRET, TS, DELIVERY_ID, body)).toBe(`v1=${independentHmac(SECRET, `${TS}.${DELIVERY_ID}.${body}`)}`);
  });

  it('signatureHeaders renders every header plainly', () => {
    const headers = fixtureHeaders(new Date(NOW.getTime() + 999), 3);
    expect(headers).toEqual({
      [WEBHOOK_HEADERS.timestamp]: String(TS),
      [WEBHOOK_HEADERS.deliveryId]: DELIVERY_ID,
      [WEBHOOK_HEADERS.signature]: computeSignature(SECRET, TS, DELIVERY_ID, BODY),
      [WEBHOOK_HEADERS.attempt]: '3',
    });
    expect(verify(headers)).toEqual({ valid: true });
  });

  it('has a 5-minute default tolerance', () => {
    expect(DEFAULT_TOLERANCE_SECONDS).toBe(300);
  });

  describe('failure reasons, in check order', () => {
    const wrongSig = `v1=${'0'.repeat(64)}`;
    // Each row also carries every defect checked later, so the row's reason must win.
    it.each<[VerifyFailure, Record<string, string | undefined>, Date]>([
      [
        'missing_timestamp',
        { [WEBHOOK_HEADERS.timestamp]: undefined, [WEBHOOK_HEADERS.deliveryId]: undefined, [WEBHOOK_HEADERS.signature]: undefined },
        NOW,
      ],
      [
        'missing_delivery_id',
        { [WEBHOOK_HEADERS.timestamp]: 'abc', [WEBHOOK_HEADERS.deliveryId]: undefined, [WEBHOOK_HEADERS.signature]: undefined },
        NOW,
      ],
      ['missing_signature', { [WEBHOOK_HEADERS.timestamp]: 'abc', [WEBHOOK_HEADERS.signature]: undefined }, NOW],
      ['malformed_timestamp', { [WEBHOOK_HEADERS.timestamp]: 'abc', [WEBHOOK_HEADERS.signature]: 'nonsense' }, NOW],
      ['malformed_signature', { [WEBHOOK_HEADERS.signature]: 'nonsense' }, new Date(NOW.getTime() + 3600_000)],
      ['unknown_version', { [WEBHOOK_HEADERS.signature]: `v2=${'0'.repeat(64)}` }, new Date(NOW.getTime() + 3600_000)],
      ['signature_mismatch', { [WEBHOOK_HEADERS.signature]: wrongSig }, new Date(NOW.getTime() + 3600_000)],
      ['stale_timestamp', {}, new Date(NOW.getTime() + 3600_000)],
    ])('%s', (reason, overrides, now) => {
      expect(verify(goodHeaders(overrides), { now })).toEqual({ valid: false, reason });
    });

    it('treats empty header values as missing', () => {
      expect(verify(goodHeaders({ [WEBHOOK_HEADERS.timestamp]: '' }))).toEqual({ valid: false, reason: 'missing_timestamp' });
      expect(verify(goodHeaders({ [WEBHOOK_HEADERS.deliveryId]: '' }))).toEqual({ valid: false, reason: 'missing_delivery_id' });
      expect(verify(goodHeaders({ [WEBHOOK_HEADERS.signature]: '' }))).toEqual({ valid: false, reason: 'missing_signature' });
    });

    it.each([
      ['no "="', 'v1'],
      ['nothing after "="', 'v1='],
    ])('malformed_signature: %s', (_label, signature) => {
      expect(verify(goodHeaders({ [WEBHOOK_HEADERS.signature]: signature }))).toEqual({ valid: false, reason: 'malformed_signature' });
    });

    it.each(['V1', '', 'v1 ', 'v0'])('unknown_version: scheme %p', (scheme) => {
      const good = computeSignature(SECRET, TS, DELIVERY_ID, BODY).slice(3);
      expect(verify(goodHeaders({ [WEBHOOK_HEADERS.signature]: `${scheme}=${good}` }))).toEqual({
        valid: false,
        reason: 'unknown_version',
      });
    });

    it('a wrong secret, delivery id or body is signature_mismatch', () => {
      expect(verify(goodHeaders(), { secret: SECRET.replace(/^a/, 'b') })).toEqual({ valid: false, reason: 'signature_mismatch' });
      expect(verify(goodHeaders({ [WEBHOOK_HEADERS.deliveryId]: crypto.randomUUID() }))).toEqual({
        valid: false,
        reason: 'signature_mismatch',
      });
      expect(verify(goodHeaders(), { body: `${BODY} ` })).toEqual({ valid: false, reason: 'signature_mismatch' });
    });
  });

  it('rejects an uppercase-hex signature', () => {
    const sig = computeSignature(SECRET, TS, DELIVERY_ID, BODY);
    const upper = `v1=${sig.slice(3).toUpperCase()}`;
    expect(upper).not.toBe(sig);
    expect(verify(goodHeaders({ [WEBHOOK_HEADERS.signature]: upper }))).toEqual({ valid: false, reason: 'signature_mismatch' });
  });

  it('rejects a list of signatures, even one that contains the good one', () => {
    const sig = computeSignature(SECRET, TS, DELIVERY_ID, BODY);
    const other = `v1=${'0'.repeat(64)}`;
    for (const list of [`${sig},${other}`, `${other},${sig}`, `${sig}, ${sig}`, `${sig} ${other}`]) {
      expect(verify(goodHeaders({ [WEBHOOK_HEADERS.signature]: list }))).toEqual({ valid: false, reason: 'signature_mismatch' });
    }
  });

  it('takes the first value of a repeated header in a plain record', () => {
    const headers = { ...goodHeaders(), [WEBHOOK_HEADERS.signature]: [computeSignature(SECRET, TS, DELIVERY_ID, BODY), 'v1=bogus'] };
    expect(verify(headers)).toEqual({ valid: true });
  });

  describe('tolerance', () => {
    const at = (deltaSeconds: number) => new Date(NOW.getTime() + deltaSeconds * 1000);

    it.each([0, 300, -300, 1, -1])('passes at %i s from the timestamp', (delta) => {
      expect(verify(goodHeaders(), { now: at(delta) })).toEqual({ valid: true });
    });

    it.each([301, -301, 86_400])('fails at %i s from the timestamp', (delta) => {
      expect(verify(goodHeaders(), { now: at(delta) })).toEqual({ valid: false, reason: 'stale_timestamp' });
    });

    it('compares whole seconds of the receiver clock (300.999 s late still passes)', () => {
      expect(verify(goodHeaders(), { now: new Date(NOW.getTime() + 300_999) })).toEqual({ valid: true });
      expect(verify(goodHeaders(), { now: new Date(NOW.getTime() + 301_000) })).toEqual({ valid: false, reason: 'stale_timestamp' });
    });

    it('honours a custom tolerance', () => {
      const run = (toleranceSeconds: number, delta: number) =>
        verifySignature({ secret: SECRET, headers: goodHeaders(), rawBody: BODY, now: at(delta), toleranceSeconds });
      expect(run(10, 10)).toEqual({ valid: true });
      expect(run(10, 11)).toEqual({ valid: false, reason: 'stale_timestamp' });
      expect(run(0, 0)).toEqual({ valid: true });
      expect(run(0, 1)).toEqual({ valid: false, reason: 'stale_timestamp' });
    });

    it('defaults the clock to now', () => {
      const headers = fixtureHeaders(new Date());
      expect(verifySignature({ secret: SECRET, headers, rawBody: BODY })).toEqual({ valid: true });
      expect(verifySignature({ secret: SECRET, headers: goodHeaders(), rawBody: BODY })).toEqual({
        valid: false,
        reason: 'stale_timestamp',
      });
    });
  });

  describe('timestamp format', () => {
    // Signature computed over the given text exactly as a sender would, with a clock at that time.
    function signedAt(raw: string) {
      const sig = `v1=${independentHmac(SECRET, `${raw}.${DELIVERY_ID}.${BODY}`)}`;
      return goodHeaders({ [WEBHOOK_HEADERS.timestamp]: raw, [WEBHOOK_HEADERS.signature]: sig });
    }

    it.each(['0', '-5', '12.5', '1e9', '0x10', ' 123', '123 ', '+123', '', '9007199254740993', '1_000'])(
      'rejects %p as malformed (or missing)',
      (raw) => {
        const result = verify(signedAt(raw), { now: new Date(Math.abs(Number(raw) || 0) * 1000) });
        expect(result).toEqual({ valid: false, reason: raw === '' ? 'missing_timestamp' : 'malformed_timestamp' });
      },
    );

    it('accepts the smallest and largest valid values', () => {
      expect(verify(signedAt('1'), { now: new Date(1000) })).toEqual({ valid: true });
      const max = String(Number.MAX_SAFE_INTEGER);
      // Signature matches; the clock is far away, so only freshness fails.
      expect(verify(signedAt(max))).toEqual({ valid: false, reason: 'stale_timestamp' });
    });

    it('reads a leading-zero timestamp ("0123") as the integer 123 and signs the canonical form', () => {
      // The verifier does not reject non-canonical digits: it parses them as a number and the
      // HMAC input is the canonical decimal, so a signature over the literal header text fails...
      expect(verify(signedAt('0123'), { now: new Date(123_000) })).toEqual({ valid: false, reason: 'signature_mismatch' });
      // ...and a signature over "123." verifies even though the header says "0123".
      const canonical = goodHeaders({
        [WEBHOOK_HEADERS.timestamp]: '0123',
        [WEBHOOK_HEADERS.signature]: computeSignature(SECRET, 123, DELIVERY_ID, BODY),
      });
      expect(verify(canonical, { now: new Date(123_000) })).toEqual({ valid: true });
      // The sender never produces leading zeros.
      expect(fixtureHeaders(new Date(123_000))[WEBHOOK_HEADERS.timestamp]).toBe('123');
    });

    it('floors a sub-second clock to whole seconds when signing', () => {
      const headers = fixtureHeaders(new Date(NOW.getTime() + 999));
      expect(headers[WEBHOOK_HEADERS.timestamp]).toBe(String(TS));
    });
  });

  describe('header sources', () => {
    it('reads a fetch Headers object', () => {
      expect(verify(new Headers(goodHeaders()))).toEqual({ valid: true });
      expect(verify(new Headers(goodHeaders({ [WEBHOOK_HEADERS.deliveryId]: undefined })))).toEqual({
        valid: false,
        reason: 'missing_delivery_id',
      });
    });

    it('reads a plain record with mixed-case names', () => {
      const good = goodHeaders();
      const mixed = {
        'X-Service-Timestamp': good[WEBHOOK_HEADERS.timestamp],
        'X-SERVICE-DELIVERY-ID': good[WEBHOOK_HEADERS.deliveryId],
        'x-Service-Signature': good[WEBHOOK_HEADERS.signature],
        'Content-Type': 'application/json',
      };
      expect(verify(mixed)).toEqual({ valid: true });
      expect(verify(new Headers(mixed))).toEqual({ valid: true });
    });

    it('treats an undefined record value as missing', () => {
      expect(verify({ ...goodHeaders(), [WEBHOOK_HEADERS.signature]: undefined })).toEqual({ valid: false, reason: 'missing_signature' });
    });
  });

  describe('properties', () => {
    const secretArb = fc.string({ minLength: 1, maxLength: 80 });
    const bodyArb = fc.uint8Array({ minLength: 1, maxLength: 512 }).map((bytes) => Buffer.from(bytes));
    const nowArb = fc.integer({ min: 1, max: 4_102_444_800 }).map((s) => new Date(s * 1000));

    it('a signature made by signatureHeaders verifies', () => {
      fc.assert(
        fc.property(secretArb, bodyArb, nowArb, fc.uuid(), fc.integer({ min: 1, max: 10 }), (secret, body, now, deliveryId, attempt) => {
          const headers = signatureHeaders({ secret, deliveryId, rawBody: body, attempt, now });
          expect(verifySignature({ secret, headers, rawBody: body, now })).toEqual({ valid: true });
          // Same bytes as a string body, when they are valid UTF-8.
          const text = body.toString('utf8');
          if (Buffer.from(text, 'utf8').equals(body))
            expect(verifySignature({ secret, headers, rawBody: text, now })).toEqual({ valid: true });
        }),
        { numRuns: 300 },
      );
    });

    it('flipping any byte of the body fails', () => {
      fc.assert(
        fc.property(
          secretArb,
          bodyArb,
          nowArb,
          fc.uuid(),
          fc.nat(),
          fc.integer({ min: 1, max: 255 }),
          (secret, body, now, deliveryId, index, mask) => {
            const headers = signatureHeaders({ secret, deliveryId, rawBody: body, attempt: 1, now });
            const tampered = Buffer.from(body);
            const i = index % tampered.length;
            tampered[i] = tampered[i] ^ mask;
            expect(verifySignature({ secret, headers, rawBody: tampered, now })).toEqual({ valid: false, reason: 'signature_mismatch' });
          },
        ),
        { numRuns: 300 },
      );
    });

    it('a different secret fails', () => {
      fc.assert(
        fc.property(secretArb, secretArb, bodyArb, nowArb, (a, b, body, now) => {
          fc.pre(a !== b);
          const headers = signatureHeaders({ secret: a, deliveryId: DELIVERY_ID, rawBody: body, attempt: 1, now });
          expect(verifySignature({ secret: b, headers, rawBody: body, now })).toEqual({ valid: false, reason: 'signature_mismatch' });
        }),
        { numRuns: 200 },
      );
    });
  });
});
