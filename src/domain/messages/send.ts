import crypto from 'node:crypto';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { SendMessageInput } from '../../../workflows/definitions/messages';
import type { sendMessageWorkflow } from '../../../workflows/messages';
import { placeHold } from '../billing/holds';
import { smsChargeCents, smsSegments, zoneOf } from '../billing/pricing';
import { recordComplianceEvent } from '../compliance/events';
import { outboundPreflight, refuseOutbound, type OutboundActor } from '../outbound/preflight';
import { startOrCompensate } from '../../platform/temporal/starts';
import type { LoggedUseCaseDeps, WithinRecording } from '../useCaseDeps';
import { failUnsentMessage, insertMessage, type MessageRow } from './store';

export interface SendMessageRequest {
  lineId: string;
  /** The recipient and the text as given, each with the request field it came in (named in validation errors). */
  to: { value: string; field: string };
  text: { value: string; field: string };
}

/** What `sendMessageWorkflow` is given for a stored outbound message and its price (already held, or zero). */
export function sendMessageInput(message: MessageRow, chargeCents: number): SendMessageInput {
  return {
    messageId: message.id,
    workspaceId: message.workspace_id,
    environment: message.environment,
    lineId: message.line_id,
    from: message.from_number,
    to: message.to_number,
    text: message.body,
    segments: message.segments,
    chargeCents,
  };
}

/**
 * Sends an SMS from a line (spec "SMS and conversations"). Refuses (`OutboundRefusedError`) in a
 * fixed order, each check only after the previous passed: the outbound preflight (number, a blank
 * text, line, `number_opted_out`, `conversation_window_expired`), then the hold for its price.
 * The message is stored `queued` with its compliance record, and `sendMessageWorkflow` sends it.
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

  // A failed start is resolved before anything is compensated: the server may have started the
  // workflow and the answer been lost (then the message is on its way and stays `queued`).
  const options = {
    taskQueue: deps.config.taskQueue,
    workflowId: workflowIds.sendMessage(messageId),
    args: [sendMessageInput(row, chargeCents)] as const,
  };
  await startOrCompensate<typeof sendMessageWorkflow>(deps.temporal, 'sendMessageWorkflow', options, async (outcome) => {
    if (outcome === 'unknown') {
      // Temporal could not be asked either: the message is recorded and held, so it is accepted
      // as `queued`; the recovery sweeper fails it (and releases the hold) if it never got a workflow.
      deps.log.error({ message_id: messageId }, 'send-message workflow start unconfirmed; the recovery sweeper settles it');
      return false;
    }
    deps.log.error({ message_id: messageId }, 'could not start the send-message workflow');
    await failUnsentMessage(deps.db, { messageId, tenant: actor, at: deps.now() });
    return true;
  });
  deps.log.info({ message_id: messageId, line_id: line.id, segments, basis: authorization.basis }, 'message queued');
  return row;
}
