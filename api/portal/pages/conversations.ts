import type { toConversationRecord } from '../../../src/domain/messages/conversations';
import type { toMessageRecord } from '../../../src/domain/messages/store';
import { html, type Html } from '../html';
import { stateBadge, table, time } from '../components';
import { layout, type PageNav } from '../layout';

type ConversationRecord = ReturnType<typeof toConversationRecord>;
type MessageRecord = ReturnType<typeof toMessageRecord>;

const conversationHref = (nav: PageNav, lineId: string, phoneNumber: string) =>
  `/portal/conversations/${lineId}/${encodeURIComponent(phoneNumber)}?env=${nav.environment}`;

function olderLink(path: string, nav: PageNav, cursor: string | null, label: string): Html | '' {
  return cursor ? html`<p><a id="older" href="${path}?env=${nav.environment}&cursor=${encodeURIComponent(cursor)}">${label}</a></p>` : '';
}

export function conversationsPage(nav: PageNav, input: { conversations: ConversationRecord[]; olderCursor: string | null }): Html {
  const conversations = table({
    id: 'conversations',
    caption: `SMS conversations of the ${nav.environment} environment, most recent first`,
    rows: input.conversations,
    rowData: (c) => ({ conversation: `${c.line_id}/${c.phone_number}` }),
    empty: html`<p id="no-conversations">No SMS conversations in the ${nav.environment} environment yet.</p>`,
    columns: [
      {
        header: 'Remote number',
        cell: (c) => html`<a class="mono" href="${conversationHref(nav, c.line_id, c.phone_number)}">${c.phone_number}</a>`,
      },
      { header: 'Line number', cellClass: 'mono', cell: (c) => c.line_phone_number },
      { header: 'Messages', numeric: true, cell: (c) => c.message_count },
      { header: 'Last message', cell: (c) => `${c.last_message_direction === 'inbound' ? '← ' : '→ '}${c.last_message_text}` },
      { header: 'When', cell: (c) => time(c.last_message_at) },
    ],
  });
  return layout(
    'Conversations',
    html`${conversations} ${olderLink('/portal/conversations', nav, input.olderCursor, 'Older conversations')}`,
    nav,
  );
}

export interface ConversationPageInput {
  line: { id: string; name: string; phoneNumber: string | null };
  phoneNumber: string;
  messages: MessageRecord[];
  olderCursor: string | null;
}

export function conversationPage(nav: PageNav, input: ConversationPageInput): Html {
  const list = table({
    id: 'messages',
    caption: 'Messages, newest first',
    rows: input.messages,
    rowData: (m) => ({ 'message-id': m.id, direction: m.direction }),
    empty: html`<p id="no-messages">No messages.</p>`,
    columns: [
      { header: 'When', cell: (m) => time(m.created_at) },
      { header: 'Direction', cell: (m) => (m.direction === 'inbound' ? 'Received' : 'Sent') },
      { header: 'Text', cellClass: 'message-text', cell: (m) => m.text },
      { header: 'Status', cell: (m) => html`${stateBadge(m.status)}${m.error_code ? html` (<code>${m.error_code}</code>)` : ''}` },
      { header: 'Segments', numeric: true, cell: (m) => m.segments },
      { header: 'Charge', numeric: true, cell: (m) => (m.charge_cents === null ? '—' : `${m.charge_cents}¢`) },
    ],
  });
  const path = `/portal/conversations/${input.line.id}/${encodeURIComponent(input.phoneNumber)}`;
  return layout(
    `Conversation with ${input.phoneNumber}`,
    html`<p>
        Line <strong>${input.line.name}</strong> (<span class="mono">${input.line.phoneNumber ?? '—'}</span>) ·
        <a href="/portal/conversations?env=${nav.environment}">All conversations</a>
      </p>
      ${list} ${olderLink(path, nav, input.olderCursor, 'Older messages')}`,
    nav,
  );
}
