import crypto from 'node:crypto';
import type { OperationDoc } from '../routeTable';
import { componentSchemas } from './schemas';

/**
 * The request and response examples of every operation (shown by the reference page at /docs),
 * derived from the schemas themselves: a schema's own `example`, else its `const`, `default`,
 * first enum value, format, or a typical value of its field name, kept inside its bounds. So an
 * example follows its schema as the schema changes (test/unit/openapiExamples.test.ts validates each).
 */

type Schema = Record<string, unknown>;
type Media = { schema?: object; example?: unknown };

/** Typical values of common field names, used when the field's schema allows them (type, bounds, pattern). */
const FIELD_VALUES: Record<string, unknown> = {
  name: 'Front desk',
  display_name: 'Acme Dental',
  phone_number: '+14155550123',
  line_phone_number: '+14155550100',
  from_number: '+14155550100',
  to_number: '+14155550123',
  from: '+14155550100',
  to: '+14155550123',
  text: 'Hi! Your appointment is confirmed for Tuesday at 10:00.',
  message: 'This call may be recorded for quality purposes.',
  last_message_text: 'See you Tuesday.',
  partial_response_text: 'Hi, this is Acme Dental calling about',
  response_text: 'Yes, Tuesday works for me.',
  system_prompt: 'You answer the front desk of a dental clinic. Be brief and friendly.',
  begin_message: 'Hello, this is Acme Dental. How can I help?',
  topic: 'Confirm the patient’s appointment on Tuesday at 10:00',
  description: 'Outbound call, 2 minutes',
  voice: 'aria',
  slug: 'aria',
  accent: 'American',
  agent_label: 'support-bot',
  key_prefix: 'sk_test_4f9a',
  plaintext_key: 'sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a',
  key: 'sk_test_7c2e5a9b3d1f4e8a6c0b2d4f6a8c1e3b',
  webhook_secret: '9c1d4e7f2a5b8c3d6e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d',
  // The example line is a hosted one: neither a webhook nor an audio relay.
  webhook_url: null,
  audio_handler_url: null,
  default_webhook_url: 'https://agent.example.com/switchboard/webhook',
  status_callback_url: 'https://agent.example.com/switchboard/status',
  recording_url: null,
  url: 'https://agent.example.com/switchboard/webhook',
  audio_url: null,
  event_type: 'call_ended',
  type: 'call_charge',
  source: 'api',
  jurisdiction: 'US',
  digits: '123#',
  month: '2026-01',
  code: 'validation_error',
  field: 'name',
  error_code: null,
  failure_reason: null,
  transferred_to: null,
  reference_id: uuidFor('call_id'),
  // The last page.
  next_cursor: null,
  error_message: null,
  response_body: '{"ok":true}',
  reference_type: 'call',
  http_status: 200,
  duration_ms: 142,
  duration_sec: 125,
  max_duration_sec: 600,
  max_duration_seconds: 600,
  charge_cents: 12,
  amount_cents: -12,
  amount_credits: -12,
  balance_after_cents: 488,
  balance_after_credits: 488,
  cents: 488,
  credits: 488,
  available_cents: 476,
  held_cents: 12,
  monthly_cap_cents: 5000,
  monthly_spend_cents: 1200,
  amountCents: 5000,
  cost_cents: 37,
  cost_credits: 37,
  minutes: 3.25,
  calls: 2,
  segments: 1,
  total: 1,
  success: 1,
  failed: 0,
  success_rate: 1,
  message_count: 4,
  attempt_count: 1,
  context_limit: 50,
  endpointing_ms: 300,
  timeout_seconds: 30,
  response_timestamp: 1768469400000,
  auto_recharge_threshold_cents: 500,
  auto_recharge_amount_cents: 2000,
  scopes: ['calls:create', 'calls:control'],
  request_body: { event: 'message', call_id: uuidFor('call_id'), text: 'Hello?' },
};

/** Fields whose enums differ by record: the first value the field's schema allows is taken. */
const FIELD_CHOICES: Record<string, unknown[]> = {
  status: ['completed', 'active', 'delivered', 'success'],
  direction: ['outbound'],
  role: ['assistant'],
};

const DATE_TIME = '2026-01-15T09:30:00.000Z';

/** A fixed UUID per field name, so the same id (`line_id`, ...) reads the same in every example. */
function uuidFor(name: string): string {
  const hex = crypto.createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const target = componentSchemas[ref.slice('#/components/schemas/'.length)];
  if (!target) throw new Error(`unknown schema ${ref}`);
  return resolve(target as Schema);
}

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
}

function fitsType(value: unknown, types: string[]): boolean {
  if (types.length === 0) return true;
  if (value === null) return types.includes('null');
  if (Array.isArray(value)) return types.includes('array');
  if (typeof value === 'number') return types.includes(Number.isInteger(value) ? 'integer' : 'number') || types.includes('number');
  return types.includes(typeof value);
}

function fitsBounds(value: unknown, schema: Schema): boolean {
  if (typeof value === 'string') {
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) return false;
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) return false;
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return false;
    if (schema.format === 'uuid' || schema.format === 'date-time' || schema.format === 'date') return false;
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return false;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return false;
  }
  if (Array.isArray(value) && schema.items) return value.every((item) => fitsBounds(item, resolve(schema.items as Schema)));
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  return true;
}

/** An example value of `schema`; `field` is the property it describes, if any. */
export function exampleOf(raw: object, field?: string): unknown {
  const schema = resolve(raw as Schema);
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const first = ((schema.oneOf ?? schema.anyOf) as Schema[])[0];
    return exampleOf({ ...schema, oneOf: undefined, anyOf: undefined, ...resolve(first) }, field);
  }
  // An object made of others (`{allOf: [Call, {recording_storage}]}`): each part's fields together.
  if (Array.isArray(schema.allOf) && !schema.properties)
    return Object.assign({}, ...(schema.allOf as Schema[]).map((part) => exampleOf(part, field)).filter((e) => e && typeof e === 'object'));
  if ('default' in schema) return schema.default;
  const types = typesOf(schema);
  const candidates = field ? (FIELD_CHOICES[field] ?? (field in FIELD_VALUES ? [FIELD_VALUES[field]] : [])) : [];
  const fitting = candidates.find((value) => fitsType(value, types) && fitsBounds(value, schema));
  if (fitting !== undefined) return fitting;
  if (Array.isArray(schema.enum)) return schema.enum.find((value) => value !== null) ?? null;
  const type = types.find((t) => t !== 'null') ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, object>;
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, exampleOf(property, name)]));
    }
    case 'array':
      return schema.items ? [exampleOf(schema.items as object, field)] : [];
    case 'string':
      return stringExample(schema, field);
    case 'integer':
    case 'number':
      return clamp(1, schema);
    case 'boolean':
      return field === 'is_default' || field === 'recording_enabled' ? false : true;
    default:
      return types.includes('null') ? null : {};
  }
}

function stringExample(schema: Schema, field?: string): string {
  switch (schema.format) {
    case 'uuid':
      return uuidFor(field === 'id' || !field ? 'id' : field);
    case 'date-time':
      return DATE_TIME;
    case 'date':
      return DATE_TIME.slice(0, 10);
    case 'uri':
      return 'https://agent.example.com/switchboard/webhook';
  }
  const text = 'example';
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : text.length;
  return text.padEnd(min, 'x').slice(0, Math.max(max, min));
}

function clamp(value: number, schema: Schema): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  return Math.min(Math.max(value, min), max);
}

/** Human wording of the error codes every route shares; any other code's message is its name spelled out. */
const ERROR_MESSAGES: Record<string, string> = {
  unauthorized: 'Missing Authorization header; send `Authorization: Bearer <API_KEY>`',
  invalid_api_key: 'The API key is malformed, unknown, expired or revoked',
  internal_error: 'An unexpected error occurred; it has been logged with the request id',
  validation_error: 'The request has invalid fields',
  rate_limited: 'Too many requests; retry after the number of seconds in Retry-After',
};

/** The error envelope as it answers for the first code a response's description names (`code` in backticks). */
export function errorExample(description: string): unknown {
  const code = /`([a-z0-9_]+)`/.exec(description)?.[1] ?? 'error';
  const spelled = code.replace(/_/g, ' ');
  const message = ERROR_MESSAGES[code] ?? spelled.charAt(0).toUpperCase() + spelled.slice(1);
  const details = code === 'validation_error' ? [{ field: 'name', message: 'Required' }] : undefined;
  return { error: { code, message, ...(details ? { details } : {}) } };
}

const isErrorSchema = (schema: object | undefined) => (schema as { $ref?: string } | undefined)?.$ref === '#/components/schemas/Error';

/** `operation` with an `example` on its request body and on every response body that has none yet. */
export function withExamples(operation: OperationDoc): OperationDoc {
  const fill = (content: Record<string, Media> | undefined, error?: string) =>
    content &&
    Object.fromEntries(
      Object.entries(content).map(([type, media]) => [
        type,
        'example' in media || !media.schema
          ? media
          : { ...media, example: error !== undefined && isErrorSchema(media.schema) ? errorExample(error) : exampleOf(media.schema) },
      ]),
    );
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => [
      status,
      response.content ? { ...response, content: fill(response.content, response.description) } : response,
    ]),
  );
  const requestBody = operation.requestBody && { ...operation.requestBody, content: fill(operation.requestBody.content) };
  // Path parameters too, so the page's request snippets show a URL that can be sent (`lineId` reads as `line_id`).
  const parameters = operation.parameters?.map((p) =>
    p.in === 'path' && !('example' in p)
      ? {
          ...p,
          example: exampleOf(
            p.schema,
            p.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
          ),
        }
      : p,
  );
  return { ...operation, ...(parameters ? { parameters } : {}), ...(requestBody ? { requestBody } : {}), responses } as OperationDoc;
}
