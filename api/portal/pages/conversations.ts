import type { toConversationRecord } from '../../../src/domain/messages/conversations';
import type { toMessageRecord } from '../../../src/domain/messages/store';
import { html, type Html } from '../html';
import { layout, type PageNav } from '../layout';

type ConversationRecord = ReturnType<typeof toConversationRecord>;
type MessageRecord = ReturnType<typeof toMessageRecord>;

const when = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')}</time>`;
const conversationHref = (nav: PageNav, lineId: string, phoneNumber: string) =>
  `/portal/conversations/${lineId}/${encodeURIComponent(phoneNumber)}?env=${nav.environment}`;

function olderLink(path: string, nav: PageNav, cursor: string | null, label: string): Html | '' {
  return cursor ? html`<p><a id="older" href="${path}?env=${nav.environment}&cursor=${encodeURIComponent(cursor)}">${label}</a></p>` : '';
}

export function conversationsPage(nav: PageNav, input: { conversations: ConversationRecord[]; olderCursor: string | null }): Html {
  const table =
    input.conversations.length === 0
      ? html`<p id="no-conversations">No SMS conversations in the ${nav.environment} environment yet.</p>`
      : html`<table id="conversations">
          <caption>
            SMS conversations of the ${nav.environment} environment, most recent first
          </caption>
          <thead>
            <tr>
              <th scope="col">Remote number</th>
              <th scope="col">Line number</th>
              <th scope="col" class="num">Messages</th>
              <th scope="col">Last message</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            ${input.conversations.map(
              (c) =>
                html`<tr data-conversation="${c.line_id}/${c.phone_number}">
                  <td><a class="mono" href="${conversationHref(nav, c.line_id, c.phone_number)}">${c.phone_number}</a></td>
                  <td class="mono">${c.line_phone_number}</td>
                  <td class="num">${c.message_count}</td>
                  <td>${c.last_message_direction === 'inbound' ? '← ' : '→ '}${c.last_message_text}</td>
                  <td>${when(c.last_message_at)}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  return layout('Conversations', html`${table} ${olderLink('/portal/conversations', nav, input.olderCursor, 'Older conversations')}`, nav);
}

export interface ConversationPageInput {
  line: { id: string; name: string; phoneNumber: string | null };
  phoneNumber: string;
  messages: MessageRecord[];
  olderCursor: string | null;
}

export function conversationPage(nav: PageNav, input: ConversationPageInput): Html {
  const list =
    input.messages.length === 0
      ? html`<p id="no-messages">No messages.</p>`
      : html`<table id="messages">
          <caption>
            Messages, newest first
          </caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Direction</th>
              <th scope="col">Text</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">Segments</th>
              <th scope="col" class="num">Charge</th>
            </tr>
          </thead>
          <tbody>
            ${input.messages.map(
              (m) =>
                html`<tr data-message-id="${m.id}" data-direction="${m.direction}">
                  <td>${when(m.created_at)}</td>
                  <td>${m.direction === 'inbound' ? 'Received' : 'Sent'}</td>
                  <td class="message-text">${m.text}</td>
                  <td>${m.status}${m.error_code ? html` (<code>${m.error_code}</code>)` : ''}</td>
                  <td class="num">${m.segments}</td>
                  <td class="num">${m.charge_cents === null ? '—' : `${m.charge_cents}¢`}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
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
