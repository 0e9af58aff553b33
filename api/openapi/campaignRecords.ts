import {
  ANSWERING_MACHINE_ACTIONS,
  CAMPAIGN_EVENT_TYPES,
  CAMPAIGN_STATUSES,
  CONTACT_OUTCOMES,
  CONTACT_STATUSES,
  PAUSED_REASONS,
  RESUMED_BY,
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

const progress = record(
  Object.fromEntries(['total', ...CONTACT_STATUSES, ...CONTACT_OUTCOMES].map((key) => [key, count])),
  'Contacts by status, and those `done` by outcome',
);

const contactResult = {
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
};

/** What every event body carries (spec "Delivery and signature"): its type, its id receivers dedupe on, the line whose secret signed it. */
const eventEnvelope = (events: readonly string[]) => ({
  event: { type: 'string', enum: [...events] },
  event_id: { ...uuid, description: 'The logical event, stable across retries: dedupe on it' },
  line_id: {
    ...uuid,
    description:
      'The campaign’s first pool line not released: its webhook_url (else the workspace default) received it, its secret signed it',
  },
  campaign_id: uuid,
  timestamp: { type: 'integer', description: 'When it happened, milliseconds since the epoch' },
});

/** `schema` with `optional` properties besides its required ones. */
const withOptional = (schema: ReturnType<typeof record>, optional: Record<string, object>) => ({
  ...schema,
  properties: { ...schema.properties, ...optional },
});

const CAMPAIGN_STATUS_EVENTS = CAMPAIGN_EVENT_TYPES.filter((type) => type !== 'campaign.contact_completed');

/** The bodies of the `campaign.*` webhook events (src/domain/campaigns/events.ts), for the document's `webhooks`. */
export const campaignEventSchemas: Record<string, object> = {
  CampaignStatusEvent: withOptional(
    record(
      {
        ...eventEnvelope(CAMPAIGN_STATUS_EVENTS),
        name: nullable({ type: 'string' }),
        status: { type: 'string', enum: [...CAMPAIGN_STATUSES] },
        paused_reason: nullableEnum(PAUSED_REASONS, 'With `campaign.paused`: why it paused itself; null for an operator’s pause'),
        sequence: {
          type: 'integer',
          minimum: 1,
          description: 'The campaign’s changes of status, counted: order a campaign’s events by it',
        },
        progress,
      },
      'A change of a campaign’s status. `campaign.resumed` also carries `resumed_by`.',
    ),
    {
      resumed_by: {
        type: 'string',
        enum: [...RESUMED_BY],
        description: 'With `campaign.resumed` only: an operator’s resume, or funds returning to a campaign that paused itself for them',
      },
    },
  ),
  CampaignContactCompletedEvent: record(
    { ...eventEnvelope(['campaign.contact_completed']), contact_id: uuid, ...contactResult },
    'A dialled contact is done (or was skipped at its dial): its result as `GET /api/v1/campaigns/{id}/results` shows it',
  ),
};

/** The document's `webhooks` (OpenAPI 3.1): what a campaign POSTs to its events' URL, answered 2xx. */
export const campaignWebhooks: Record<string, object> = Object.fromEntries(
  CAMPAIGN_EVENT_TYPES.map((type) => [
    type,
    {
      post: {
        summary: `The \`${type}\` event`,
        description: 'Signed as every event (`x-service-signature`); retried with backoff on a failure, the same `event_id` each time.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                $ref: `#/components/schemas/${type === 'campaign.contact_completed' ? 'CampaignContactCompletedEvent' : 'CampaignStatusEvent'}`,
              },
            },
          },
        },
        responses: { '200': { description: 'Received (any 2xx); anything else or no answer in 5 seconds is retried' } },
      },
    },
  ]),
);

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
    progress,
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
    skipped: {
      ...record({ invalid_number: count, duplicate_number: count }),
      description:
        'Rows a campaign created from the list records as skipped at once (its results’ `skip_reason`): numbers that are not phone numbers, ' +
        'and numbers repeating an earlier row’s',
    },
    created_at: dateTime,
    expires_at: { ...dateTime, description: 'Until when a campaign’s creation may name it (`contact_list_id`); then it is deleted' },
  }),
  CampaignContactResult: record({ id: uuid, ...contactResult }),
};
