import crypto from 'node:crypto';
import { placeHold } from '../billing/holds';
import { smsChargeCents, smsSegments, zoneOf } from '../billing/pricing';
import { recordComplianceEvent } from '../compliance/events';
import { outboundPreflight, refuseOutbound, type OutboundActor } from '../outbound/preflight';
import type { LoggedUseCaseDeps, WithinRecording } from '../useCaseDeps';
import { dispatchMessage, sendMessageInput } from './dispatch';
import { insertMessage, type MessageRow } from './store';

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
 * The message is stored `queued` with its compliance record and answered; `sendMessageWorkflow` sends it.
 */
export async function sendMessage(
  deps: Omit<LoggedUseCaseDeps, 'config'> & { config: Pick<LoggedUseCaseDeps['config'], 'taskQueue'> },
  actor: OutboundActor,
  request: SendMessageRequest,
  withinRecording?: WithinRecording<MessageRow>,
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
  const row = await deps.db.transaction(async (trx) => {
    const hold = await placeHold(trx, {
      tenant: actor,
      keyId: actor.key.id,
      reference: `sms:${messageId}`,
      amountCents: chargeCents,
      at: now,
    });
    if (!hold.ok) refuseOutbound({ code: 'hold_refused', hold: hold.refusal });
    const { row: stored } = await insertMessage(trx, {
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
    });
    await recordComplianceEvent(trx, {
      workspaceId: actor.workspaceId,
      environment: actor.environment,
      eventType: 'sms_sent',
      actorKeyId: actor.key.id,
      lineId: line.id,
      phoneNumber: to,
      metadata: {
        message_id: messageId,
        authorization_basis: authorization.basis,
        ...(authorization.basis === 'explicit_consent'
          ? { consent_record_id: authorization.consentId }
          : { inbound_message_id: authorization.inboundMessageId }),
      },
      at: now,
    });
    await withinRecording?.(trx, stored);
    return stored;
  });

  // Accepted: the message is recorded and held. Its send workflow starts now, in the background where the process
  // dispatches so (the API), or before returning; what neither confirms, the dispatch sweep starts (./dispatch.ts).
  const input = sendMessageInput(row, chargeCents);
  if (deps.messageHandOver) deps.messageHandOver.hand(input);
  else await dispatchMessage(deps, input);
  deps.log.info({ message_id: messageId, line_id: line.id, segments, basis: authorization.basis }, 'message queued');
  return row;
}
