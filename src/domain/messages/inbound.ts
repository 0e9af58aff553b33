import type { Knex } from 'knex';
import { SMS_INBOUND_CENTS, smsSegments } from '../billing/pricing';
import { recordComplianceEvent } from '../compliance/events';
import { optIn, optOut } from '../compliance/optOuts';
import { findActiveLineByNumber, type LineRow } from '../lines/store';
import { makeFirstAttempt, publishDepsOf, recordPublishedEvent } from '../webhooks/publish';
import { stableUuid } from '../../platform/stableId';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { withinCarrierReach, type CarrierReach } from '../carriers/reach';
import { eventDestination } from '../webhooks/destination';
import { EVENT_POLICIES } from '../webhooks/events';
import { isEventRecorded } from '../webhooks/record';
import { keywordOf, KEYWORD_REPLIES, type Keyword } from './rules';
import { dispatchMessage, sendMessageInput } from './dispatch';
import { findMessage, insertMessage, type MessageRow } from './store';

/**
 * An inbound SMS the carrier reported to our number `to` from `from` (already checked to be a
 * phone number). Undefined when no active line has the number, or only one of an environment
 * the reporting carrier does not serve (`reach`; the carrier then drops the message). Every step is idempotent, so a carrier retrying after a lost answer changes nothing
 * twice: the message is received (`receiveInboundMessage`), then the keyword reply's send
 * workflow and the event's delivery are (re)started, which Temporal starts once.
 */
export async function takeInboundMessage(
  deps: LoggedUseCaseDeps,
  event: { carrierMessageId: string; from: string; to: string | undefined; text: string; reach: CarrierReach },
): Promise<InboundMessageOutcome | undefined> {
  const line = event.to ? await findActiveLineByNumber(deps.db, event.to) : undefined;
  if (!line || !withinCarrierReach(deps.log, event.reach, line, { line_id: line.id, carrier_message_id: event.carrierMessageId }))
    return undefined;
  const { carrierMessageId, from, text } = event;
  const outcome = await receiveInboundMessage(deps.db, { line, carrierMessageId, from, text, at: deps.now() });
  const { reply } = outcome;
  if (reply && reply.status === 'queued') {
    await dispatchMessage(deps, sendMessageInput(reply, 0));
  }
  // The event's first attempt runs right after the commit, off the carrier's answer (a repeated
  // carrier event finds attempt 1 claimed and makes none); a crash before it settles is the sweeper's.
  if (outcome.eventId) {
    const eventId = outcome.eventId;
    makeFirstAttempt(publishDepsOf(deps), eventId).catch((err: unknown) =>
      deps.log.warn({ err, event_id: eventId }, 'first webhook attempt not settled; the sweeper takes it over'),
    );
  }
  deps.log.info({ message_id: outcome.message.id, line_id: line.id, keyword: outcome.keyword }, 'inbound message');
  return outcome;
}

export interface InboundMessageOutcome {
  message: MessageRow;
  keyword: Keyword | null;
  /** The automatic reply to send, if the keyword called for one. */
  reply: MessageRow | null;
  /** The `sms_received` event to deliver; null when the line has nowhere to deliver it. */
  eventId: string | null;
}

/**
 * An inbound SMS, end to end in one transaction: store it (which opens the 24-hour window), act
 * on a keyword (STOP-like: opt out; START-like: opt back in; HELP), queue the one confirmation
 * reply, and record the `sms_received` event. Every id is derived from the carrier's message id,
 * so a repeated carrier event changes nothing and returns what the first one did; the caller then
 * (re)starts the reply's send workflow and the event's delivery, which Temporal starts once.
 *
 * Inbound SMS do not create `implied_inbound` consent records: the window is computed from the
 * messages themselves, and `implied_inbound` would not open it anyway (docs/decisions/sms.md).
 */
export async function receiveInboundMessage(
  db: Knex,
  input: { line: LineRow; carrierMessageId: string; from: string; text: string; at: Date },
): Promise<InboundMessageOutcome> {
  const { line } = input;
  const tenant = { workspaceId: line.workspace_id, environment: line.environment };
  const messageId = stableUuid('sms-inbound', input.carrierMessageId);
  const replyId = stableUuid('sms-keyword-reply', messageId);
  const eventId = stableUuid('sms-received', messageId);
  const keyword = keywordOf(input.text);

  return db.transaction(async (trx) => {
    const { row: message, inserted } = await insertMessage(trx, {
      id: messageId,
      workspace_id: line.workspace_id,
      environment: line.environment,
      line_id: line.id,
      actor_key_id: null,
      direction: 'inbound',
      origin: 'carrier',
      from_number: input.from,
      to_number: line.phone_number!,
      body: input.text,
      segments: smsSegments(input.text),
      status: 'received',
      carrier_message_id: input.carrierMessageId,
      authorization_basis: null,
      consent_id: null,
      created_at: input.at,
    });
    if (!inserted) {
      const reply = (await findMessage(trx, replyId)) ?? null;
      return { message, keyword, reply, eventId: (await isEventRecorded(trx, eventId)) ? eventId : null };
    }

    // Inbound SMS are free (SMS_INBOUND_CENTS) but counted in the usage reports.
    await trx('usage_records').insert({
      workspace_id: line.workspace_id,
      environment: line.environment,
      line_id: line.id,
      key_id: null,
      kind: 'sms_inbound',
      seconds: null,
      cost_cents: SMS_INBOUND_CENTS,
      reference: `sms:${messageId}`,
      occurred_at: input.at,
    });

    // Keywords act once, and confirm once: a second STOP from an opted-out number gets no reply.
    let replyText: string | null = null;
    const change = { tenant, phoneNumber: input.from, source: 'sms_keyword' as const, lineId: line.id, actorKeyId: null, at: input.at };
    if (keyword === 'opt_out' && (await optOut(trx, change))) replyText = KEYWORD_REPLIES.opt_out;
    if (keyword === 'opt_in' && (await optIn(trx, change))) replyText = KEYWORD_REPLIES.opt_in;
    if (keyword === 'help') replyText = KEYWORD_REPLIES.help;

    let reply: MessageRow | null = null;
    if (replyText) {
      ({ row: reply } = await insertMessage(trx, {
        id: replyId,
        workspace_id: line.workspace_id,
        environment: line.environment,
        line_id: line.id,
        actor_key_id: null,
        direction: 'outbound',
        origin: 'keyword_reply',
        from_number: line.phone_number!,
        to_number: input.from,
        body: replyText,
        segments: smsSegments(replyText),
        status: 'queued',
        carrier_message_id: null,
        authorization_basis: 'keyword_reply',
        consent_id: null,
        charge_cents: 0,
        created_at: new Date(input.at.getTime() + 1),
      }));
      await recordComplianceEvent(trx, {
        workspaceId: line.workspace_id,
        environment: line.environment,
        eventType: 'sms_sent',
        actorKeyId: null,
        lineId: line.id,
        phoneNumber: input.from,
        metadata: {
          message_id: replyId,
          authorization_basis: 'keyword_reply',
          keyword: input.text.trim().toUpperCase(),
          in_reply_to: messageId,
        },
        at: input.at,
      });
    }

    // Delivered to the line's webhook_url (else the workspace default); a line with neither keeps
    // the message readable through the conversations API only.
    if (!(await eventDestination(trx, tenant, line, EVENT_POLICIES.sms_received.target))) return { message, keyword, reply, eventId: null };
    await recordPublishedEvent(trx, {
      id: eventId,
      ...tenant,
      lineId: line.id,
      type: 'sms_received',
      target: EVENT_POLICIES.sms_received.target,
      payload: {
        message_id: messageId,
        from_number: input.from,
        to_number: line.phone_number,
        text: input.text,
        keyword: keyword ? input.text.trim().toUpperCase() : null,
        keyword_action: keyword,
        timestamp: input.at.getTime(),
      },
      now: input.at,
    });
    return { message, keyword, reply, eventId };
  });
}
