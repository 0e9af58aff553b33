import {
  ANSWERING_MACHINE_ACTIONS,
  CAMPAIGN_STATUSES,
  CONTACT_OUTCOMES,
  CONTACT_STATUSES,
  PAUSED_REASONS,
  RETRYABLE_OUTCOMES,
  SKIP_REASONS,
} from '../../src/domain/campaigns/rules';
import { dateTime, nullable, uuid } from './fields';
import { record } from './records';

/** The campaign records (src/domain/campaigns/records.ts) as JSON Schema. */

const count = { type: 'integer', minimum: 0 };
const stringMap = { type: 'object', additionalProperties: { type: 'string' } };
/** One of `values`, or null. */
const nullableEnum = (values: readonly string[], description: string) => ({
  type: ['string', 'null'],
  enum: [...values, null],
  description,
});

export const campaignRecordSchemas: Record<string, object> = {
  Campaign: record({
    id: uuid,
    name: nullable({ type: 'string' }),
    status: { type: 'string', enum: [...CAMPAIGN_STATUSES] },
    paused_reason: nullableEnum(
      PAUSED_REASONS,
      'Set when the campaign paused itself (a refused hold, no usable pool line); null for an operator’s pause',
    ),
    line_ids: { type: 'array', items: uuid },
    topic: nullable({ type: 'string' }),
    begin_message: nullable({ type: 'string' }),
    max_duration_seconds: nullable({ type: 'integer' }),
    machine_detection: { type: 'string', enum: ['detect', 'disabled'] },
    answering_machine: {
      type: ['object', 'null'],
      required: ['action', 'voicemail_message'],
      properties: { action: { type: 'string', enum: [...ANSWERING_MACHINE_ACTIONS] }, voicemail_message: { type: ['string', 'null'] } },
    },
    start_at: dateTime,
    max_concurrency: { type: 'integer', minimum: 1 },
    calls_per_minute: { type: 'integer', minimum: 1 },
    retry: record({
      max_attempts: { type: 'integer', minimum: 1 },
      backoff_seconds: count,
      on: { type: 'array', items: { type: 'string', enum: [...RETRYABLE_OUTCOMES] } },
    }),
    progress: record(
      Object.fromEntries(['total', ...CONTACT_STATUSES, ...CONTACT_OUTCOMES].map((key) => [key, count])),
      'Contacts by status, and those `done` by outcome',
    ),
    created_at: dateTime,
    updated_at: dateTime,
    ended_at: nullable(dateTime),
  }),
  ContactList: record({
    id: uuid,
    rows: { type: 'integer', minimum: 1, description: 'Its contacts: the data rows after the header (blank lines not counted)' },
    columns: {
      type: 'array',
      items: { type: 'string' },
      description: 'The header as written: `phone_number`, `metadata.<key>` columns and variables',
    },
    created_at: dateTime,
    expires_at: { ...dateTime, description: 'Until when a campaign’s creation may name it (`contact_list_id`); then it is deleted' },
  }),
  CampaignContactResult: record({
    id: uuid,
    row: { type: 'integer', minimum: 1, description: 'The contact’s position in the list (a CSV’s data row)' },
    to_number: { type: 'string' },
    status: { type: 'string', enum: [...CONTACT_STATUSES] },
    outcome: nullableEnum(CONTACT_OUTCOMES, 'Set once `done`: the last attempt’s outcome, or `skipped` / `cancelled`'),
    skip_reason: nullableEnum(SKIP_REASONS, 'Why a `skipped` contact was not called'),
    attempts: count,
    next_attempt_at: nullable({ ...dateTime, description: 'When a pending contact is due (its retry, or the wait for a free line)' }),
    duration_sec: count,
    charge_cents: count,
    call_ids: { type: 'array', items: uuid, description: 'The calls of its attempts, oldest first (GET /api/v1/calls/{id})' },
    variables: stringMap,
    metadata: stringMap,
    updated_at: dateTime,
  }),
};
