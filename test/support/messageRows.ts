import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { placeHold } from '../../src/domain/billing/holds';
import { insertMessage, type NewMessage } from '../../src/domain/messages/store';

/** An outbound message as the API records it before its send workflow (`queued`), for tests that write rows directly. */
export function queuedOutboundMessage(input: {
  workspaceId: string;
  line: { id: string; phone_number: string };
  to: string;
  at: Date;
  id?: string;
  body?: string;
  authorizationBasis?: string | null;
}): NewMessage & { direction: 'outbound' } {
  return {
    id: input.id ?? crypto.randomUUID(),
    workspace_id: input.workspaceId,
    environment: 'test',
    line_id: input.line.id,
    actor_key_id: null,
    direction: 'outbound',
    origin: 'customer',
    from_number: input.line.phone_number,
    to_number: input.to,
    body: input.body ?? 'Hello',
    segments: 1,
    status: 'queued',
    carrier_message_id: null,
    authorization_basis: input.authorizationBasis ?? null,
    consent_id: null,
    created_at: input.at,
  };
}

/** Records a queued outbound message with its 1 ¢ hold, as if accepted at `at` and never handed over; returns its id. */
export async function insertQueuedMessage(db: Knex, input: Parameters<typeof queuedOutboundMessage>[0]): Promise<string> {
  const message = queuedOutboundMessage(input);
  await insertMessage(db, message);
  await placeHold(db, {
    tenant: { workspaceId: input.workspaceId, environment: 'test' },
    keyId: null,
    reference: `sms:${message.id}`,
    amountCents: 1,
    at: input.at,
  });
  return message.id;
}
