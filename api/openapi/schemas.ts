import {
  agentKeyWritable,
  grant,
  importExcludesCriteria,
  keyName,
  lineNumberFields,
  lineWritableFields,
  modeRequirements,
  toolDeclaration,
  nanpAreaCodeForm,
} from './fields';
import { E164_PATTERN } from '../../src/platform/phone';
import { campaignEventSchemas, campaignRecordSchemas } from './campaignRecords';
import { recordSchemas } from './records';

/** Shared component schemas of the OpenAPI document (JSON Schema 2020-12, as OpenAPI 3.1 uses): request bodies and the error envelope here, returned records in records.ts. */
export const componentSchemas: Record<string, object> = {
  ...recordSchemas,
  ...campaignRecordSchemas,
  ...campaignEventSchemas,
  Error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          details: {
            type: 'array',
            items: { type: 'object', required: ['message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
          },
        },
      },
    },
  },
  PhoneNumber: {
    type: 'string',
    pattern: E164_PATTERN,
    example: '+14155550123',
    description:
      'E.164: `+`, the country calling code and the national number, no spaces or punctuation. The pattern admits each calling code with the national-number lengths ' +
      'its numbering plan allows (libphonenumber metadata); some operations also need a number that is assigned in that plan (422 naming the field).',
  },
  Tool: toolDeclaration,
  AgentKeyMintRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      ...agentKeyWritable,
      environment: { type: 'string', enum: ['test', 'live'], description: "Defaults to the service key's; a mismatch is 422." },
    },
  },
  AuthKeyCreateRequest: { type: 'object', additionalProperties: false, required: ['name'], properties: agentKeyWritable },
  AgentKeyUpdateRequest: { type: 'object', additionalProperties: false, properties: agentKeyWritable },
  Grant: grant,
  ScopedKeyMintRequest: { type: 'object', additionalProperties: false, required: ['name', 'grant'], properties: { name: keyName, grant } },
  LineUpdateRequest: {
    type: 'object',
    additionalProperties: false,
    properties: lineWritableFields,
    description:
      'Only the fields given change. null clears a nullable field. Switching to audio clears webhook_url unless it is in the same body; switching to hosted clears a language pin.',
    example: { mode: 'webhook', webhook_url: 'https://agent.example.com/switchboard/webhook', language: 'en' },
  },
  LineCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'mode'],
    properties: { ...lineWritableFields, ...lineNumberFields },
    allOf: [...modeRequirements.allOf, nanpAreaCodeForm],
    ...importExcludesCriteria,
    description:
      'A line and its number: by default a local US number; `country`, `number_type` and `area_code` choose what to buy, `phone_number` imports an owned number instead.',
    example: {
      name: 'Front desk',
      mode: 'hosted',
      system_prompt: 'You answer the front desk of a dental clinic. Be brief and friendly.',
      begin_message: 'Hello, this is Acme Dental. How can I help?',
      voice: 'aria',
    },
  },
};

export const ref = (name: keyof typeof componentSchemas & string) => ({ $ref: `#/components/schemas/${name}` });

export const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } });

/** The 502 of an operation that asks the carrier while the customer waits (docs/decisions/carriers.md, "Provider refusals (issue 26)"). */
export const carrierErrorResponse = (what: string) =>
  errorResponse(
    `\`carrier_error\`: the carrier refused ${what}, for a reason no other code names. \`details\`: \`{field: "provider", message: "twilio" | "telnyx" | "simulator"}\` ` +
      'and, when the provider gave one, `{field: "provider_code", message: <its code>}` (Twilio’s error code, Telnyx’s `errors[0].code`, the simulator’s HTTP status). ' +
      'Nothing was done. Sending it again unchanged gets the same answer until the cause is settled with the carrier (often by the operator: an address or regulatory documents for a country).',
  );

/** The deepest offset any list serves (the keys list's 100000 from the client's history, for every list): deeper pages are a scan, not a read. */
export const MAX_OFFSET = 100_000;

/** A documented JSON response with this body schema. */
export const jsonResponse = (description: string, schema: object) => ({ description, content: { 'application/json': { schema } } });

/** A JSON object with these fields, all present: `{call: Call}`, `{calls: [Call], total}`, ... */
export function fields(properties: Record<string, object>): object {
  return { type: 'object', required: Object.keys(properties), properties };
}

export const arrayOf = (items: object) => ({ type: 'array', items });

/** `total` of an offset-paginated list; `has_more` and `next_cursor` of a cursor-paginated one. */
export const total = { type: 'integer', minimum: 0, description: 'Every matching row, not only this page' };
export const cursorFields = {
  has_more: { type: 'boolean' },
  next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last' },
};

/** `limit` (1-100, default 50) and `offset` (0-100000) query parameters of offset-paginated lists. */
export function offsetPaginationParams(maxOffset = MAX_OFFSET) {
  return [
    { name: 'limit', in: 'query' as const, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
    { name: 'offset', in: 'query' as const, schema: { type: 'integer', minimum: 0, maximum: maxOffset, default: 0 } },
  ];
}

/**
 * A list the public client reads without paging (lines, disclosures): the same parameters, but
 * the default page is the largest, so one request still returns everything a usual workspace has.
 */
export function boundedListParams(pageSize = 100) {
  const [limit, offset] = offsetPaginationParams();
  return [{ ...limit, schema: { ...limit.schema, maximum: pageSize, default: pageSize } }, offset];
}

/** A required JSON request body with this schema. */
export function jsonRequestBody(schema: object) {
  return { required: true, content: { 'application/json': { schema } } };
}
