import type { Knex } from 'knex';
import type { Tenant } from '../lines/store';
import { messagesOf } from './store';

/** Conversations (one per line and remote number) as the API and the portal list them (spec "SMS and conversations"). */

export interface ConversationRow {
  line_id: string;
  remote_number: string;
  line_phone_number: string;
  message_count: number;
  last_message_id: string;
  last_message_at: Date;
  last_message_text: string;
  last_message_direction: 'inbound' | 'outbound';
}

/**
 * The tenant's conversations with their line's number and last message; `lineIds` narrows them
 * to those lines. The caller orders (newest `c.last_message_at`, `c.last_message_id` first) and pages.
 */
export function conversationsOf(db: Knex, tenant: Tenant, lineIds?: readonly string[]) {
  const query = db('conversations as c')
    .join('messages as m', 'm.id', 'c.last_message_id')
    .join('lines as l', 'l.id', 'c.line_id')
    .where({ 'c.workspace_id': tenant.workspaceId, 'c.environment': tenant.environment })
    .select(
      'c.line_id',
      'c.remote_number',
      'l.phone_number as line_phone_number',
      'c.message_count',
      'c.last_message_id',
      'c.last_message_at',
      'm.body as last_message_text',
      'm.direction as last_message_direction',
    );
  if (lineIds) query.whereIn('c.line_id', [...lineIds]);
  return query;
}

/** One conversation's messages (the caller orders and pages them). */
export function conversationMessagesOf(db: Knex, tenant: Tenant, lineId: string, remoteNumber: string) {
  return messagesOf(db, tenant).andWhere({ line_id: lineId, remote_number: remoteNumber });
}

export function toConversationRecord(row: ConversationRow) {
  return {
    line_id: row.line_id,
    phone_number: row.remote_number,
    line_phone_number: row.line_phone_number,
    message_count: row.message_count,
    last_message_at: row.last_message_at.toISOString(),
    last_message_text: row.last_message_text,
    last_message_direction: row.last_message_direction,
  };
}
