import type { toCallRecord } from '../../../src/domain/calls/store';
import type { LineRow } from '../../../src/domain/lines/store';
import type { MessageRow } from '../../../src/domain/messages/store';
import type { SearchTerm } from '../../../src/domain/search/rules';
import { stateBadge, table, time } from '../components';
import { listQuery, searchBox } from '../filterFields';
import { html, type Html } from '../html';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';
import { callsTableOf } from './calls';

type CallRecord = ReturnType<typeof toCallRecord>;

export interface SearchPageInput {
  query: string;
  /** What matched; undefined before a search, or when nothing did (`nothing`). */
  found?: { term: SearchTerm; calls: CallRecord[]; messages: MessageRow[]; lines: LineRow[] };
  nothing?: boolean;
  error?: ShownError;
}

/** What the search box takes, said where nothing matched and before a search. */
const SEARCH_HELP = html`<p id="search-help">
  Search takes a call id, a delivery or event id, a line's id or name, a message id, a phone number: whole (<span class="mono"
    >+14155550123</span
  >) or four or more of its digits, or words said in a call (its transcript).
</p>`;

/** The search's results: the lines, calls and messages a number matched, or the lines and calls (by transcript) words matched (an id opens its page directly). */
export function searchPage(nav: PageNav, input: SearchPageInput): Html {
  return layout(
    input.query ? `Search: ${input.query}` : 'Search',
    html`${searchBox(nav, input.query)} ${errorBox(input.error)}
    ${input.nothing ? html`<p id="no-match" role="status">Nothing in the ${nav.environment} environment matches “${input.query}”.</p>` : ''}
    ${input.found ? results(nav, input.found) : SEARCH_HELP}`,
    nav,
  );
}

function results(nav: PageNav, found: NonNullable<SearchPageInput['found']>): Html {
  const lineNames = new Map(found.lines.map((line) => [line.id, line.name]));
  const number = found.term.kind === 'number' ? ('e164' in found.term.number ? found.term.number.e164 : found.term.number.digits) : '';
  const words = found.term.kind === 'words' ? found.term.text : '';
  return html`${
    found.lines.length
      ? html`<h2 id="lines-found">Lines</h2>
          ${table({
            id: 'found-lines',
            labelledBy: 'lines-found',
            rows: found.lines,
            rowData: (line) => ({ 'line-id': line.id }),
            empty: html``,
            columns: [
              { header: 'Name', cell: (line) => html`<a href="/portal/lines/${line.id}?env=${nav.environment}">${line.name}</a>` },
              { header: 'Number', cellClass: 'mono', cell: (line) => line.phone_number ?? '—' },
              { header: 'Status', cell: (line) => stateBadge(line.status) },
            ],
          })}`
      : ''
  }
  ${
    found.term.kind === 'number'
      ? html`<h2 id="calls-found">Calls</h2>
          ${callsTableOf(nav, found.calls, lineNames, `The newest calls from or to ${number}`)}
          <p><a id="all-calls" href="/portal/calls?${listQuery(nav.environment, { number })}">Every call from or to ${number}</a></p>
          <h2 id="messages-found">Messages</h2>
          ${table({
            id: 'found-messages',
            labelledBy: 'messages-found',
            rows: found.messages,
            rowData: (message) => ({ 'message-id': message.id }),
            empty: html`<p id="no-messages">No messages from or to ${number}.</p>`,
            columns: [
              { header: 'When', cell: (message) => time(message.created_at) },
              { header: 'From', cellClass: 'mono', cell: (message) => message.from_number },
              { header: 'To', cellClass: 'mono', cell: (message) => message.to_number },
              {
                header: 'Text',
                cellClass: 'message-text',
                cell: (message) =>
                  html`<a
                    href="/portal/conversations/${message.line_id}/${encodeURIComponent(message.remote_number)}?env=${nav.environment}"
                    >${message.body}</a
                  >`,
              },
            ],
          })}`
      : html`<h2 id="calls-found">Calls whose transcript says “${words}”</h2>
          ${callsTableOf(nav, found.calls, lineNames, `The newest calls whose transcript says “${words}”`)}`
  }`;
}
