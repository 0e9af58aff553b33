import { ACCEPTED_MODES, LANGUAGES, LINE_MODES, LINE_STATUSES } from '../../src/lines/rules';
import { AGENT_LABEL_PATTERN } from '../../src/keys/agentKeys';
import { SCOPES } from '../../src/keys/scopes';
import { TIERS } from '../../src/keys/tiers';

/** Shared component schemas of the OpenAPI document (JSON Schema 2020-12, as OpenAPI 3.1 uses). */
const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, 'null'] });

const url = { type: 'string', maxLength: 2048, format: 'uri' };

const lineWritableFields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  display_name: nullable({ type: 'string', maxLength: 200 }),
  mode: { type: 'string', enum: [...ACCEPTED_MODES], description: '`text` is accepted as an alias of `webhook` and stored as `webhook`.' },
  system_prompt: nullable({ type: 'string', maxLength: 20000 }),
  begin_message: nullable({ type: 'string', maxLength: 2000 }),
  voice: nullable({ type: 'string', maxLength: 64, description: 'A voice slug from GET /api/v1/voices; trimmed, empty clears it.' }),
  context_limit: nullable({ type: 'integer', minimum: 1, maximum: 500 }),
  webhook_url: nullable({ ...url, description: 'http(s) URL receiving webhook events; required in webhook mode. Must lead to a public address (https for live lines).' }),
  audio_handler_url: nullable({ ...url, description: 'ws(s) URL of the audio relay; required in audio mode. Must lead to a public address (wss for live lines).' }),
  status_callback_url: nullable({ ...url, description: 'http(s) URL receiving call lifecycle callbacks. Must lead to a public address (https for live lines).' }),
  recording_enabled: { type: 'boolean' },
  compliance_enabled: { type: 'boolean' },
  language: {
    type: 'string',
    enum: [...LANGUAGES],
    description: 'Speech recognition language (default `multi`). Setting it on a hosted line, `multi` included, is refused with 400 hosted_mode_language_pinning_unsupported (hosted lines detect the language).',
  },
  endpointing_ms: nullable({ type: 'integer', minimum: 100, maximum: 2000 }),
};

const keyName = { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' };
const agentKeyWritable = {
  name: keyName,
  agent_label: nullable({ type: 'string', pattern: AGENT_LABEL_PATTERN, description: 'Stable agent identity: lowercase, 1-128 characters, starting with a letter or digit.' }),
  line_id: nullable({ type: 'string', format: 'uuid', description: 'Binds the key to one line; null makes it account-wide.' }),
  permissions: { type: 'string', enum: [...TIERS], description: 'Permission tier; `legacy_full` is refused (422).' },
  monthly_cap_cents: nullable({ type: 'integer', minimum: 1, maximum: 100_000_000_000 }),
};
const grant = {
  type: 'object',
  additionalProperties: false,
  required: ['scopes'],
  properties: {
    scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...SCOPES] } },
    resources: {
      type: 'object',
      additionalProperties: false,
      properties: { numbers: { type: 'array', uniqueItems: true, maxItems: 1000, items: { type: 'string', format: 'uuid', description: 'Line id' } } },
    },
    spendLimit: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['amountCents'],
      properties: { amountCents: { type: 'integer', minimum: 0, maximum: 100_000_000_000 }, resetPeriod: { type: ['string', 'null'], enum: ['monthly', null] } },
    }),
  },
};

export const componentSchemas: Record<string, object> = {
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
  AgentKey: {
    type: 'object',
    required: ['id', 'key_prefix', 'environment', 'name', 'permissions', 'monthly_spend_cents', 'created_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      key_prefix: { type: 'string' },
      environment: { type: 'string', enum: ['test', 'live'] },
      ...agentKeyWritable,
      monthly_spend_cents: { type: 'integer' },
      created_at: { type: 'string', format: 'date-time' },
      revoked_at: nullable({ type: 'string', format: 'date-time' }),
      last_used_at: nullable({ type: 'string', format: 'date-time' }),
      rotated_from: nullable({ type: 'string', format: 'uuid' }),
      created_by_service_key_id: nullable({ type: 'string', format: 'uuid' }),
      parent_key_id: nullable({ type: 'string', format: 'uuid', description: 'On /api/v1/auth/keys: the key that minted this one.' }),
      scopes: { type: 'array', items: { type: 'string' }, description: 'On /api/v1/auth/keys: the scopes the key holds.' },
      plaintext_key: { type: 'string', description: 'Only in the first response to a mint or rotate; never in replays or reads.' },
    },
  },
  AgentKeyMintRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: { ...agentKeyWritable, environment: { type: 'string', enum: ['test', 'live'], description: "Defaults to the service key's; a mismatch is 422." } },
  },
  AuthKeyCreateRequest: { type: 'object', additionalProperties: false, required: ['name'], properties: agentKeyWritable },
  AgentKeyUpdateRequest: { type: 'object', additionalProperties: false, properties: agentKeyWritable },
  Grant: grant,
  ScopedKey: {
    type: 'object',
    required: ['id', 'name', 'key_prefix', 'environment', 'grant', 'created_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      key_prefix: { type: 'string' },
      environment: { type: 'string', enum: ['test', 'live'] },
      grant,
      parent_key_id: nullable({ type: 'string', format: 'uuid' }),
      created_at: { type: 'string', format: 'date-time' },
      revoked_at: nullable({ type: 'string', format: 'date-time' }),
      last_used_at: nullable({ type: 'string', format: 'date-time' }),
    },
  },
  ScopedKeyMintRequest: { type: 'object', additionalProperties: false, required: ['name', 'grant'], properties: { name: keyName, grant } },
  Transaction: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      type: { type: 'string' },
      amount_credits: { type: 'integer', description: 'US cents; positive credits, negative debits' },
      amount_cents: { type: 'integer' },
      balance_after_credits: { type: 'integer' },
      balance_after_cents: { type: 'integer' },
      description: { type: 'string' },
      reference_id: nullable({ type: 'string' }),
      reference_type: nullable({ type: 'string' }),
      created_at: { type: 'string', format: 'date-time' },
    },
  },
  Message: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      line_id: { type: 'string', format: 'uuid' },
      direction: { type: 'string', enum: ['inbound', 'outbound'] },
      from: { type: 'string', description: 'E.164' },
      to: { type: 'string', description: 'E.164' },
      text: { type: 'string' },
      status: { type: 'string', enum: ['queued', 'sent', 'delivered', 'undelivered', 'failed', 'received'] },
      segments: { type: 'integer', description: 'GSM-7 / UCS-2 segments the text is sent as' },
      charge_cents: nullable({ type: 'integer', description: 'Set once billed; 0 for inbound and keyword replies' }),
      error_code: nullable({ type: 'string', description: '`carrier_rejected`, `carrier_unavailable` or the carrier’s code for undelivered / failed' }),
      timestamp: { type: 'string', format: 'date-time' },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
    },
  },
  Conversation: {
    type: 'object',
    properties: {
      line_id: { type: 'string', format: 'uuid' },
      phone_number: { type: 'string', description: 'The remote party, E.164' },
      line_phone_number: { type: 'string', description: "The line's own number" },
      message_count: { type: 'integer' },
      last_message_at: { type: 'string', format: 'date-time' },
      last_message_text: nullable({ type: 'string' }),
      last_message_direction: { type: 'string', enum: ['inbound', 'outbound'] },
    },
  },
  WebhookDelivery: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid', description: 'The x-service-delivery-id of this attempt' },
      event_id: { type: 'string', format: 'uuid' },
      line_id: { type: 'string', format: 'uuid' },
      call_id: nullable({ type: 'string', format: 'uuid' }),
      event_type: { type: 'string' },
      url: nullable({ type: 'string' }),
      status: { type: 'string', enum: ['success', 'failed', 'pending'] },
      http_status: nullable({ type: 'integer' }),
      error_message: nullable({ type: 'string' }),
      attempt_count: { type: 'integer', description: 'Which attempt of the event this row is (1-based)' },
      request_body: {},
      response_body: nullable({ type: 'string', description: 'First 1000 characters, credentials redacted' }),
      duration_ms: nullable({ type: 'integer' }),
      created_at: { type: 'string', format: 'date-time' },
    },
  },
  LineUpdateRequest: {
    type: 'object',
    additionalProperties: false,
    properties: lineWritableFields,
    description: 'Only the fields given change. null clears a nullable field. Switching to audio clears webhook_url unless it is in the same body; switching to hosted clears a language pin.',
  },
  LineCreateResponse: {
    type: 'object',
    required: ['line', 'webhook_secret'],
    properties: {
      line: { $ref: '#/components/schemas/Line' },
      webhook_secret: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'The signing secret, in this response only (not in idempotent replays). There is no endpoint to read it.' },
    },
  },
  SecretRotation: {
    type: 'object',
    required: ['webhook_secret', 'rotated_at', 'promoted_previous_next'],
    properties: {
      webhook_secret: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'The newly staged secret, returned once.' },
      rotated_at: { type: 'string', format: 'date-time' },
      promoted_previous_next: { type: 'boolean' },
    },
  },
  LineCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'mode'],
    properties: lineWritableFields,
  },
  Line: {
    type: 'object',
    required: ['id', 'name', 'mode', 'status', 'environment', 'language', 'created_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      phone_number: nullable({ type: 'string', description: 'E.164; null while the line is provisioning.' }),
      ...lineWritableFields,
      mode: { type: 'string', enum: [...LINE_MODES] },
      status: { type: 'string', enum: [...LINE_STATUSES] },
      environment: { type: 'string', enum: ['test', 'live'] },
      grace_ends_at: nullable({ type: 'string', format: 'date-time', description: 'End of the free 30-day grace of a user’s first line in this environment (no number fee until then).' }),
      created_at: { type: 'string', format: 'date-time' },
    },
  },
};

export const ref = (name: keyof typeof componentSchemas & string) => ({ $ref: `#/components/schemas/${name}` });

export const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } });

/** The deepest offset any list serves (the keys list's 100000 from the client's history, for every list): deeper pages are a scan, not a read. */
export const MAX_OFFSET = 100_000;

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
