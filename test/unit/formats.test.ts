import { boundIntegers, forbidNul, isUuid, NO_NUL_PATTERN, parseDate, parseDateOrDateTime, parseDateTime } from '../../api/openapi/formats';

describe('strict formats', () => {
  it('a UUID is the canonical 8-4-4-4-12 hex form only', () => {
    expect(isUuid('6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b')).toBe(true);
    expect(isUuid('6F1C2A8E-3B4D-4E5F-8A9B-0C1D2E3F4A5B')).toBe(true);
    for (const bad of [
      'urn:uuid:6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
      '{6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b}',
      '6f1c2a8e3b4d4e5f8a9b0c1d2e3f4a5b',
      '-'.repeat(36),
      'abcdef0123456789abcdef0123456789abcd',
    ]) {
      expect(isUuid(bad)).toBe(false);
    }
  });

  it('date-times: RFC 3339 with a zone, real calendar dates, leap seconds only at 23:59:60 UTC', () => {
    expect(parseDateTime('2026-03-01T12:30:45.123456Z')?.toISOString()).toBe('2026-03-01T12:30:45.123Z');
    expect(parseDateTime('2026-03-01t12:30:45+02:00')?.toISOString()).toBe('2026-03-01T10:30:45.000Z');
    expect(parseDateTime('2016-12-31T23:59:60Z')?.toISOString()).toBe('2017-01-01T00:00:00.000Z');
    expect(parseDateTime('2016-12-31T18:59:60-05:00')?.toISOString()).toBe('2017-01-01T00:00:00.000Z');
    expect(parseDateTime('0001-01-01T00:00:00Z')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseDateTime('2024-02-29T00:00:00Z')).toBeDefined();
    for (const bad of [
      '2026-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T12:00:60Z',
      '2026-01-01T00:00:00',
      '2026-01-01',
      '-010000-01-01T00:00:00Z',
      '2026-01-01T00:00:00+24:00',
      '1',
    ]) {
      expect(parseDateTime(bad)).toBeUndefined();
    }
  });

  it('dates are midnight UTC; either form is accepted where a filter takes both', () => {
    expect(parseDate('0099-12-31')?.toISOString()).toBe('0099-12-31T00:00:00.000Z');
    expect(parseDate('2026-02-30')).toBeUndefined();
    expect(parseDateOrDateTime('2026-01-31')?.toISOString()).toBe('2026-01-31T00:00:00.000Z');
    expect(parseDateOrDateTime('2026-01-31T01:00:00Z')?.toISOString()).toBe('2026-01-31T01:00:00.000Z');
  });

  it('every integer in a schema gets safe bounds where it has none', () => {
    expect(
      boundIntegers({
        type: 'object',
        properties: { a: { type: 'integer', minimum: 0 }, b: { type: ['integer', 'null'] }, c: { type: 'string' } },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        a: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        b: { type: ['integer', 'null'], minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        c: { type: 'string' },
      },
    });
  });

  it('a string refuses NUL by a pattern unless its own keywords, or every one of its branches, already do', () => {
    expect(forbidNul({ type: 'string', maxLength: 5 })).toEqual({ type: 'string', maxLength: 5, pattern: NO_NUL_PATTERN });
    expect(forbidNul({ type: 'string', format: 'date' })).toEqual({ type: 'string', format: 'date' });
    const formats = { type: 'string', anyOf: [{ format: 'date-time', maxLength: 64 }, { format: 'date' }] };
    expect(forbidNul(formats)).toEqual(formats);
    const open = { type: 'string', anyOf: [{ format: 'date' }, { maxLength: 3 }] };
    expect(forbidNul(open)).toEqual({ ...open, pattern: NO_NUL_PATTERN });
    expect(forbidNul({ type: 'object', properties: { at: { type: 'string', oneOf: [{ const: 'now' }, { minLength: 2 }] } } })).toEqual({
      type: 'object',
      properties: { at: { type: 'string', oneOf: [{ const: 'now' }, { minLength: 2 }], pattern: NO_NUL_PATTERN } },
    });
  });
});
