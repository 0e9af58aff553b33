import { html, type Html } from '../html';
import { option, table, time } from '../components';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

/** The actor of changes operators made in the CLI or the portal (no key acted), as shown and as filtered by. */
export const OPERATOR_ACTOR = 'operator';

export interface AuditRow {
  id: string;
  event_type: string;
  phone_number: string | null;
  line_id: string | null;
  actor_key_id: string | null;
  metadata: Record<string, unknown> | null;
  created_at: Date;
}

export interface AuditPageInput {
  rows: AuditRow[];
  /** The displayed prefix of each acting key. */
  actors: Map<string, string>;
  /** The email of each portal user named by an event (`metadata.user_id`), by id. */
  users: Map<string, string>;
  eventTypes: readonly string[];
  filters: Record<string, string>;
  shown: number;
  error?: ShownError;
}

/** The portal user an event names (issue 27, L21), by email; removed members stay named. */
export function portalUserIdOf(row: Pick<AuditRow, 'metadata'>): string | undefined {
  const userId = row.metadata?.user_id;
  return typeof userId === 'string' ? userId : undefined;
}

function portalUser(row: AuditRow, users: Map<string, string>): string {
  const userId = portalUserIdOf(row);
  return userId ? (users.get(userId) ?? userId) : '—';
}

/** The compliance audit: filters posted by GET (a link keeps them), newest events first. */
export function auditPage(nav: PageNav, input: AuditPageInput): Html {
  const f = input.filters;
  return layout(
    'Audit log',
    html`${errorBox(input.error)}
      <form method="get" action="/portal/audit" class="filters" aria-label="Filter the audit log">
        <input type="hidden" name="env" value="${nav.environment}" />
        <label for="event_type">Event type</label>
        <select id="event_type" name="event_type">
          <option value="">all</option>
          ${input.eventTypes.map((type) => option(type, f.event_type))}
        </select>
        <label for="actor">Actor (key prefix or id, or operator)</label>
        <input id="actor" name="actor" type="text" value="${f.actor ?? ''}" />
        <label for="phone_number">Phone number</label>
        <input id="phone_number" name="phone_number" type="text" value="${f.phone_number ?? ''}" />
        <label for="from">From (UTC date)</label>
        <input id="from" name="from" type="date" value="${f.from ?? ''}" />
        <label for="to">Before (UTC date)</label>
        <input id="to" name="to" type="date" value="${f.to ?? ''}" />
        <button type="submit">Filter</button>
      </form>
      ${table({
        id: 'audit',
        caption: `The ${input.shown} newest matching events of the ${nav.environment} environment`,
        rows: input.rows,
        rowData: (row) => ({ 'event-type': row.event_type }),
        empty: html`<p id="no-events">No events match.</p>`,
        columns: [
          { header: 'Time (UTC)', cell: (row) => time(row.created_at, 'second') },
          { header: 'Event', cell: (row) => row.event_type },
          {
            header: 'Actor',
            cell: (row) =>
              row.actor_key_id ? html`<span class="mono">${input.actors.get(row.actor_key_id) ?? row.actor_key_id}</span>` : OPERATOR_ACTOR,
          },
          { header: 'Portal user', cellMarker: 'portal-user', cell: (row) => portalUser(row, input.users) },
          { header: 'Phone number', cellClass: 'mono', cell: (row) => row.phone_number ?? '—' },
          { header: 'Details', cellClass: 'mono', cell: (row) => (row.metadata ? JSON.stringify(row.metadata) : '') },
        ],
      })}`,
    nav,
  );
}
