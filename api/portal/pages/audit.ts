import { html, type Html } from '../html';
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
          ${input.eventTypes.map((type) => html`<option value="${type}" ${f.event_type === type ? html`selected` : ''}>${type}</option>`)}
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
      ${
        input.rows.length === 0
          ? html`<p id="no-events">No events match.</p>`
          : html`<table id="audit">
              <caption>
                The ${input.shown} newest matching events of the ${nav.environment} environment
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time (UTC)</th>
                  <th scope="col">Event</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Portal user</th>
                  <th scope="col">Phone number</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                ${input.rows.map(
                  (row) =>
                    html`<tr data-event-type="${row.event_type}">
                      <td>
                        <time datetime="${row.created_at.toISOString()}"
                          >${row.created_at.toISOString().slice(0, 19).replace('T', ' ')}</time
                        >
                      </td>
                      <td>${row.event_type}</td>
                      <td>
                        ${row.actor_key_id ? html`<span class="mono">${input.actors.get(row.actor_key_id) ?? row.actor_key_id}</span>` : OPERATOR_ACTOR}
                      </td>
                      <td data-portal-user>${portalUser(row, input.users)}</td>
                      <td class="mono">${row.phone_number ?? '—'}</td>
                      <td class="mono">${row.metadata ? JSON.stringify(row.metadata) : ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }`,
    nav,
  );
}
