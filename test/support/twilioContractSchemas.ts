import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import api2010 from '../fixtures/twilio-oai/twilio_api_v2010.slice.json';
import messagingV1 from '../fixtures/twilio-oai/twilio_messaging_v1.slice.json';

/**
 * Twilio's operations as vendored from twilio/twilio-oai (test/fixtures/twilio-oai/README.md),
 * compiled into ajv validators for the contract stub (./twilioContract.ts).
 *
 * twilio-oai is OpenAPI 3.0. What is translated for ajv (draft-07), and why:
 * - `nullable: true` stays (ajv implements it); with no `type` (`encryption_details`) it says nothing and is dropped.
 * - Objects with `properties` and no `additionalProperties` are closed: twilio-oai lists every request
 *   parameter and every response field, so a name outside them is invented. twilio-oai marks no
 *   response field `required` (Twilio answers null for what it lacks), so presence is not checked.
 * - Twilio's own formats are given a meaning (below); `x-twilio.ignoreFormat` drops a field's format,
 *   as Twilio's generators do; `format` on an object (`uri-map`, `phone-number-capabilities`) becomes
 *   the shape it names. `x-*`, `example(s)` and `description` are annotations and are removed.
 * - Request values arrive form-encoded (strings; an array as the same key repeated): ajv's
 *   `coerceTypes: 'array'` reads them as the declared types, so a boolean is only "true" or "false",
 *   an integer only digits, and a repeated scalar is refused.
 */

type Schema = { [key: string]: unknown };

export interface TwilioOperation {
  operationId: string;
  method: string;
  /** The path template, e.g. `/2010-04-01/Accounts/{AccountSid}/Calls.json`. */
  template: string;
  /** Which vendored description it comes from (`spec/json/twilio_api_v2010.json`). */
  source: string;
  pattern: RegExp;
  pathParameters: ValidateFunction;
  queryParameters: ValidateFunction;
  /** The form body's schema, for operations that take one. */
  body?: ValidateFunction;
  /** Response validators by status code. */
  responses: Map<number, ValidateFunction | undefined>;
  /** Basic auth with the account SID and auth token (every operation used here). */
  basicAuth: boolean;
}

/** RFC 2822 date-time as Twilio writes it ("Tue, 31 Aug 2010 20:36:28 +0000"); the obsolete zone names ("GMT") must not be generated (RFC 2822 §4). */
const RFC_2822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-3][0-9] (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-2][0-9]:[0-5][0-9]:[0-6][0-9] [+-][0-9]{4}$/;

function addTwilioFormats(ajv: Ajv): void {
  addFormats(ajv, ['date', 'date-time', 'int32', 'int64']);
  // Twilio judges a number itself and refuses a bad one with its own code (21211 "invalid 'To' number", which
  // the stub answers); twilio-oai's `phone-number` and `endpoint` (a number, `sip:…`, `client:…`) name a type, not a syntax.
  ajv.addFormat('phone-number', /\S/);
  ajv.addFormat('endpoint', /\S/);
  // Absolute URLs (callbacks), the API paths Twilio answers in `uri`, `first_page_uri`, …, or "": Twilio's own
  // examples answer `"sms_url": ""` for a URL not set, and an empty value is how a number's URL is cleared.
  ajv.addFormat('uri', (value: string) => value === '' || /^(https?|wss?):\/\/[^\s/]+\S*$/i.test(value) || /^\/\S*$/.test(value));
  ajv.addFormat('http-method', /^(GET|POST|PUT|PATCH|DELETE|HEAD)$/);
  ajv.addFormat('twiml', (value: string) => /^\s*(<\?xml[^>]*\?>\s*)?<Response(\s*\/>|>[\s\S]*<\/Response>)\s*$/.test(value));
  ajv.addFormat('date-time-rfc-2822', RFC_2822);
  ajv.addFormat('currency', /^[A-Za-z]{3}$/);
  ajv.addFormat('iso-country-code', /^[A-Z]{2}$/);
}

const ANNOTATIONS = new Set(['description', 'example', 'examples', 'title', 'summary']);

/** An OpenAPI 3.0 schema as the draft-07 schema ajv reads (see above); `$ref`s point into `specId`. */
export function translateSchema(schema: unknown, specId: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => translateSchema(item, specId));
  if (schema === null || typeof schema !== 'object') return schema;
  const source = schema as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key.startsWith('x-') || ANNOTATIONS.has(key)) continue;
    if (key === '$ref') out.$ref = String(value).replace(/^#\/components\/schemas\//, `${specId}#/definitions/`);
    else if (key === 'properties')
      out.properties = Object.fromEntries(Object.entries(value as Schema).map(([name, sub]) => [name, translateSchema(sub, specId)]));
    else out[key] = translateSchema(value, specId);
  }
  if ((source['x-twilio'] as Schema | undefined)?.ignoreFormat === true) delete out.format;
  if (out.nullable !== undefined && out.type === undefined) delete out.nullable;
  if (out.type === 'object' && out.format === 'uri-map') out.additionalProperties = { type: 'string', format: 'uri' };
  if (out.type !== 'string' && out.type !== 'number' && out.type !== 'integer') delete out.format;
  if (out.properties !== undefined && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** Twilio's error answer (twilio-node `RestException`: code, message, more_info, status, details; "Twilio's response", twilio.com/docs/usage/twilios-response). */
export const TWILIO_ERROR_SCHEMA = {
  type: 'object',
  properties: {
    code: { type: 'integer' },
    message: { type: 'string' },
    more_info: { type: 'string', format: 'uri' },
    status: { type: 'integer' },
    details: { type: 'object' },
  },
  required: ['message', 'status'],
  additionalProperties: false,
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: unknown;
}

type OpenApiDocument = {
  info: { 'x-vendored': { path: string } };
  security?: unknown[];
  paths: Record<string, Record<string, unknown>>;
  components: { schemas?: Record<string, unknown> };
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compileDocument(requests: Ajv, responses: Ajv, doc: OpenApiDocument): TwilioOperation[] {
  const source = doc.info['x-vendored'].path;
  const specId = source.replace(/^.*\/|\.json$/g, '');
  const definitions = Object.fromEntries(
    Object.entries(doc.components.schemas ?? {}).map(([name, s]) => [name, translateSchema(s, specId)]),
  );
  for (const ajv of [requests, responses]) ajv.addSchema({ $id: specId, definitions });
  const parametersOf = (parameters: Parameter[], where: string) => {
    const chosen = parameters.filter((p) => p.in === where);
    return requests.compile({
      type: 'object',
      properties: Object.fromEntries(chosen.map((p) => [p.name, translateSchema(p.schema, specId)])),
      required: chosen.filter((p) => p.required).map((p) => p.name),
      additionalProperties: false,
    });
  };
  const operations: TwilioOperation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as {
        operationId?: string;
        parameters?: Parameter[];
        security?: unknown[];
        requestBody?: { content: Record<string, { schema: unknown }> };
        responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
      };
      if (!op.operationId) continue;
      const parameters = [...((item.parameters as Parameter[] | undefined) ?? []), ...(op.parameters ?? [])];
      const form = op.requestBody?.content['application/x-www-form-urlencoded'];
      const security = JSON.stringify(op.security ?? doc.security ?? []);
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        source,
        pattern: new RegExp(
          `^${template
            .split(/\{[^}]+\}/)
            .map(escapeRegExp)
            .join('([^/]+)')}$`,
        ),
        pathParameters: parametersOf(parameters, 'path'),
        queryParameters: parametersOf(parameters, 'query'),
        body: form ? requests.compile(translateSchema(form.schema, specId) as Schema) : undefined,
        responses: new Map(
          Object.entries(op.responses).map(([status, response]) => {
            const schema = response.content?.['application/json']?.schema;
            return [Number(status), schema === undefined ? undefined : responses.compile(translateSchema(schema, specId) as Schema)];
          }),
        ),
        basicAuth: security.includes('accountSid_authToken'),
      });
    }
  }
  return operations;
}

let compiled: { operations: TwilioOperation[]; error: ValidateFunction } | undefined;

/** Every vendored operation, compiled once per process. */
export function twilioOperations(): { operations: TwilioOperation[]; error: ValidateFunction } {
  if (compiled) return compiled;
  const requests = new Ajv({ coerceTypes: 'array', allErrors: true, strict: true });
  const responses = new Ajv({ allErrors: true, strict: true });
  for (const ajv of [requests, responses]) addTwilioFormats(ajv);
  const operations = [api2010, messagingV1].flatMap((doc) => compileDocument(requests, responses, doc as unknown as OpenApiDocument));
  operations.push(deleteRecordingOf(operations, requests));
  compiled = { operations, error: responses.compile(TWILIO_ERROR_SCHEMA) };
  return compiled;
}

/**
 * `DeleteRecording`, which the vendored slice lacks, as twilio/twilio-oai describes it at the slice's commit
 * (`spec/json/twilio_api_v2010.json` d50069b44ea8cd23141385bdb6db48f16ff75bb5, path
 * `/2010-04-01/Accounts/{AccountSid}/Recordings/{Sid}.json`, `delete`): the same path item as `FetchRecording`, with
 * the same two path parameters (`AccountSid` `^AC[0-9a-fA-F]{32}$`, `Sid` `^RE[0-9a-fA-F]{32}$`, 34 characters each),
 * no query parameter and no body, `accountSid_authToken` security, and one answer: 204 without a body ("The resource
 * was deleted successfully"). Derived here, field by field, rather than re-vendored: to vendor it instead, list it in
 * test/fixtures/twilio-oai/operations.json and run the extractor there, and drop this.
 */
export const DERIVED_OPERATIONS = ['DeleteRecording'];

function deleteRecordingOf(operations: TwilioOperation[], requests: Ajv): TwilioOperation {
  const fetch = operations.find((op) => op.operationId === 'FetchRecording');
  if (!fetch) throw new Error('FetchRecording is not vendored: DeleteRecording is derived from its path item');
  return {
    ...fetch,
    operationId: 'DeleteRecording',
    method: 'DELETE',
    queryParameters: requests.compile({ type: 'object', properties: {}, additionalProperties: false }),
    body: undefined,
    responses: new Map([[204, undefined]]),
    basicAuth: true,
  };
}

/** Ajv's errors as one line each, naming the parameter or field (an invented one by its own name). */
export function describeErrors(errors: ErrorObject[] | null | undefined, subject: string): string[] {
  return (errors ?? []).map((e) => {
    const at = `${subject}${e.instancePath.replace(/\//g, '.')}`;
    if (e.keyword === 'additionalProperties') return `${at}.${String(e.params.additionalProperty)} is not in Twilio's description`;
    if (e.keyword === 'enum') return `${at} ${e.message} (${(e.params.allowedValues as unknown[]).join(', ')})`;
    return `${at} ${e.message}`;
  });
}
