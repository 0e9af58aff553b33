import { ACCEPTED_MODES, LANGUAGES } from '../../src/domain/lines/rules';
import { DEFAULT_COUNTRY, DEFAULT_NUMBER_TYPE, NUMBER_TYPES } from '../../src/domain/lines/numberChoice';
import { AGENT_LABEL_PATTERN } from '../../src/domain/keys/agentKeys';
import { SCOPES } from '../../src/domain/keys/scopes';
import { TIERS } from '../../src/domain/keys/tiers';

/** Field schemas shared by request bodies (api/openapi/schemas.ts) and the records the API returns (api/openapi/records.ts). */
export const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, 'null'] });

export const uuid = { type: 'string', format: 'uuid' };
export const dateTime = { type: 'string', format: 'date-time' };
export const url = { type: 'string', maxLength: 2048, format: 'uri' };

export const lineWritableFields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  display_name: nullable({ type: 'string', maxLength: 200 }),
  mode: { type: 'string', enum: [...ACCEPTED_MODES], description: '`text` is accepted as an alias of `webhook` and stored as `webhook`.' },
  system_prompt: nullable({ type: 'string', maxLength: 20000 }),
  begin_message: nullable({ type: 'string', maxLength: 2000 }),
  voice: nullable({ type: 'string', maxLength: 64, description: 'A voice slug from GET /api/v1/voices; trimmed, empty clears it.' }),
  context_limit: nullable({ type: 'integer', minimum: 1, maximum: 500 }),
  webhook_url: nullable({
    ...url,
    description: 'http(s) URL receiving webhook events; required in webhook mode. Must lead to a public address (https for live lines).',
  }),
  audio_handler_url: nullable({
    ...url,
    description: 'ws(s) URL of the audio relay; required in audio mode. Must lead to a public address (wss for live lines).',
  }),
  status_callback_url: nullable({
    ...url,
    description: 'http(s) URL receiving call lifecycle callbacks. Must lead to a public address (https for live lines).',
  }),
  recording_enabled: { type: 'boolean' },
  compliance_enabled: { type: 'boolean' },
  language: {
    type: 'string',
    enum: [...LANGUAGES],
    description:
      'Speech recognition language (default `multi`). Setting it on a hosted line, `multi` included, is refused with 400 hosted_mode_language_pinning_unsupported (hosted lines detect the language).',
  },
  endpointing_ms: nullable({ type: 'integer', minimum: 100, maximum: 2000 }),
};

/** How a new line's number is chosen (create only; docs/decisions.md "Choosing numbers"). */
export const lineNumberFields = {
  country: {
    type: 'string',
    pattern: '^[A-Z]{2}$',
    example: DEFAULT_COUNTRY,
    // No `default` keyword: generated clients would make the field required.
    description: `ISO 3166-1 alpha-2 country of the number to buy (default \`${DEFAULT_COUNTRY}\`). Not with \`phone_number\`.`,
  },
  number_type: {
    type: 'string',
    enum: [...NUMBER_TYPES],
    description: `Kind of number to buy (default \`${DEFAULT_NUMBER_TYPE}\`): \`local\` (geographic), \`toll_free\`, or \`mobile\` where the carrier sells them in that country. Not with \`phone_number\`.`,
  },
  area_code: {
    type: 'string',
    pattern: '^[0-9]{1,6}$',
    example: '415',
    description:
      'Area code of the number to buy: the three-digit NPA in North America (`415`; a toll-free prefix such as `800` for `toll_free`), the national destination code elsewhere (`20` for London). ' +
      'Checked against the country’s numbering plan (422 `validation_error`); a valid one with no numbers left is 422 `number_unavailable`. Not with `phone_number`.',
  },
  phone_number: {
    type: 'string',
    pattern: '^\\+[1-9][0-9]{6,14}$',
    description:
      'Import instead of buy: an E.164 number the carrier account already owns, which the operator granted to this workspace (CLI `number grant`). ' +
      'Its calls and messages are routed to the line; releasing the line only detaches it (the account keeps it). A number that is not importable is 422 `number_unavailable`, whatever the reason.',
  },
};

export const keyName = { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' };
export const agentKeyWritable = {
  name: keyName,
  agent_label: nullable({
    type: 'string',
    pattern: AGENT_LABEL_PATTERN,
    description: 'Stable agent identity: lowercase, 1-128 characters, starting with a letter or digit.',
  }),
  line_id: nullable({ type: 'string', format: 'uuid', description: 'Binds the key to one line; null makes it account-wide.' }),
  permissions: { type: 'string', enum: [...TIERS], description: 'Permission tier; `legacy_full` is refused (422).' },
  monthly_cap_cents: nullable({ type: 'integer', minimum: 1, maximum: 100_000_000_000 }),
};

export const grant = {
  type: 'object',
  additionalProperties: false,
  required: ['scopes'],
  properties: {
    scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...SCOPES] } },
    resources: {
      type: 'object',
      additionalProperties: false,
      properties: {
        numbers: { type: 'array', uniqueItems: true, maxItems: 1000, items: { type: 'string', format: 'uuid', description: 'Line id' } },
      },
    },
    spendLimit: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['amountCents'],
      properties: {
        amountCents: { type: 'integer', minimum: 0, maximum: 100_000_000_000 },
        resetPeriod: { type: ['string', 'null'], enum: ['monthly', null] },
      },
    }),
  },
};
