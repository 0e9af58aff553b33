import { CALL_STATUSES, END_CAUSES } from '../../src/domain/calls/rules';
import { ANSWERED_BY } from '../../src/adapters/carrier/callbacks';
import { CONSENT_TYPES } from '../../src/domain/compliance/consent';
import { SCOPES } from '../../src/domain/keys/scopes';
import { LANGUAGES, LINE_MODES, LINE_STATUSES } from '../../src/domain/lines/rules';
import { NUMBER_CRITERIA, NUMBER_SOURCES, NUMBER_TYPES } from '../../src/domain/lines/numberChoice';
import { MESSAGE_STATUSES } from '../../src/domain/messages/rules';
import { TRANSACTION_TYPES } from '../../src/domain/billing/ledger';
import {
  agentKeyWritable,
  dateTime,
  grant,
  lineWritableFields,
  nullable,
  recordingSettingsFields,
  REDACTION_SETTINGS,
  redactionFields,
  uuid,
} from './fields';
import { TIERS } from '../../src/domain/keys/tiers';
import { CALLING_DAYS } from '../../src/domain/callingHours/rules';
import { EVENT_TYPES } from '../../src/domain/webhooks/events';
import { CALL_OBJECT_KINDS, COPY_FAILURE_REASONS, RECORDING_STORAGE_STATES } from '../../src/domain/recordings/rules';

/**
 * The records the API returns, as JSON Schema (OpenAPI 3.1). Each lists as `required` every
 * field its serializer always writes, so the served document says what a client can rely on
 * (the schema-fuzzing test checks every response it provokes against these).
 */
const nullableDateTime = nullable(dateTime);
const nullableUuid = nullable(uuid);
const nullableString = { type: ['string', 'null'] };
const nullableInteger = { type: ['integer', 'null'] };
const environment = { type: 'string', enum: ['test', 'live'] };
const e164 = { type: 'string', description: 'E.164' };

/** An object schema whose every listed property is required. */
export function record(properties: Record<string, object>, description?: string) {
  return { type: 'object', required: Object.keys(properties), properties, ...(description ? { description } : {}) };
}

const agentKeyRecord = {
  id: uuid,
  key_prefix: { type: 'string' },
  environment,
  ...agentKeyWritable,
  permissions: { type: 'string', enum: [...TIERS], description: 'Permission tier; `legacy_full` marks a key made before tiers.' },
  monthly_spend_cents: { type: 'integer', minimum: 0 },
  created_at: dateTime,
  revoked_at: nullableDateTime,
  last_used_at: nullableDateTime,
  rotated_from: nullableUuid,
  created_by_service_key_id: nullableUuid,
};

const usageRow = {
  calls: { type: 'integer', minimum: 0 },
  minutes: { type: 'number', minimum: 0, description: 'Billed minutes, two decimals' },
  sms_inbound: { type: 'integer', minimum: 0 },
  sms_outbound: { type: 'integer', minimum: 0 },
  cost_credits: { type: 'integer', description: 'Legacy name of cost_cents' },
  cost_cents: { type: 'integer' },
};

const deliveryCounts = {
  total: { type: 'integer', minimum: 0 },
  success: { type: 'integer', minimum: 0 },
  failed: { type: 'integer', minimum: 0 },
};

export const recordSchemas: Record<string, object> = {
  Line: record({
    id: uuid,
    phone_number: nullable({ type: 'string', description: 'E.164; null while the line is provisioning.' }),
    ...lineWritableFields,
    mode: { type: 'string', enum: [...LINE_MODES] },
    language: { type: 'string', enum: [...LANGUAGES] },
    country: {
      type: 'string',
      example: 'US',
      description: 'ISO 3166-1 alpha-2 country of the number (as asked, or of the imported number).',
    },
    number_type: { type: 'string', enum: [...NUMBER_TYPES] },
    area_code: nullable({ type: 'string', example: '415', description: 'The area code asked for; null when none was.' }),
    number_source: {
      type: 'string',
      enum: [...NUMBER_SOURCES],
      description: '`purchased` for this line, or `imported` from the carrier account (kept there when the line is released).',
    },
    status: { type: 'string', enum: [...LINE_STATUSES] },
    provisioning_error: nullable({
      type: 'object',
      example: null,
      required: ['code', 'field', 'message', 'provider', 'provider_code'],
      description:
        'Why a line was released without ever getting its number, when that was decided after the creating request had answered (a slow carrier): ' +
        '`number_unavailable` (nothing matched; `field` names the criterion), `carrier_error` (the carrier refused otherwise; `provider` and ' +
        '`provider_code` name it, as the 502 of `POST /api/v1/lines` does) or `provisioning_failed` (the carrier stayed unreachable). Null otherwise.',
      properties: {
        code: { type: 'string', enum: ['number_unavailable', 'carrier_error', 'provisioning_failed'] },
        field: { type: ['string', 'null'], enum: [...NUMBER_CRITERIA, null] },
        message: { type: 'string' },
        provider: {
          type: ['string', 'null'],
          enum: ['twilio', 'telnyx', 'simulator', null],
          description: 'For `carrier_error`: who refused.',
        },
        provider_code: {
          type: ['string', 'null'],
          description: 'For `carrier_error`: the provider’s own code (Twilio’s `21631`, …), when it gave one.',
        },
      },
    }),
    environment,
    grace_ends_at: nullable({
      ...dateTime,
      description: 'End of the free 30-day grace of a user’s first line in this environment (no number fee until then).',
    }),
    created_at: dateTime,
  }),
  LineCreateResponse: {
    type: 'object',
    required: ['line'],
    properties: {
      line: { $ref: '#/components/schemas/Line' },
      webhook_secret: {
        type: 'string',
        pattern: '^[0-9a-f]{64}$',
        description:
          'The signing secret, in this response only (idempotent replays answer `{line}` alone). There is no endpoint to read it.',
      },
    },
  },
  SecretRotation: {
    type: 'object',
    required: ['rotated_at', 'promoted_previous_next'],
    properties: {
      webhook_secret: {
        type: 'string',
        pattern: '^[0-9a-f]{64}$',
        description: 'The newly staged secret, returned once (not in idempotent replays).',
      },
      rotated_at: dateTime,
      promoted_previous_next: { type: 'boolean' },
    },
  },
  AgentKey: {
    type: 'object',
    required: Object.keys(agentKeyRecord),
    properties: {
      ...agentKeyRecord,
      plaintext_key: { type: 'string', description: 'Only in the first response to a mint or rotate; never in replays or reads.' },
    },
  },
  RegularKey: {
    type: 'object',
    description:
      'A key of the workspace as /api/v1/auth/keys mints and lists it: the agent-key record plus the scopes it holds and the key that minted it.',
    required: [...Object.keys(agentKeyRecord), 'scopes', 'parent_key_id'],
    properties: {
      ...agentKeyRecord,
      scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
      parent_key_id: { ...nullableUuid, description: 'The key that minted this one; null for a key an operator made.' },
      plaintext_key: { type: 'string', description: 'Only in the first response to a mint; never in replays or reads.' },
    },
  },
  ScopedKey: record({
    id: uuid,
    name: { type: 'string' },
    key_prefix: { type: 'string' },
    environment,
    grant,
    parent_key_id: nullableUuid,
    created_at: dateTime,
    revoked_at: nullableDateTime,
    last_used_at: nullableDateTime,
  }),
  Transaction: record({
    id: uuid,
    type: {
      type: 'string',
      enum: [...TRANSACTION_TYPES],
      description:
        '`card_refund` (negative): the card processor refunded an automatic recharge; `card_refund_failure` (positive): that refund ' +
        'did not reach the card; `card_dispute` (negative): the cardholder’s bank took an automatic recharge back (chargeback), ' +
        'which also turns auto-recharge off; `card_dispute_reversal` (positive): the chargeback was won. reference_id is the ' +
        'processor’s refund or dispute id.',
    },
    amount_credits: { type: 'integer', description: 'Legacy name of amount_cents' },
    amount_cents: { type: 'integer', description: 'US cents; positive credits, negative debits' },
    balance_after_credits: { type: 'integer' },
    balance_after_cents: { type: 'integer' },
    description: { type: 'string' },
    reference_id: nullableString,
    reference_type: nullableString,
    created_at: dateTime,
  }),
  Message: record({
    id: uuid,
    line_id: uuid,
    direction: { type: 'string', enum: ['inbound', 'outbound'] },
    from: e164,
    to: e164,
    text: { type: 'string' },
    status: { type: 'string', enum: [...MESSAGE_STATUSES] },
    segments: { type: 'integer', minimum: 0, description: 'GSM-7 / UCS-2 segments the text is sent as' },
    charge_cents: nullable({ type: 'integer', description: 'Set once billed; 0 for inbound and keyword replies' }),
    error_code: nullable({
      type: 'string',
      description: '`carrier_rejected`, `carrier_unavailable` or the carrier’s code for undelivered / failed',
    }),
    timestamp: dateTime,
    created_at: dateTime,
    updated_at: dateTime,
  }),
  LegacySms: record({
    id: uuid,
    line_id: uuid,
    from_number: e164,
    to_number: e164,
    message: { type: 'string' },
    status: { type: 'string', enum: [...MESSAGE_STATUSES] },
    created_at: dateTime,
  }),
  Conversation: record({
    line_id: uuid,
    phone_number: { type: 'string', description: 'The remote party, E.164' },
    line_phone_number: nullable({ type: 'string', description: "The line's own number" }),
    message_count: { type: 'integer', minimum: 1 },
    last_message_at: dateTime,
    last_message_text: { type: 'string' },
    last_message_direction: { type: 'string', enum: ['inbound', 'outbound'] },
  }),
  WebhookDelivery: record({
    id: { ...uuid, description: 'The x-service-delivery-id of this attempt' },
    event_id: uuid,
    line_id: uuid,
    call_id: nullableUuid,
    event_type: { type: 'string', enum: EVENT_TYPES },
    url: nullableString,
    status: { type: 'string', enum: ['success', 'failed', 'pending'] },
    http_status: nullableInteger,
    error_message: nullableString,
    attempt_count: { type: 'integer', minimum: 1, description: 'Which attempt of the event this row is (1-based)' },
    request_body: { description: 'The JSON body that was signed and sent' },
    response_body: nullable({ type: 'string', description: 'First 1000 characters, credentials redacted' }),
    duration_ms: nullableInteger,
    created_at: dateTime,
  }),
  TestDelivery: record({
    id: { ...nullableUuid, description: 'null while the attempt has not been logged yet (202)' },
    event_id: uuid,
    status: { type: 'string', enum: ['success', 'failed', 'pending'] },
    http_status: nullableInteger,
    duration_ms: nullableInteger,
    response_body: nullableString,
    error_message: nullableString,
  }),
  WebhookStats: record({
    ...deliveryCounts,
    success_rate: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: 'Share of finished attempts that succeeded; 0 before any finished',
    },
    by_event_type: { type: 'array', items: record({ event_type: { type: 'string', enum: EVENT_TYPES }, ...deliveryCounts }) },
    by_hour: { type: 'array', description: 'The last 24 hours, UTC', items: record({ hour: dateTime, ...deliveryCounts }) },
    since: { ...dateTime, description: 'Start of the window the counts cover (the last 7 days)' },
  }),
  Call: record({
    id: uuid,
    line_id: uuid,
    direction: { type: 'string', enum: ['inbound', 'outbound'] },
    from_number: e164,
    to_number: e164,
    status: { type: 'string', enum: [...CALL_STATUSES] },
    end_cause: { type: ['string', 'null'], enum: [...END_CAUSES, null] },
    duration_sec: nullable({ type: 'integer', minimum: 0 }),
    charge_cents: nullable({ type: 'integer', minimum: 0 }),
    started_at: nullableDateTime,
    ended_at: nullableDateTime,
    recording_url: nullableString,
    answered_by: {
      type: ['string', 'null'],
      enum: [...ANSWERED_BY, null],
      description: 'Who answered, for a call placed with `machine_detection: detect`; null otherwise',
    },
    transferred_to: nullable({ ...e164, description: 'The number the call was transferred to (its destination answered)' }),
    transcript: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        required: ['role', 'text', 'timestamp'],
        properties: {
          role: { type: 'string', enum: ['user', 'assistant'] },
          text: { type: 'string', description: 'What was said (heard, for an interrupted reply); the digits of a key press' },
          timestamp: dateTime,
          interrupted: {
            type: 'boolean',
            enum: [true],
            description: 'Present on a reply the caller talked over: `text` is the part they heard',
          },
          kind: {
            type: 'string',
            enum: ['dtmf', 'tool'],
            description:
              '`dtmf` on the agent’s key presses (`POST /calls/{id}/press`); `tool` on a tool the model called (`text` is its name)',
          },
          tool: { $ref: '#/components/schemas/ToolCall' },
          redactions: {
            type: 'array',
            minItems: 1,
            description:
              'Present when personal data was redacted from `text` (or a string of its `tool`) before it was stored (the settings’ `recordings.redaction`): each marker’s kind and place, in Unicode code points. What was there is not kept',
            items: {
              type: 'object',
              required: ['kind', 'start', 'length'],
              properties: {
                kind: {
                  type: 'string',
                  description: 'A built-in kind (`card_number`, `us_ssn`, `email`, `phone_number`) or a custom rule’s name',
                },
                start: { type: 'integer', minimum: 0, description: 'Where the marker `[REDACTED:<kind>]` starts in `text`' },
                length: { type: 'integer', minimum: 1, description: 'The marker’s length' },
                field: {
                  type: 'string',
                  description:
                    'Absent for `text`; else the path of the string in the entry’s `tool` the marker is in (`tool.arguments.<key>`, `tool.result`, `tool.error`)',
                },
              },
            },
          },
        },
      },
    },
    system_prompt: nullableString,
    begin_message: nullableString,
    topic: nullableString,
    max_duration_sec: nullableInteger,
    metadata: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'The `metadata` the call was placed with (`{}` when none); echoed in every event of the call',
    },
    tools: {
      type: 'array',
      items: { $ref: '#/components/schemas/Tool' },
      description:
        'The tools the call’s model may call: the line’s when the call began, or those the call was placed with (`[]` when none)',
    },
    created_at: dateTime,
  }),
  RecordingStorage: record(
    {
      state: {
        type: 'string',
        enum: [...RECORDING_STORAGE_STATES],
        description:
          '`none`: nothing to store (no recording, no transcript yet); `pending`: being copied; `retrying`: an attempt failed and the copy is ' +
          'retried until the store takes it (`last_failure` says why); `failed`: refused for good (the carrier has no such recording, or the ' +
          'store refused the request), tried again within the week; `stored`: everything is stored and verified; `deleted`: deleted by the retention',
      },
      objects: {
        type: 'array',
        description: 'The objects the store holds, each verified (size and SHA-256 read back)',
        items: record({
          kind: { type: 'string', enum: [...CALL_OBJECT_KINDS] },
          size_bytes: { type: 'integer', minimum: 0 },
          stored_at: dateTime,
        }),
      },
      attempts: { type: 'integer', minimum: 0, description: 'Failed attempts since the copy began failing; 0 when it is not' },
      failing_since: { ...nullableDateTime, description: 'When the copy began failing; null when it is not' },
      last_failure: nullable(
        record({
          kind: { type: 'string', enum: [...CALL_OBJECT_KINDS], description: 'The object whose copy failed' },
          reason: {
            type: 'string',
            enum: [...COPY_FAILURE_REASONS],
            description:
              'A class, never the store’s or carrier’s words: `store_unavailable`, `credentials_refused` (the store refused them), ' +
              '`checksum_mismatch`, `carrier_unavailable` (retried); `carrier_refused`, `store_refused` (final); `error`',
          },
          at: dateTime,
        }),
      ),
      deleted_at: { ...nullableDateTime, description: 'When the retention deleted the call’s objects (`deleted`)' },
    },
    'Where the copy of the call’s recording, transcript and (if chosen) events into the operator’s store stands',
  ),
  ToolCall: record({
    id: { type: 'string', description: 'The model’s id of the call' },
    name: { type: 'string', description: 'The tool’s name (a built-in’s type)' },
    arguments: { type: 'object', description: 'The arguments the model gave' },
    result: {
      type: 'string',
      description: 'What the model was given back: the endpoint’s answer, or the built-in’s outcome, as JSON text',
    },
    error: nullable({ type: 'string', description: 'Why the tool failed (the model was told), or null' }),
  }),
  SpeakResult: record({
    call_id: uuid,
    spoke: { type: 'boolean', description: 'The whole text was played' },
    interrupted: { type: 'boolean' },
    partial_response_text: nullable({ type: 'string', description: 'What the caller heard before the interruption' }),
    interruption_reason: { type: ['string', 'null'], enum: ['caller_interrupted_control', 'call_ended', null] },
    timed_out: { type: 'boolean', description: 'No answer within the timeout (false when the call ended first)' },
    call_ended: { type: 'boolean', description: 'The call ended while speaking or waiting' },
    response_text: nullableString,
    response_timestamp: nullable({ type: 'integer', description: 'Epoch milliseconds of the caller’s answer' }),
  }),
  WaitResult: record({
    call_id: uuid,
    timed_out: { type: 'boolean', description: 'No sentence within the timeout (false when the call ended first)' },
    call_ended: { type: 'boolean', description: 'The call ended while waiting' },
    response_text: nullableString,
    response_timestamp: nullableInteger,
  }),
  InboundCallWait: record({
    call: {
      oneOf: [{ $ref: '#/components/schemas/Call' }, { type: 'null' }],
      description: 'The inbound call taken by this wait; null when none came in time',
    },
    timed_out: { type: 'boolean', description: 'No call came within timeout_seconds' },
  }),
  PressResult: record({ call_id: uuid, pressed: { type: 'boolean' }, digits: { type: 'string' } }),
  TransferResult: record({
    call_id: uuid,
    to_number: e164,
    transferred: { type: 'boolean', description: 'The destination answered and is connected to the caller' },
    failure_reason: {
      type: ['string', 'null'],
      enum: ['not_answered', 'refused', 'call_ended', null],
      description:
        '`not_answered` (busy, no answer, failed), `call_ended`, or `refused` (refused without a provider’s answer to name; a carrier’s refusal is 502 `carrier_error`). Null when transferred.',
    },
  }),
  Consent: record({
    id: uuid,
    phone_number: e164,
    line_id: uuid,
    consent_type: { type: 'string', enum: [...CONSENT_TYPES] },
    source: { type: 'string' },
    status: { type: 'string', enum: ['active', 'revoked'] },
    granted_at: dateTime,
    revoked_at: nullableDateTime,
  }),
  Disclosure: record({
    id: uuid,
    message: { type: 'string' },
    audio_url: nullableString,
    language: { type: 'string', enum: LANGUAGES.filter((l) => l !== 'multi') },
    jurisdiction: { type: 'string' },
    is_default: { type: 'boolean' },
    created_at: dateTime,
  }),
  LegalHold: record({
    id: uuid,
    call_id: { ...nullableUuid, description: 'The call held, or null for a hold on a number' },
    phone_number: { ...nullableString, description: 'The number held (every call from or to it), or null for a hold on a call' },
    reason: { type: 'string' },
    active: { type: 'boolean', description: 'False once released' },
    created_at: dateTime,
    released_at: nullableDateTime,
  }),
  ComplianceEvent: record({
    id: uuid,
    line_id: nullableUuid,
    call_id: nullableUuid,
    phone_number: nullableString,
    event_type: { type: 'string', example: 'consent_granted' },
    actor_key_id: nullableUuid,
    metadata: { type: ['object', 'null'] },
    created_at: dateTime,
  }),
  AuditEvent: record({
    type: { type: 'string', enum: ['call', 'sms', 'compliance_event', 'billing_transaction'] },
    id: uuid,
    created_at: dateTime,
    createdAt: { ...dateTime, description: 'The spec’s name of created_at; both are sent' },
    data: { type: 'object' },
  }),
  Balance: record({
    credits: { type: 'integer', description: 'Legacy name of cents' },
    cents: { type: 'integer', description: 'The balance in US cents' },
    currency: { type: 'string', enum: ['USD'] },
    held_cents: { type: 'integer', minimum: 0, description: 'Reserved by calls and messages in flight' },
    available_cents: { type: 'integer' },
  }),
  Settings: record({
    default_webhook_url: nullable({ type: 'string', description: 'Receives webhook events of lines without a webhook_url' }),
    auto_recharge_enabled: { type: 'boolean' },
    auto_recharge_threshold_cents: { type: 'integer', minimum: 0 },
    auto_recharge_amount_cents: { type: 'integer', minimum: 0 },
    calling_window: nullable({
      type: 'object',
      description: 'This environment’s own calling window (callee-local), narrowing the legal one; null: the legal window alone',
      required: ['start', 'end', 'days'],
      properties: {
        start: { type: 'string', example: '09:00' },
        end: { type: 'string', example: '20:00' },
        days: { type: 'array', items: { type: 'string', enum: [...CALLING_DAYS] } },
      },
    }),
    recordings: record(
      {
        ...recordingSettingsFields,
        redaction: record(
          { ...redactionFields, custom: { ...redactionFields.custom, items: record(redactionFields.custom.items.properties) } },
          REDACTION_SETTINGS.description,
        ),
      },
      'What is kept of each call in the operator’s recordings store, besides its recording and transcript',
    ),
  }),
  UsageDay: record({ date: { type: 'string', format: 'date' }, ...usageRow }),
  UsageMonth: record({ month: { type: 'string', pattern: '^\\d{4}-\\d{2}$' }, ...usageRow }),
  Voice: record({
    slug: { type: 'string' },
    name: { type: 'string' },
    gender: { type: 'string', enum: ['female', 'male', 'neutral'] },
    accent: { type: 'string' },
    description: { type: 'string' },
    languages: { type: 'array', items: { type: 'string', enum: [...LANGUAGES] } },
  }),
};
