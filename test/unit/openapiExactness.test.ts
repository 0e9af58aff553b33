import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { API_VERSION } from '../../api/app';
import { buildOpenApiDocument, inlineRefs } from '../../api/openapi/document';
import { parseDate } from '../../api/openapi/formats';
import { CURSOR_SCHEMA, parseCursor } from '../../api/pagination';
import { allRoutes } from '../../api/routes';
import { zoneOf } from '../../src/domain/billing/pricing';
import { E164_PATTERN, toE164 } from '../../src/platform/phone';

type Parameter = { name: string; in: string; schema: object };
type Operation = { parameters?: Parameter[]; requestBody?: { content: { 'application/json': { schema: object } } } };

/**
 * The served OpenAPI document refuses what the server refuses, read by a generic validator (ajv
 * with ajv-formats, as a generated client's would be), not by the server's own: issue 27 item 4.
 * The fuzzing in test/integration/schemaFuzz.test.ts checks the other direction against the server.
 */
describe('the OpenAPI document states the checks the server makes', () => {
  const document = buildOpenApiDocument(
    allRoutes(() => ''),
    API_VERSION,
  ) as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const schemas = document.components.schemas;
  const body = (method: string, path: string) =>
    inlineRefs(document.paths[path][method].requestBody!.content['application/json'].schema, schemas);
  const param = (method: string, path: string, name: string, where = 'query') =>
    inlineRefs(document.paths[path][method].parameters!.find((p) => p.name === name && p.in === where)!.schema, schemas);
  const accepts = (schema: object, value: unknown) => ajv.validate(schema, value);

  it('phone numbers are E.164 with a length the calling code allows, wherever a request carries one', () => {
    const phoneSchemas = [
      param('get', '/api/v1/consent', 'phone_number'),
      param('delete', '/api/v1/consent', 'phone_number'),
      param('get', '/api/v1/compliance/audit', 'phone_number'),
      param('get', '/api/v1/conversations/{lineId}/{phoneNumber}', 'phoneNumber', 'path'),
      (body('post', '/api/v1/consent') as { properties: Record<string, object> }).properties.phone_number,
      (body('post', '/api/v1/calls') as { properties: Record<string, object> }).properties.to_number,
      (body('post', '/api/v1/calls/conversation') as { properties: Record<string, object> }).properties.to_number,
      (body('post', '/api/v1/calls/{id}/transfer') as { properties: Record<string, object> }).properties.to_number,
      (body('post', '/api/v1/messages') as { properties: Record<string, object> }).properties.to,
      (body('post', '/api/v1/lines/{id}/sms') as { properties: Record<string, object> }).properties.to_number,
      (body('post', '/api/v1/lines') as { properties: Record<string, object> }).properties.phone_number,
    ];
    for (const schema of phoneSchemas) {
      expect(accepts(schema, '+14155550123')).toBe(true);
      for (const refused of ['000', 'not a number', '+1415555012', '+999123456', '4155550123', '+1 (415) 555-0123']) {
        expect({ refused, accepted: accepts(schema, refused) }).toEqual({ refused, accepted: false });
      }
    }
  });

  it('every number the E.164 pattern admits is one the server takes (libphonenumber) and prices, for every calling code', () => {
    const alternatives = /^\^\\\+\(\?:(.*)\)\$$/.exec(E164_PATTERN)![1].split(/\|(?=\d+\(\?:)/);
    expect(alternatives.length).toBeGreaterThan(200);
    let seed = 27;
    const digit = () => String((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 10);
    for (const alternative of alternatives) {
      const [, code, lengths] = /^(\d+)\(\?:(.*)\)$/.exec(alternative)!;
      for (const range of lengths.split('|')) {
        const [min, max = min] = /\{(\d+)(?:,(\d+))?\}/.exec(range)!.slice(1).filter(Boolean).map(Number);
        // E.164's 15 digits at most, country code included.
        expect({ code, max, digits: code.length + max <= 15 }).toEqual({ code, max, digits: true });
        for (const length of new Set([min, max])) {
          for (let sample = 0; sample < 20; sample += 1) {
            const number = `+${code}${Array.from({ length }, digit).join('')}`;
            expect({ number, accepted: toE164(number) !== undefined }).toEqual({ number, accepted: true });
            expect({ number, zone: zoneOf(number) }).toEqual({ number, zone: expect.stringMatching(/^[ABC]$/) });
          }
        }
      }
    }
  });

  it('cursors: a date-time, a date, or next_cursor as the API writes it; the date part exists as parseDate reads it', () => {
    const schema = CURSOR_SCHEMA;
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect(accepts(schema, `2026-11-28T10:00:00.000Z|${id}`)).toBe(true);
    expect(accepts(schema, '2026-11-28T10:00:00Z')).toBe(true);
    expect(accepts(schema, '2026-11-28')).toBe(true);
    for (const refused of ['garbage', `2026-02-29T10:00:00.000Z|${id}`, `2026-11-28T10:00:00.000Z|not-an-id`, '7,±']) {
      expect({ refused, accepted: accepts(schema, refused) }).toEqual({ refused, accepted: false });
      expect(() => parseCursor(refused)).toThrow();
    }
    const pattern = new RegExp((schema.anyOf[2] as { pattern: string }).pattern);
    for (const year of [0, 4, 100, 1900, 2000, 2024, 2026, 9996, 9999]) {
      for (let day = 0; day < 366; day += 1) {
        const date = new Date(Date.UTC(2001, 0, 1 + day));
        for (const dayOfMonth of [date.getUTCDate(), 29, 30, 31]) {
          const text = `${String(year).padStart(4, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-${String(dayOfMonth).padStart(2, '0')}`;
          const matches = pattern.test(`${text}T00:00:00.000Z|${id}`);
          expect({ text, matches }).toEqual({ text, matches: parseDate(text) !== undefined });
        }
      }
    }
  });

  it('enums, URL schemes, blank text, NUL characters and the Idempotency-Key are in the document', () => {
    const feedTypes = param('get', '/api/v1/audit', 'event_types');
    expect(accepts(feedTypes, 'call, sms')).toBe(true);
    expect(accepts(feedTypes, 'call,telepathy')).toBe(false);

    const line = body('post', '/api/v1/lines');
    expect(accepts(line, { name: 'a', mode: 'audio', audio_handler_url: 'wss://agent.example.com/audio' })).toBe(true);
    expect(accepts(line, { name: 'a', mode: 'audio', audio_handler_url: 'https://agent.example.com/audio' })).toBe(false);
    expect(accepts(line, { name: 'a', mode: 'audio' })).toBe(false);
    expect(accepts(line, { name: 'a', mode: 'webhook', webhook_url: 'ftp://agent.example.com/' })).toBe(false);
    expect(accepts(line, { name: 'a', mode: 'hosted', system_prompt: '   ' })).toBe(false);
    expect(accepts(line, { name: 'a', mode: 'hosted', system_prompt: 'Be brief.', language: 'en' })).toBe(false);
    expect(accepts(line, { name: 'a', mode: 'hosted', system_prompt: 'Be brief.', voice: 'nobody' })).toBe(false);
    expect(accepts(line, { name: 'a', mode: 'hosted', system_prompt: 'Be brief.', country: 'XX' })).toBe(false);
    expect(accepts(line, { name: 'a', mode: 'hosted', system_prompt: 'Be brief.', phone_number: '+14155550123', area_code: '415' })).toBe(
      false,
    );
    expect(accepts(line, { name: 'a\u0000', mode: 'hosted', system_prompt: 'Be brief.' })).toBe(false);
    // An area code in North America (asked for, or the default country) has NANP's form; elsewhere 1-6 digits.
    const hosted = { name: 'a', mode: 'hosted', system_prompt: 'Be brief.' };
    expect(accepts(line, { ...hosted, area_code: '415' })).toBe(true);
    expect(accepts(line, { ...hosted, area_code: '8' })).toBe(false);
    expect(accepts(line, { ...hosted, area_code: '141' })).toBe(false);
    expect(accepts(line, { ...hosted, country: 'CA', area_code: '41' })).toBe(false);
    expect(accepts(line, { ...hosted, country: 'GB', area_code: '20' })).toBe(true);
    expect(accepts(body('patch', '/api/v1/settings'), { default_webhook_url: 'wss://agent.example.com/' })).toBe(false);

    const mint = body('post', '/api/v1/keys');
    expect(accepts(mint, { name: 'agent', permissions: 'call_only' })).toBe(true);
    expect(accepts(mint, { name: 'agent', permissions: 'legacy_full' })).toBe(false);

    const speak = body('post', '/api/v1/calls/{id}/speak') as { properties: Record<string, object> };
    expect(accepts(speak.properties.text, ' \u3000 ')).toBe(false);
    expect(accepts(param('get', '/api/v1/compliance/audit', 'event_type'), 'consent\u0000')).toBe(false);
    // Date filters and cursors refuse NUL by their formats and pattern; their bound sits on the date-time branch.
    for (const [path, name, bound] of [
      ['/api/v1/compliance/audit', 'from', 64],
      ['/api/v1/billing/transactions', 'cursor', 100],
    ] as const) {
      const schema = param('get', path, name) as { pattern?: string };
      expect({ name, pattern: schema.pattern }).toEqual({ name, pattern: undefined });
      expect(accepts(schema, '2026-01-01\u0000')).toBe(false);
      const dateTime = (length: number) => `2026-01-01T00:00:00.${'1'.repeat(length - 21)}Z`;
      expect(accepts(schema, dateTime(bound))).toBe(true);
      expect(accepts(schema, dateTime(bound + 1))).toBe(false);
    }
    expect(accepts(param('post', '/api/v1/keys', 'Idempotency-Key', 'header'), '')).toBe(false);
  });
});
