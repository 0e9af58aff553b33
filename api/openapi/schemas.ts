import { ACCEPTED_MODES, LANGUAGES, LINE_MODES, LINE_STATUSES } from '../../src/lines/rules';

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
  webhook_url: nullable({ ...url, description: 'http(s) URL receiving webhook events; required in webhook mode.' }),
  audio_handler_url: nullable({ ...url, description: 'ws(s) URL of the audio relay; required in audio mode.' }),
  status_callback_url: nullable({ ...url, description: 'http(s) URL receiving call lifecycle callbacks.' }),
  recording_enabled: { type: 'boolean' },
  compliance_enabled: { type: 'boolean' },
  language: {
    type: 'string',
    enum: [...LANGUAGES],
    description: 'Speech recognition language (default `multi`). Any value other than `multi` on a hosted line is refused with 400 hosted_mode_language_pinning_unsupported.',
  },
  endpointing_ms: nullable({ type: 'integer', minimum: 100, maximum: 2000 }),
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
      grace_ends_at: nullable({ type: 'string', format: 'date-time', description: 'End of the free 30-day grace of a first live line.' }),
      created_at: { type: 'string', format: 'date-time' },
    },
  },
};

export const ref = (name: keyof typeof componentSchemas & string) => ({ $ref: `#/components/schemas/${name}` });

export const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } });
