import { getCountries } from 'libphonenumber-js/max';
import {
  ACCEPTED_MODES,
  AGENT_LINE_REFUSED_FIELD_MESSAGE,
  AGENT_LINE_REFUSED_FIELDS,
  LANGUAGES,
  REQUIRED_FIELD_BY_MODE,
} from '../../src/domain/lines/rules';
import { CUSTOM_RULE_CONFIRM_TIMEOUT_MS, CUSTOM_RULE_TIMEOUT_MS } from '../../src/domain/recordings/redaction';
import { RETENTION_DAYS } from '../../src/domain/recordings/rules';
import { VOICES } from '../../src/domain/voices/catalog';
import { LANGUAGE_PINNING_REFUSAL } from '../lineErrors';
import {
  DEFAULT_COUNTRY,
  DEFAULT_NUMBER_TYPE,
  NANP_AREA_CODE,
  NANP_AREA_CODE_MESSAGE,
  NANP_COUNTRIES,
  NUMBER_TYPES,
} from '../../src/domain/lines/numberChoice';
import { AGENT_LABEL_PATTERN } from '../../src/domain/keys/agentKeys';
import { SCOPES } from '../../src/domain/keys/scopes';
import {
  CUSTOM_PATTERN_MAX_LENGTH,
  CUSTOM_RULE_NAME_PATTERN,
  CUSTOM_RULES_MAX,
  REDACTION_KINDS,
} from '../../src/domain/recordings/redactionSettings';
import { SETTABLE_TIERS } from '../../src/domain/keys/tiers';
import { BUILT_IN_TOOLS, TOOL_LIMITS, TOOL_TYPES } from '../../src/domain/tools/declarations';

/** Field schemas shared by request bodies (api/openapi/schemas.ts) and the records the API returns (api/openapi/records.ts). */
export const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, 'null'] });

export const uuid = { type: 'string', format: 'uuid' };
export const dateTime = { type: 'string', format: 'date-time' };
export const url = { type: 'string', maxLength: 2048, format: 'uri' };

/**
 * Not blank and free of U+0000: at least one character that JavaScript's `trim()` keeps (its
 * whitespace set written out, so a generator in another language reads the same class as `\\s` here).
 */
export const NOT_BLANK_PATTERN =
  '^[^\\u0000]*[^\\u0000\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff][^\\u0000]*$';

/** One to four hex digits of an IPv6 address. */
const H16 = '[0-9A-Fa-f]{1,4}';
/** A decimal IPv4 part without a leading zero (URL parsing reads `09` as a bad octal number). */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const DOTTED_DECIMAL = `${OCTET}(?:\\.${OCTET}){3}`;
/** An IPv6 address in RFC 4291's forms: full, compressed, and with a dotted IPv4 tail (`::ffff:192.0.2.1`). */
const IPV6 = [
  `(?:${H16}:){7}${H16}`,
  `(?:${H16}:){1,7}:`,
  `(?:${H16}:){1,6}:${H16}`,
  ...[2, 3, 4, 5].map((tail) => `(?:${H16}:){1,${7 - tail}}(?::${H16}){1,${tail}}`),
  `${H16}:(?::${H16}){1,6}`,
  `:(?:(?::${H16}){1,7}|:)`,
  `(?:${H16}:){6}${DOTTED_DECIMAL}`,
  `::(?:${H16}:){0,5}${DOTTED_DECIMAL}`,
  `(?:${H16}:){1,4}:(?:${H16}:)?${DOTTED_DECIMAL}`,
].join('|');
/**
 * The other ways URL parsing writes an IPv4 address, which the SSRF check reads as it does (src/platform/net/egress.ts): four
 * parts each decimal, octal (`0177`) or hex (`0x7f`) up to 255, or one number (`2130706433`, `0x7f000001`,
 * `017700000001`; in decimal below 4,200,000,000). The two- and three-part forms (`127.1`) are not taken.
 */
const IPV4_PART = '(?:0[xX][0-9A-Fa-f]{0,2}|0(?:[0-3][0-7]{2}|[0-7]{0,2})|25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]?)';
const IPV4_NUMBER = '(?:0[xX][0-9A-Fa-f]{0,8}|0(?:[0-3][0-7]{10}|[0-7]{0,10})|[1-9][0-9]{0,8}|[1-3][0-9]{9}|4[01][0-9]{8})';
/** 0 to 65535, leading zeros allowed (as URL parsing reads a port). */
const PORT = '0*(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
/**
 * A host URL parsing takes: a name whose last label starts with a letter (one ending in a number would be read as an
 * IPv4 address), an IPv4 address in four parts or as one number, or a bracketed IPv6 one.
 */
const HOST = [
  `(?:[A-Za-z0-9_-]+\\.)*[A-Za-z][A-Za-z0-9_-]*\\.?`,
  `${IPV4_PART}(?:\\.${IPV4_PART}){3}`,
  IPV4_NUMBER,
  `\\[(?:${IPV6})\\]`,
].join('|');

/**
 * A URL with one of these schemes (any case, as `new URL()` reads it) and a host: `hasScheme` in
 * src/domain/lines/rules.ts. The pattern is narrower than what URL parsing takes (no empty labels, no percent-encoded
 * host, at most one `@`, a path only after `/`, `?` or `#`), never wider: a value the document allows is one the rules
 * accept, which schemathesis checks (`positive_data_acceptance`; a fresh seed found `Wss://:`, an empty host, when any
 * character after `//` passed). `[0-9]`, not `\d`: a generator in another language reads `\d` as any Unicode digit.
 * One gap is left: a malformed IDN label (`xn--` with bad punycode) passes here and the rule refuses it (the same 422).
 */
function urlWithScheme(schemes: string[]): Record<string, unknown> {
  const anyCase = (scheme: string) => [...scheme].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('');
  const userInfo = '(?:[^/?#@\\\\\\s]*@)?';
  return {
    ...url,
    pattern: `^(?:${schemes.map(anyCase).join('|')}):\\/\\/${userInfo}(?:${HOST})(?::(?:${PORT})?)?(?:[/?#]|$)`,
  };
}
export const httpUrl = urlWithScheme(['http', 'https']);
export const wsUrl = urlWithScheme(['ws', 'wss']);

/** A phone number in a request: E.164 (`E164_PATTERN`, src/platform/phone.ts), the `PhoneNumber` component. */
export const phoneNumber = (description?: string) => ({
  $ref: '#/components/schemas/PhoneNumber',
  ...(description ? { description } : {}),
});

/** A slug of the voice catalog, or empty (clears), with spaces around it (trimmed): what `normalizeVoice` and `lineFieldProblems` accept. */
export const VOICE_PATTERN = `^ *(?:${VOICES.map((voice) => voice.slug).join('|')})? *$`;

/**
 * One tool the model of a hosted call may call (src/domain/tools/rules.ts): a `function` is the
 * customer's endpoint, the others are built-ins acting on the call under the API's rules.
 */
const TOOL_EXAMPLE = {
  type: 'function',
  name: 'lookup_order',
  description: 'Looks up an order by its id: call it when the caller asks where their order is.',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  url: 'https://agent.example.com/tools/lookup-order',
  timeout_ms: 5000,
};

export const toolDeclaration = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  example: TOOL_EXAMPLE,
  properties: {
    type: {
      type: 'string',
      enum: [...TOOL_TYPES],
      description:
        '`function`: Switchboard POSTs the arguments to `url`, signed like a webhook, and gives the model the answer. ' +
        '`transfer_call` (to one of `destinations`), `hang_up`, `send_sms` (to the caller, from the line) and `press_digits` act on the call as the matching API operations do, with the same refusals.',
    },
    name: {
      type: 'string',
      pattern: TOOL_LIMITS.namePattern.source,
      description: 'A function’s name as the model calls it (letters, digits, `_`, `-`; not a built-in’s name). Functions only.',
    },
    description: {
      type: 'string',
      minLength: 1,
      maxLength: TOOL_LIMITS.maxDescriptionChars,
      description: 'When the model should call it; required for a function, replaces a built-in’s own wording.',
    },
    parameters: {
      type: 'object',
      required: ['type'],
      properties: { type: { const: 'object' } },
      description: `The JSON Schema (2020-12) of the arguments, an object schema of at most ${TOOL_LIMITS.maxParametersBytes} bytes. Functions only.`,
    },
    url: {
      ...httpUrl,
      description:
        'The endpoint POSTed to; must lead to a public address (https for live lines), checked again at every call. Functions only.',
    },
    timeout_ms: {
      type: 'integer',
      minimum: TOOL_LIMITS.minTimeoutMs,
      maximum: TOOL_LIMITS.maxTimeoutMs,
      description: `How long the endpoint may take (default ${TOOL_LIMITS.defaultTimeoutMs}); past it the model is told the tool timed out. Functions only.`,
    },
    destinations: {
      type: 'array',
      minItems: 1,
      maxItems: TOOL_LIMITS.maxDestinations,
      uniqueItems: true,
      items: phoneNumber(),
      description: 'The numbers `transfer_call` may transfer to; the model picks one. Required for `transfer_call`, only there.',
    },
  },
  allOf: [
    {
      if: { properties: { type: { const: 'function' } } },
      then: {
        required: ['name', 'description', 'parameters', 'url'],
        properties: { destinations: false },
      },
      else: { properties: { name: false, parameters: false, url: false, timeout_ms: false } },
    },
    {
      if: { properties: { type: { const: 'transfer_call' } } },
      then: { required: ['destinations'] },
      else: { properties: { destinations: false } },
    },
  ],
};

/** A line's or a call's tools. */
export const TOOLS_DESCRIPTION =
  `Tools the model may call during a hosted conversation (hosted lines and conversation calls; at most ${TOOL_LIMITS.maxTools}). ` +
  `Built-ins: ${BUILT_IN_TOOLS.map((type) => `\`${type}\``).join(', ')}. Every call and result is in the transcript (\`kind: tool\`) and a \`tool_called\` event.`;
export const tools = nullable({
  type: 'array',
  maxItems: TOOL_LIMITS.maxTools,
  items: { $ref: '#/components/schemas/Tool' },
  description: TOOLS_DESCRIPTION,
  example: [TOOL_EXAMPLE, { type: 'transfer_call', destinations: ['+14155550123'] }],
});

export const lineWritableFields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  display_name: nullable({ type: 'string', maxLength: 200 }),
  mode: {
    type: 'string',
    enum: [...ACCEPTED_MODES],
    description:
      '`text` is accepted as an alias of `webhook` and stored as `webhook`. `agent`: your agent drives each call through live control ' +
      '(speak, wait, press, transfer, hang up) and needs neither `webhook_url` nor `system_prompt`; caller sentences are kept for its next ' +
      'wait (the latest 20, oldest first), `webhook_url` (optional) receives lifecycle events only, and `begin_message` is spoken at the answer. ' +
      'Priced as webhook mode.',
  },
  system_prompt: nullable({ type: 'string', maxLength: 20000 }),
  begin_message: nullable({ type: 'string', maxLength: 2000 }),
  voice: nullable({
    type: 'string',
    maxLength: 64,
    pattern: VOICE_PATTERN,
    description: 'A voice slug from GET /api/v1/voices; spaces around it are trimmed, empty clears it.',
  }),
  context_limit: nullable({ type: 'integer', minimum: 1, maximum: 500 }),
  webhook_url: nullable({
    ...httpUrl,
    description: 'http(s) URL receiving webhook events; required in webhook mode. Must lead to a public address (https for live lines).',
  }),
  audio_handler_url: nullable({
    ...wsUrl,
    description: 'ws(s) URL of the audio relay; required in audio mode. Must lead to a public address (wss for live lines).',
  }),
  status_callback_url: nullable({
    ...httpUrl,
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
  tools,
};

/**
 * Rule 1 of a line as a create body can state it: each mode's required field (REQUIRED_FIELD_BY_MODE)
 * present and not blank; `text` is `webhook`; an agent line sets none of the fields that would hand its
 * calls to another driver (AGENT_LINE_REFUSED_FIELDS, null allowed). Updates depend on the line's current
 * mode, so only the server checks them.
 */
export const modeRequirements = {
  allOf: [
    ...(['hosted', 'webhook', 'audio'] as const).map((mode) => {
      const field = REQUIRED_FIELD_BY_MODE[mode]!;
      return {
        if: { required: ['mode'], properties: { mode: { enum: mode === 'webhook' ? ['webhook', 'text'] : [mode] } } },
        then: { required: [field], properties: { [field]: { type: 'string', pattern: NOT_BLANK_PATTERN } } },
      };
    }),
    {
      if: { required: ['mode'], properties: { mode: { const: 'agent' } } },
      then: {
        properties: Object.fromEntries(
          AGENT_LINE_REFUSED_FIELDS.map((field) => [field, { type: 'null', 'x-type-message': AGENT_LINE_REFUSED_FIELD_MESSAGE }]),
        ),
      },
    },
    // Spec rule 2: a hosted line takes no `language`, refused with its own code (`x-refusal`, read by the validator).
    {
      if: { required: ['mode'], properties: { mode: { const: 'hosted' } } },
      then: { not: { required: ['language'] }, 'x-refusal': LANGUAGE_PINNING_REFUSAL },
    },
  ],
};

/**
 * An area code in North America (the country asked for, or the default when none is) has NANP's form: three
 * digits, the first 2-9 (the first check of `areaCodeProblem`). Elsewhere the form is `area_code`'s own pattern;
 * whether the country's numbering plan has it needs libphonenumber's metadata, which only the server holds.
 */
export const nanpAreaCodeForm = {
  if: {
    required: ['area_code'],
    anyOf: [
      ...(NANP_COUNTRIES.includes(DEFAULT_COUNTRY) ? [{ not: { required: ['country'] } }] : []),
      { required: ['country'], properties: { country: { enum: [...NANP_COUNTRIES] } } },
    ],
  },
  then: { properties: { area_code: { pattern: NANP_AREA_CODE.source, 'x-pattern-message': NANP_AREA_CODE_MESSAGE } } },
};

/** `phone_number` imports a number: not with the criteria of a purchase. */
export const importExcludesCriteria = {
  dependentSchemas: {
    phone_number: { properties: { area_code: false, country: false, number_type: false } },
  },
};

/** How a new line's number is chosen (create only; docs/decisions/lines-and-numbers.md "Choosing numbers"). */
export const lineNumberFields = {
  country: {
    type: 'string',
    enum: getCountries(),
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
  phone_number: phoneNumber(
    'Import instead of buy: an E.164 number the carrier account already owns, which the operator granted to this workspace (CLI `number grant`). ' +
      'Its calls and messages are routed to the line; releasing the line only detaches it (the account keeps it). A number that is not importable is 422 `number_unavailable`, whatever the reason.',
  ),
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
  permissions: {
    type: 'string',
    enum: [...SETTABLE_TIERS],
    description: 'Permission tier. Keys made before tiers read `legacy_full`, which cannot be set.',
  },
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

/** `recordings.redaction` (issue 32 item 5; src/domain/recordings/redactionSettings.ts, docs/decisions/recordings.md "Redaction"). */
export const redactionFields = {
  kinds: {
    type: 'array',
    uniqueItems: true,
    items: { type: 'string', enum: [...REDACTION_KINDS] },
    description:
      'The personal data replaced by `[REDACTED:<kind>]` in every transcript entry before it is stored: `card_number` (13-19 digits, Luhn-checked), ' +
      '`us_ssn` (NNN-NN-NNNN, numbers the SSA never issues excluded), `email`, `phone_number` (national numbers read as the line’s country). None by default',
    example: ['card_number', 'us_ssn'],
  },
  custom: {
    type: 'array',
    maxItems: CUSTOM_RULES_MAX,
    description:
      'Rules of your own: text matching `pattern` becomes `[REDACTED:<name>]`. A pattern that does not compile (JavaScript, `u` flag), is longer than ' +
      `${CUSTOM_PATTERN_MAX_LENGTH} characters, uses a backreference, repeats a group holding an unbounded quantifier (\`(a+)+\`) or matches empty text is refused 422 naming the field. ` +
      `A rule that runs out of time on an entry (${CUSTOM_RULE_TIMEOUT_MS} ms, then ${CUSTOM_RULE_CONFIRM_TIMEOUT_MS} ms on a second run) redacts the whole entry`,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'pattern'],
      properties: {
        name: {
          type: 'string',
          pattern: CUSTOM_RULE_NAME_PATTERN,
          description: 'The kind its redactions are recorded under; not a built-in kind',
        },
        pattern: { type: 'string', minLength: 1, maxLength: CUSTOM_PATTERN_MAX_LENGTH, example: 'ORD-\\d{6}' },
      },
    },
  },
  webhooks: {
    type: 'boolean',
    description:
      'Also redact webhook payloads: the caller’s words in `message` (`text` and `context`, so the agent hears them redacted) and `interrupted`’s `partial_response_text`. Off by default',
  },
};
export const REDACTION_SETTINGS = {
  type: 'object',
  additionalProperties: false,
  properties: redactionFields,
  description:
    'What is redacted from transcripts before they are stored (and, with `webhooks`, from webhook payloads). Replaced whole by a PATCH: the fields it omits take their defaults',
};
/**
 * The recordings settings of a workspace's environment (issue 32; src/domain/recordings/rules.ts): one object, so
 * later settings join it. A PATCH changes the fields it names and keeps the others.
 */
export const recordingSettingsFields = {
  store_events: {
    type: 'boolean',
    description:
      'Also keep each call’s events (the webhook events it raised, as sent) as JSON beside its recording and transcript; off by default',
  },
  retention_days: nullable({
    type: 'integer',
    minimum: RETENTION_DAYS.min,
    maximum: RETENTION_DAYS.max,
    description:
      'Days each call’s stored recording, transcript and events are kept (from when they were stored); a daily schedule deletes older ones, ' +
      'with the call’s `transcript` (then null) and what was said in its `message`, `interrupted` and `tool_called` events and their delivery attempts, ' +
      'except calls on legal hold (`/api/v1/legal-holds`). Null (the default): kept for ever. Under 1 or not a whole number is refused 422 naming the field',
  }),
  delete_at_carrier: {
    type: 'boolean',
    description:
      'Delete each recording at the carrier once the recordings store holds a verified copy of it (never before); afterwards it is served from the store only. Off by default: the carrier keeps its copy for its own retention',
  },
  redaction: REDACTION_SETTINGS,
};
export const RECORDINGS_SETTINGS = {
  type: 'object',
  additionalProperties: false,
  properties: recordingSettingsFields,
  description: 'What is kept of each call in the operator’s recordings store, besides its recording and transcript',
};
