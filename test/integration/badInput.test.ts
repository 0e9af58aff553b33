import crypto from 'node:crypto';
import { loggableError } from '../../api/middleware/errorMapping';
import { webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/**
 * Schema-valid-looking input the database cannot take (issue #12, conformance D2, security L4):
 * each answers 4xx with the error envelope, never 500. Inputs are those the reviews and the
 * schema fuzzer found: `urn:uuid:` ids, non-UUID strings of UUID length, offsets past any
 * integer Postgres holds, cursors with bad ids or dates before Postgres's range.
 */
describe('no 500 for bad input', () => {
  const { h, tenant } = useSuite({ tenant: 'file', overrides: { lineProvisionWaitMs: 0 } });
  let lineId: string;

  beforeAll(async () => {
    const created = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
    expect(created.status).toBe(201);
    lineId = created.body.line.id;
  });

  const uuid = '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
  const urn = `urn:uuid:${uuid}`;
  const hex36 = 'abcdef0123456789abcdef0123456789abcd';
  const dashes36 = '-'.repeat(36);
  const at = '2026-01-01T00:00:00.000Z';

  type Case = {
    method: string;
    path: string | (() => string);
    key?: 'test' | 'serviceTest';
    body?: unknown;
    headers?: Record<string, string>;
    status: number;
    code?: string;
  };
  const cases: Array<[string, Case]> = [
    // Offsets beyond any bound (the fuzzer's value, and exponent forms parseInt would misread).
    [
      'deliveries offset from the fuzzer',
      { method: 'GET', path: '/api/v1/webhooks/deliveries?offset=22827762708099870720', status: 422, code: 'validation_error' },
    ],
    // E.164 has at most 15 digits; libphonenumber allows +81 with 17 more (the fuzzer's number: a 500 from pricing).
    [
      'a call to a number longer than E.164 allows',
      {
        method: 'POST',
        path: '/api/v1/calls',
        body: { line_id: uuid, to_number: '+8183798445713425963' },
        status: 422,
        code: 'validation_error',
      },
    ],
    ['calls offset 1e20', { method: 'GET', path: '/api/v1/calls?offset=1e20', status: 422, code: 'validation_error' }],
    ['calls offset just past the bound', { method: 'GET', path: '/api/v1/calls?offset=100001', status: 422, code: 'validation_error' }],
    ['consent list offset 1e30', { method: 'GET', path: '/api/v1/consent?offset=1e30', status: 422, code: 'validation_error' }],
    [
      'compliance audit offset',
      { method: 'GET', path: '/api/v1/compliance/audit?offset=9007199254740993', status: 422, code: 'validation_error' },
    ],
    ['compliance events offset', { method: 'GET', path: '/api/v1/compliance/events?offset=1e20', status: 422, code: 'validation_error' }],
    ['api-tokens offset', { method: 'GET', path: '/api-tokens?offset=1e20', status: 422, code: 'validation_error' }],
    ['keys plane offset', { method: 'GET', path: '/v1/keys?offset=1e20', key: 'serviceTest', status: 422, code: 'validation_error' }],
    ['a limit that is not a safe integer', { method: 'GET', path: '/api/v1/audit?limit=1e300', status: 422, code: 'validation_error' }],
    // The audit feed's api_key_id: not a UUID of one of the user's keys is 404 (spec rule 1).
    ['audit api_key_id of 36 hex digits', { method: 'GET', path: `/api/v1/audit?api_key_id=${hex36}`, status: 404, code: 'not_found' }],
    ['audit api_key_id of 36 dashes', { method: 'GET', path: `/v1/audit?api_key_id=${dashes36}`, status: 404, code: 'not_found' }],
    [
      'audit api_key_id that is no UUID at all',
      { method: 'GET', path: '/api/v1/audit?api_key_id=someone-else', status: 404, code: 'not_found' },
    ],
    ['audit api_key_id as urn:uuid', { method: 'GET', path: `/api/v1/audit?api_key_id=${urn}`, status: 404, code: 'not_found' }],
    ['audit api_key_id of an unknown key', { method: 'GET', path: `/api/v1/audit?api_key_id=${uuid}`, status: 404, code: 'not_found' }],
    // urn:uuid: (and other non-canonical) ids in paths are simply not found.
    ['line path id as urn:uuid', { method: 'GET', path: `/api/v1/lines/${urn}`, status: 404 }],
    ['line path id in braces', { method: 'PATCH', path: `/api/v1/lines/{${uuid}}`, body: { name: 'x' }, status: 404 }],
    ['call path id as urn:uuid', { method: 'GET', path: `/api/v1/calls/${urn}`, status: 404 }],
    ['call control path id as urn:uuid', { method: 'POST', path: `/api/v1/calls/${urn}/hangup`, status: 404 }],
    ['key path id as urn:uuid', { method: 'GET', path: `/v1/keys/${urn}`, key: 'serviceTest', status: 404 }],
    ['api-token path id of 36 hex digits', { method: 'POST', path: `/api-tokens/${hex36}/revoke`, status: 404 }],
    ['conversation line id as urn:uuid', { method: 'GET', path: `/api/v1/conversations/${urn}/%2B14155550123`, status: 404 }],
    // ...in bodies and queries they are invalid fields.
    [
      'call body line_id as urn:uuid',
      { method: 'POST', path: '/api/v1/calls', body: { line_id: urn, to_number: '+14155550123' }, status: 422, code: 'validation_error' },
    ],
    [
      'message body line_id as urn:uuid',
      {
        method: 'POST',
        path: '/api/v1/messages',
        body: { line_id: urn, to: '+14155550123', text: 'hi' },
        status: 422,
        code: 'validation_error',
      },
    ],
    [
      'consent body line_id',
      {
        method: 'POST',
        path: '/api/v1/consent',
        body: { line_id: urn, phone_number: '+14155550123', consent_type: 'explicit_outbound' },
        status: 422,
        code: 'validation_error',
      },
    ],
    [
      'webhook test body line_id',
      { method: 'POST', path: '/api/v1/webhooks/test', body: { line_id: hex36 }, status: 422, code: 'validation_error' },
    ],
    [
      'key mint body line_id',
      {
        method: 'POST',
        path: '/v1/keys',
        key: 'serviceTest',
        headers: { 'idempotency-key': crypto.randomUUID() },
        body: { name: 'a', line_id: urn },
        status: 422,
        code: 'validation_error',
      },
    ],
    [
      'grant numbers',
      {
        method: 'POST',
        path: '/api-tokens',
        body: { name: 'a', grant: { scopes: ['read'], resources: { numbers: [urn] } } },
        status: 422,
        code: 'validation_error',
      },
    ],
    ['calls line_id filter', { method: 'GET', path: `/api/v1/calls?line_id=${urn}`, status: 422, code: 'validation_error' }],
    [
      'deliveries line_id filter',
      { method: 'GET', path: `/api/v1/webhooks/deliveries?line_id=${dashes36}`, status: 422, code: 'validation_error' },
    ],
    [
      'compliance audit line_id filter',
      { method: 'GET', path: `/api/v1/compliance/audit?line_id=${urn}`, status: 422, code: 'validation_error' },
    ],
    // Cursors: the id must be a UUID, the time a date-time Postgres can hold.
    [
      'transactions cursor with 36 dashes',
      {
        method: 'GET',
        path: `/api/v1/billing/transactions?cursor=${encodeURIComponent(`${at}|${dashes36}`)}`,
        status: 422,
        code: 'validation_error',
      },
    ],
    [
      'transactions cursor with 36 hex digits',
      {
        method: 'GET',
        path: `/api/v1/billing/transactions?cursor=${encodeURIComponent(`${at}|${hex36}`)}`,
        status: 422,
        code: 'validation_error',
      },
    ],
    [
      'transactions cursor before 4713 BC',
      {
        method: 'GET',
        path: `/api/v1/billing/transactions?cursor=${encodeURIComponent('-010000-01-01T00:00:00.000Z')}`,
        status: 422,
        code: 'validation_error',
      },
    ],
    [
      'conversations cursor with a non-UUID id',
      {
        method: 'GET',
        path: `/api/v1/conversations?cursor=${encodeURIComponent(`${at}|${hex36}`)}`,
        status: 422,
        code: 'validation_error',
      },
    ],
    [
      'conversations cursor that is not a date',
      { method: 'GET', path: `/api/v1/conversations?cursor=${encodeURIComponent('1')}`, status: 422, code: 'validation_error' },
    ],
    [
      'conversation messages cursor before 4713 BC',
      {
        method: 'GET',
        path: () => `/api/v1/conversations/${lineId}/%2B14155550123?cursor=${encodeURIComponent(`-271821-04-20T00:00:00.000Z|${uuid}`)}`,
        status: 422,
        code: 'validation_error',
      },
    ],
    // Compliance audit dates: only real date-times (and dates).
    [
      'compliance audit from in month 13',
      { method: 'GET', path: '/api/v1/compliance/audit?from=2026-13-01T00:00:00Z', status: 422, code: 'validation_error' },
    ],
    [
      // 2026-01-01T00:00:00. + fraction digits + Z: a real date-time, one character past the bound.
      'compliance audit from longer than 64 characters',
      {
        method: 'GET',
        path: `/api/v1/compliance/audit?from=2026-01-01T00:00:00.${'1'.repeat(44)}Z`,
        status: 422,
        code: 'validation_error',
      },
    ],
    [
      'a cursor longer than 100 characters',
      {
        method: 'GET',
        path: `/api/v1/billing/transactions?cursor=2026-01-01T00:00:00.${'1'.repeat(80)}Z`,
        status: 422,
        code: 'validation_error',
      },
    ],
    [
      'compliance audit to on February 30',
      { method: 'GET', path: '/api/v1/compliance/audit?to=2026-02-30', status: 422, code: 'validation_error' },
    ],
    // A value only the database refuses (no schema forbids NUL in a line name): the error middleware's net.
    [
      'a NUL character the database cannot store',
      { method: 'PATCH', path: () => `/api/v1/lines/${lineId}`, body: { name: 'a\u0000b' }, status: 422, code: 'validation_error' },
    ],
  ];

  it.each(cases)('%s', async (_name, c) => {
    const path = typeof c.path === 'function' ? c.path() : c.path;
    const res = await h.request(c.method, path, { key: tenant.keys[c.key ?? 'test'], body: c.body, headers: c.headers });
    expect({ status: res.status, body: res.body }).toMatchObject({
      status: c.status,
      body: { error: { code: c.code ?? expect.any(String), message: expect.any(String) } },
    });
  });

  it('a database error is logged with its SQLSTATE but without the values of the request', async () => {
    const err = await h
      .db('lines')
      .where({ id: 'urn:uuid:+14155550199' })
      .first()
      .catch((e: unknown) => e);
    const logged = JSON.stringify(loggableError(err));
    expect(logged).toContain('22P02');
    expect(logged).not.toContain('14155550199');
    // A unique violation names the conflicting values in `detail`: not logged.
    const conflict = await h.db
      .transaction(async (trx) => {
        await trx.raw('create temp table phones (number text unique) on commit drop');
        await trx('phones').insert({ number: '+14155550177' });
        await trx('phones').insert({ number: '+14155550177' });
      })
      .catch((e: unknown) => e);
    expect((conflict as { detail?: string }).detail).toContain('+14155550177');
    const loggedConflict = JSON.stringify(loggableError(conflict));
    expect(loggedConflict).toContain('23505');
    expect(loggedConflict).not.toContain('14155550177');
  });

  it('a leap second in the compliance audit range is read as the next minute', async () => {
    const res = await h.request(
      'GET',
      `/api/v1/compliance/audit?from=${encodeURIComponent('2016-12-31T23:59:60Z')}&to=${encodeURIComponent('2999-06-30T23:59:60+00:00')}`,
      { key: tenant.keys.test },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ events: expect.any(Array), total: expect.any(Number) });
  });

  it('a date-time as long as the bounds allow is taken (64 characters in the audit range, 100 as a cursor)', async () => {
    const audit = await h.request('GET', `/api/v1/compliance/audit?from=2026-01-01T00:00:00.${'1'.repeat(43)}Z`, { key: tenant.keys.test });
    expect(audit.status).toBe(200);
    const page = await h.request('GET', `/api/v1/billing/transactions?cursor=2026-01-01T00:00:00.${'1'.repeat(79)}Z`, {
      key: tenant.keys.test,
    });
    expect(page.status).toBe(200);
  });

  it('a date in the compliance audit range means midnight UTC of that day', async () => {
    const none = await h.request('GET', '/api/v1/compliance/audit?from=2999-01-01', { key: tenant.keys.test });
    expect(none.status).toBe(200);
    expect(none.body.total).toBe(0);
    const all = await h.request('GET', '/api/v1/compliance/audit?from=2000-01-01&to=2999-01-01', { key: tenant.keys.test });
    expect(all.status).toBe(200);
  });

  it('the cursors this service hands out still work', async () => {
    const res = await h.request(
      'GET',
      `/api/v1/billing/transactions?limit=1&cursor=${encodeURIComponent(`${new Date().toISOString()}|${uuid}`)}`,
      { key: tenant.keys.test },
    );
    expect(res.status).toBe(200);
    const bare = await h.request('GET', `/api/v1/billing/transactions?cursor=${encodeURIComponent('2026-01-01T00:00:00Z')}`, {
      key: tenant.keys.test,
    });
    expect(bare.status).toBe(200);
  });

  it("the audit feed still reads self and the caller's own id in any case", async () => {
    const self = await h.request('GET', '/api/v1/audit?api_key_id=self', { key: tenant.keys.test });
    expect(self.status).toBe(200);
    const own = await h.request('GET', `/api/v1/audit?api_key_id=${self.body.api_key_id.toUpperCase()}`, { key: tenant.keys.test });
    expect(own.status).toBe(200);
    expect(own.body.api_key_id).toBe(self.body.api_key_id);
  });
});
