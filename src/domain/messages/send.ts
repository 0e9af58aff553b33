import crypto from 'node:crypto';
import { placeHoldBy } from '../billing/holds';
import { smsChargeCents, smsSegments, zoneOf } from '../billing/pricing';
import { outboundPreflight, refuseOutbound, type OutboundActor } from '../outbound/preflight';
import type { AnswerWithin, LoggedUseCaseDeps } from '../useCaseDeps';
import { dispatchMessage, sendMessageInput } from './dispatch';
import { recordOutboundMessage, type MessageRow, type NewMessage, type OutboundRecording } from './store';

export interface SendMessageRequest {
  lineId: string;
  /** The recipient and the text as given, each with the request field it came in (named in validation errors). */
  to: { value: string; field: string };
  text: { value: string; field: string };
}

/**
 * Sends an SMS from a line (spec "SMS and conversations"). Refuses (`OutboundRefusedError`) in a
 * fixed order, each check only after the previous passed: the outbound preflight (number, a blank
 * text, line, `number_opted_out`, `conversation_window_expired`), then the hold for its price.
 * The message is stored `queued` with its compliance record and answered; its batch's send workflow sends it (./dispatch.ts).
 * The hold, the message, its conversation's count, its compliance record and `answer` (the request's idempotent
 * answer) are one statement (./store.ts `recordOutboundMessage`): all of them commit, or none (a refused hold).
 */
export async function sendMessage(
  deps: Omit<LoggedUseCaseDeps, 'config'> & { config: Pick<LoggedUseCaseDeps['config'], 'taskQueue'> },
  actor: OutboundActor,
  request: SendMessageRequest,
  answer?: AnswerWithin<MessageRow>,
): Promise<MessageRow> {
  const text = request.text.value;
  const now = deps.now();
  const { to, line, authorization } = await outboundPreflight(deps.db, actor, {
    channel: 'sms',
    lineId: request.lineId,
    to: request.to,
    fieldProblems: text.trim() === '' ? [{ field: request.text.field, message: 'Must not be blank' }] : [],
    now,
  });

  const messageId = crypto.randomUUID();
  const segments = smsSegments(text);
  const chargeCents = smsChargeCents(zoneOf(to), text);
  const message: NewMessage & { direction: 'outbound' } = {
    id: messageId,
    workspace_id: actor.workspaceId,
    environment: actor.environment,
    line_id: line.id,
    actor_key_id: actor.key.id,
    direction: 'outbound',
    origin: 'customer',
    from_number: line.phone_number,
    to_number: to,
    body: text,
    segments,
    status: 'queued',
    carrier_message_id: null,
    authorization_basis: authorization.basis,
    consent_id: authorization.basis === 'explicit_consent' ? authorization.consentId : null,
    created_at: now,
  };
  // The row the statement stores, which the idempotent answer describes (the 201 body is made from the stored row).
  const recorded: MessageRow = {
    ...message,
    remote_number: to,
    error_code: null,
    charge_cents: null,
    updated_at: now,
    dispatch_batch_id: null,
  };
  const recording: OutboundRecording = {
    message,
    hold: { tenant: actor, keyId: actor.key.id, reference: `sms:${messageId}`, amountCents: chargeCents, at: now },
    eventMetadata: {
      message_id: messageId,
      authorization_basis: authorization.basis,
      ...(authorization.basis === 'explicit_consent'
        ? { consent_record_id: authorization.consentId }
        : { inbound_message_id: authorization.inboundMessageId }),
    },
    answer: answer?.completion(recorded),
  };
  const placed = await placeHoldBy(deps.db, recording.hold, (db, capsChecked) => recordOutboundMessage(db, recording, capsChecked));
  if (!placed.outcome.ok) refuseOutbound({ code: 'hold_refused', hold: placed.outcome.refusal });
  const row = placed.row.message;
  if (!row) throw new Error(`message ${messageId} held but not stored`);
  answer?.committed();

  // Accepted: the message is recorded and held. Its send workflow starts now, in the background where the process
  // dispatches so (the API), or before returning; what neither confirms, the dispatch sweep starts (./dispatch.ts).
  const input = sendMessageInput(row, chargeCents);
  if (deps.messageHandOver) deps.messageHandOver.hand(input);
  else await dispatchMessage(deps, input);
  deps.log.info({ message_id: messageId, line_id: line.id, segments, basis: authorization.basis }, 'message queued');
  return row;
}
