import type { Knex } from 'knex';
import { whereNumberMatches, type NumberMatch } from '../../platform/db/numberMatch';
import { preparedStatement } from '../../platform/db/prepared';
import { releaseHold, type HoldStatementRow, type PlaceHoldInput } from '../billing/holds';
import { ACTIVE_CONSENT_SQL } from '../compliance/consent';
import { OPTED_OUT_SQL } from '../compliance/optOuts';
import {
  COMPLETION_BINDINGS,
  COMPLETION_FENCE_SQL,
  completionValues,
  completionWriteSql,
  IdempotencyLeaseLostError,
  type IdempotencyCompletion,
} from '../idempotency/store';
import { LINE_BY_ID_SQL, type LineRow, type Tenant } from '../lines/store';
import type { TenantRow } from '../workspaces/tenantRow';
import { advancesStatus, isWindowOpen, MESSAGE_STATUSES, type MessageStatus } from './rules';

/** Messages and conversations in Postgres: every read and write of SMS goes through here. */

export interface MessageRow extends TenantRow {
  origin: 'customer' | 'keyword_reply' | 'carrier';
  remote_number: string;
  from_number: string;
  to_number: string;
  body: string;
  segments: number;
  status: MessageStatus;
  error_code: string | null;
  charge_cents: string | null;
  carrier_message_id: string | null;
  authorization_basis: string | null;
  consent_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** The batch whose send workflow sends this outbound message, once claimed (migration 0060). */
  dispatch_batch_id: string | null;
}

export type NewMessage = Omit<MessageRow, 'remote_number' | 'updated_at' | 'charge_cents' | 'error_code' | 'dispatch_batch_id'> & {
  charge_cents?: number | null;
};

/**
 * The message record on the wire. `POST /messages` answers with it unwrapped (the client's
 * `{id, line_id, to, text, status, created_at}` plus more), and conversation pages list it
 * (`direction`, `text`, `timestamp`): one shape for both.
 */
export function toMessageRecord(row: MessageRow) {
  return {
    id: row.id,
    line_id: row.line_id,
    direction: row.direction,
    from: row.from_number,
    to: row.to_number,
    text: row.body,
    status: row.status,
    segments: row.segments,
    charge_cents: row.charge_cents === null ? null : Number(row.charge_cents),
    error_code: row.error_code,
    timestamp: row.created_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The older `POST /lines/{id}/sms` answer: `{sms: {id, from_number, to_number, message, status, created_at}}`. */
export function toLegacySmsRecord(row: MessageRow) {
  return {
    id: row.id,
    line_id: row.line_id,
    from_number: row.from_number,
    to_number: row.to_number,
    message: row.body,
    status: row.status,
    created_at: row.created_at.toISOString(),
  };
}

export function messagesOf(db: Knex | Knex.Transaction, tenant: Tenant) {
  return db<MessageRow>('messages').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}

/** The tenant's messages from or to a number that matches, newest first. */
export async function messagesWithNumber(db: Knex, tenant: Tenant, number: NumberMatch, limit: number): Promise<MessageRow[]> {
  const query = messagesOf(db, tenant);
  whereNumberMatches(query, ['from_number', 'to_number'], number);
  return query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
}

export async function findMessage(db: Knex | Knex.Transaction, messageId: string): Promise<MessageRow | undefined> {
  return db<MessageRow>('messages').where({ id: messageId }).first();
}

/** A stored message counted into its conversation: the INSERT's head (rows follow) and its ON CONFLICT. */
const COUNT_INTO_CONVERSATION = `insert into conversations (workspace_id, environment, line_id, remote_number, message_count, last_message_id, last_message_at)`;
const COUNTED_IN_CONVERSATION = `on conflict (line_id, remote_number) do update set
         message_count = conversations.message_count + 1,
         -- a message stored late with an older timestamp does not become the "last" one
         last_message_id = case when (excluded.last_message_at, excluded.last_message_id) > (conversations.last_message_at, conversations.last_message_id)
                                then excluded.last_message_id else conversations.last_message_id end,
         last_message_at = greatest(conversations.last_message_at, excluded.last_message_at)`;

/**
 * Stores a message and counts it into its conversation, in one transaction. A message whose id
 * or carrier_message_id is already stored (a retried activity, a repeated carrier event) is
 * returned as stored, with `inserted: false`, and counted once.
 */
export async function insertMessage(db: Knex | Knex.Transaction, message: NewMessage): Promise<{ row: MessageRow; inserted: boolean }> {
  const remote = message.direction === 'inbound' ? message.from_number : message.to_number;
  const write = async (trx: Knex.Transaction) => {
    const [row] = await trx<MessageRow>('messages')
      .insert({
        ...message,
        remote_number: remote,
        charge_cents: message.charge_cents === undefined ? null : String(message.charge_cents),
        updated_at: message.created_at,
      })
      .onConflict()
      .ignore()
      .returning('*');
    if (!row) {
      const existing = await trx<MessageRow>('messages')
        .where({ id: message.id })
        .modify((q) => {
          if (message.carrier_message_id) q.orWhere({ carrier_message_id: message.carrier_message_id });
        })
        .first();
      if (!existing) throw new Error(`message ${message.id} conflicted but is not stored`);
      return { row: existing, inserted: false };
    }
    await trx.raw(`${COUNT_INTO_CONVERSATION} values (?, ?, ?, ?, 1, ?, ?) ${COUNTED_IN_CONVERSATION}`, [
      row.workspace_id,
      row.environment,
      row.line_id,
      remote,
      row.id,
      row.created_at,
    ]);
    return { row, inserted: true };
  };
  return db.isTransaction ? write(db as Knex.Transaction) : db.transaction(write);
}

export type SendAuthorization = { basis: 'inbound_window'; inboundMessageId: string } | { basis: 'explicit_consent'; consentId: string };

/** What an outbound SMS's destination allows: whether the number opted out, and why the SMS may be sent (null: it may not). */
export interface SmsDestination {
  optedOut: boolean;
  authorization: SendAuthorization | null;
}

/**
 * The line and its destination's reads in one statement, prepared once per connection: the tenant's line
 * (../lines/store.ts), whether `to` opted out (../compliance/optOuts.ts), the last inbound SMS from `to` to the line
 * (`messages_last_inbound`) and the active `explicit_outbound` consent for the pair (../compliance/consent.ts). No row
 * when the tenant has no such line.
 */
const smsLineAndDestinationStatement = preparedStatement(
  'sms_line_destination',
  `select line.*, ${OPTED_OUT_SQL} as sms_opted_out, inbound.id as sms_inbound_id, inbound.created_at as sms_inbound_at,
          (select consent.id from (${ACTIVE_CONSENT_SQL}) consent) as sms_consent_id
     from (${LINE_BY_ID_SQL}) line
     left join lateral (
       select id, created_at from messages
        where workspace_id = :workspace and environment = :environment and line_id = :line and remote_number = :to and direction = 'inbound'
        order by created_at desc limit 1
     ) inbound on true`,
  ['workspace', 'environment', 'line', 'to', 'consent_type'],
);

/**
 * The tenant's line `lineId` (undefined when it has none), whether `to` opted out, and why an outbound SMS from the
 * line to `to` may be sent at `now`, or null when it may not (`conversation_window_expired`): an inbound SMS from `to`
 * to the line less than 24 hours ago, else an active `explicit_outbound` consent for the pair. `implied_inbound` and
 * revoked consents do not count. One round trip; the caller refuses in its own order (../outbound/preflight.ts).
 */
export async function smsLineAndDestination(
  db: Knex,
  tenant: Tenant,
  lineId: string,
  to: string,
  now: Date,
): Promise<{ line: LineRow | undefined } & SmsDestination> {
  const [found] = await smsLineAndDestinationStatement<
    LineRow & { sms_opted_out: boolean; sms_inbound_id: string | null; sms_inbound_at: Date | null; sms_consent_id: string | null }
  >(db, [tenant.workspaceId, tenant.environment, lineId, to, 'explicit_outbound']);
  if (!found) return { line: undefined, optedOut: false, authorization: null };
  const { sms_opted_out: optedOut, sms_inbound_id: inboundId, sms_inbound_at: inboundAt, sms_consent_id: consentId, ...line } = found;
  const authorization: SendAuthorization | null =
    inboundId && isWindowOpen(inboundAt, now)
      ? { basis: 'inbound_window', inboundMessageId: inboundId }
      : consentId
        ? { basis: 'explicit_consent', consentId }
        : null;
  return { line, optedOut, authorization };
}

/** An outbound message to record with its hold, its `sms_sent` compliance event and its idempotent answer. */
export interface OutboundRecording {
  message: NewMessage & { direction: 'outbound' };
  /** The hold that pays for it, in the message's workspace and environment at its time (../billing/holds.ts `placeHoldBy` runs the statement). */
  hold: PlaceHoldInput;
  /** The `sms_sent` event's metadata. */
  eventMetadata: Record<string, unknown>;
  /** The request's idempotent answer, stored with the message (absent without an Idempotency-Key). */
  answer?: IdempotencyCompletion;
}

const RECORD_OUTBOUND_BINDINGS = [
  'workspace',
  'environment',
  'hold_key',
  'reference',
  'amount',
  'at',
  'caps_checked',
  'id',
  'line',
  'actor_key',
  'origin',
  'from_number',
  'to_number',
  'body',
  'segments',
  'status',
  'authorization_basis',
  'consent_id',
  'event_metadata',
  ...COMPLETION_BINDINGS,
];

/**
 * An outbound message's whole write in one statement, prepared once per connection: atomic without BEGIN/COMMIT. The
 * idempotency record is locked first (its lease must hold, or nothing is written); then the hold is placed by the
 * ledger's own function (migration 0019); only when it is `held` are the message, its conversation's count, its
 * `sms_sent` event and the idempotent answer written. A refused hold writes nothing.
 */
const recordOutboundStatement = preparedStatement(
  'messages_record_outbound',
  `with ${COMPLETION_FENCE_SQL},
     hold as materialized (
       -- in the target list, under the fence: the function runs only when the statement may write
       select ledger_place_hold(cast(:workspace as uuid), cast(:environment as text), cast(:hold_key as uuid), cast(:reference as text),
                                cast(:amount as bigint), cast(:at as timestamptz), cast(:caps_checked as boolean)) as placed
         from idem_fence where ok
     ), held as materialized (
       select (placed).outcome, (placed).hold_id, (placed).hold_cents, (placed).available_cents from hold
     ), message as (
       insert into messages (id, workspace_id, environment, line_id, actor_key_id, direction, origin, from_number, to_number, remote_number,
                             body, segments, status, carrier_message_id, authorization_basis, consent_id, charge_cents, created_at, updated_at)
       -- typed here: a parameter only in a SELECT's list would be taken for text
       select cast(:id as uuid), cast(:workspace as uuid), cast(:environment as text), cast(:line as uuid), cast(:actor_key as uuid),
              'outbound', cast(:origin as text), cast(:from_number as text), cast(:to_number as text), cast(:to_number as text),
              cast(:body as text), cast(:segments as integer), cast(:status as text), null, cast(:authorization_basis as text),
              cast(:consent_id as uuid), null, cast(:at as timestamptz), cast(:at as timestamptz)
         from held where outcome = 'held'
       returning *
     ), conversation as (
       ${COUNT_INTO_CONVERSATION}
       select workspace_id, environment, line_id, remote_number, 1, id, created_at from message
       ${COUNTED_IN_CONVERSATION}
     ), event as (
       insert into compliance_events (workspace_id, environment, event_type, actor_key_id, line_id, phone_number, metadata, created_at)
       select workspace_id, environment, 'sms_sent', actor_key_id, line_id, to_number, cast(:event_metadata as jsonb), created_at from message
     ), ${completionWriteSql('exists (select 1 from message)')}
   select fence.ok as fenced, held.outcome, held.hold_id, held.hold_cents, held.available_cents, message.*
     from idem_fence fence left join held on true left join message on true`,
  RECORD_OUTBOUND_BINDINGS,
);

/** What the statement answered: the hold's outcome (../billing/holds.ts) and, when held, the stored message. */
export type OutboundRecorded = HoldStatementRow & { message: MessageRow | null };

/**
 * Records an outbound message as `recordOutboundStatement` does, with `capsChecked` for the hold (`placeHoldBy`).
 * Throws `IdempotencyLeaseLostError` when the request's idempotency record was taken over (nothing written).
 */
export async function recordOutboundMessage(db: Knex, input: OutboundRecording, capsChecked: boolean): Promise<OutboundRecorded> {
  const { message, hold } = input;
  const values: Record<string, unknown> = {
    workspace: message.workspace_id,
    environment: message.environment,
    hold_key: hold.keyId,
    reference: hold.reference,
    amount: hold.amountCents,
    at: message.created_at,
    caps_checked: capsChecked,
    id: message.id,
    line: message.line_id,
    actor_key: message.actor_key_id,
    origin: message.origin,
    from_number: message.from_number,
    to_number: message.to_number,
    body: message.body,
    segments: message.segments,
    status: message.status,
    authorization_basis: message.authorization_basis,
    consent_id: message.consent_id,
    event_metadata: JSON.stringify(input.eventMetadata),
  };
  const answer = completionValues(input.answer);
  COMPLETION_BINDINGS.forEach((name, i) => (values[name] = answer[i]));
  const [row] = await recordOutboundStatement<HoldStatementRow & { fenced: boolean } & Partial<MessageRow>>(
    db,
    RECORD_OUTBOUND_BINDINGS.map((name) => values[name]),
  );
  const { fenced, outcome, hold_id, hold_cents, available_cents, ...stored } = row;
  if (!fenced) throw new IdempotencyLeaseLostError(input.answer!.lease.recordId);
  return { outcome, hold_id, hold_cents, available_cents, message: stored.id ? (stored as MessageRow) : null };
}

/**
 * Moves a message's status forward (receipts can repeat or come out of order: a step back is
 * ignored). Returns the row when it changed.
 */
export async function advanceMessageStatus(
  db: Knex,
  messageId: string,
  status: MessageStatus,
  extra: { errorCode?: string | null; at: Date },
): Promise<MessageRow | undefined> {
  const behind = MESSAGE_STATUSES.filter((current) => advancesStatus(current, status));
  const [row] = await db<MessageRow>('messages')
    .where({ id: messageId })
    .whereIn('status', behind)
    .update({ status, updated_at: extra.at, ...(extra.errorCode !== undefined ? { error_code: extra.errorCode } : {}) })
    .returning('*');
  return row;
}

/** The carrier's id of a message it accepted (receipts name it). */
export async function setCarrierMessageId(db: Knex, messageId: string, carrierMessageId: string): Promise<void> {
  await db('messages').where({ id: messageId }).update({ carrier_message_id: carrierMessageId });
}

/** Switchboard's id of the message the carrier knows as `carrierMessageId` (receipts that name only the carrier's id). */
export async function findMessageIdByCarrierId(db: Knex, carrierMessageId: string): Promise<string | undefined> {
  const row = await db<MessageRow>('messages').where({ carrier_message_id: carrierMessageId }).select('id').first();
  return row?.id;
}

/** What the message cost, once the carrier reported it sent on. */
export async function setMessageCharge(db: Knex, messageId: string, chargeCents: number): Promise<void> {
  await db('messages').where({ id: messageId }).update({ charge_cents: chargeCents });
}

/**
 * Fails an outbound message that never got a send workflow (its start failed, or the recovery
 * sweeper found none): its hold is released and it is `failed` with `not_sent`.
 */
export async function failUnsentMessage(db: Knex, input: { messageId: string; tenant: Tenant; at: Date }): Promise<void> {
  await releaseHold(db, { tenant: input.tenant, reference: `sms:${input.messageId}`, at: input.at });
  await advanceMessageStatus(db, input.messageId, 'failed', { errorCode: 'not_sent', at: input.at });
}

/**
 * Ids of outbound messages still queued, whose send workflow's start was never confirmed, created in the window: the
 * recovery sweeper's candidates (src/domain/messages/recover.ts), oldest first.
 */
export async function queuedMessageIds(db: Knex, window: { createdBefore: Date; createdAfter: Date; limit: number }): Promise<string[]> {
  return undispatched(db, window).pluck('id');
}

/** An outbound message waiting for its send workflow, with the price held for it (zero with no hold). */
export type UndispatchedMessage = MessageRow & { held_cents: number };

/** Outbound messages queued in the window whose send workflow's start is not confirmed, oldest first, with their holds. */
export async function undispatchedMessages(
  db: Knex,
  window: { createdBefore: Date; createdAfter: Date; limit: number },
): Promise<UndispatchedMessage[]> {
  return withHeldCents(db, undispatched(db, window));
}

/** The messages `query` selects, each with the price held for it (zero with no hold). */
async function withHeldCents(db: Knex, query: Knex.QueryBuilder): Promise<UndispatchedMessage[]> {
  const rows: Array<MessageRow & { held_cents: string | null }> = await query
    .leftJoin('spend_holds as h', 'h.reference', db.raw(`'sms:' || messages.id::text`))
    .select('messages.*', 'h.amount_cents as held_cents');
  return rows.map((row) => ({ ...row, held_cents: Number(row.held_cents ?? 0) }));
}

function undispatched(db: Knex, window: { createdBefore: Date; createdAfter: Date; limit: number }) {
  // The shape of messages_undispatched_idx (migration 0059).
  return db('messages')
    .where({ 'messages.direction': 'outbound', 'messages.status': 'queued' })
    .whereNull('messages.dispatched_at')
    .andWhere('messages.created_at', '<', window.createdBefore)
    .andWhere('messages.created_at', '>', window.createdAfter)
    .orderBy('messages.created_at')
    .limit(window.limit);
}

/**
 * Claims outbound messages for one batch (its send workflow's id is derived from `batchId`): only those no batch has
 * claimed and no workflow was confirmed for. Returns the ids claimed; one statement for the batch.
 */
export async function claimMessagesForBatch(db: Knex, batchId: string, messageIds: readonly string[]): Promise<string[]> {
  if (messageIds.length === 0) return [];
  return db('messages')
    .whereIn('id', [...messageIds])
    .whereNull('dispatch_batch_id')
    .whereNull('dispatched_at')
    .update({ dispatch_batch_id: batchId })
    .returning('id')
    .then((rows: Array<{ id: string }>) => rows.map((row) => row.id));
}

/** Every message of a claimed batch whose start is not confirmed, with its hold (messages_dispatch_batch_idx). */
export async function unconfirmedBatchMessages(db: Knex, batchId: string): Promise<UndispatchedMessage[]> {
  return withHeldCents(
    db,
    db('messages').where({ 'messages.dispatch_batch_id': batchId }).whereNull('messages.dispatched_at').orderBy('messages.created_at'),
  );
}

/** Records that these messages' send workflows are started (one statement for a batch of them). */
export async function markMessagesDispatched(db: Knex, messageIds: readonly string[], at: Date): Promise<void> {
  if (messageIds.length === 0) return;
  await db('messages')
    .whereIn('id', [...messageIds])
    .whereNull('dispatched_at')
    .update({ dispatched_at: at });
}
