import { html, type Html } from '../html';
import { envFields, option, postButton, table, time, type Column } from '../components';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

export interface DeliveryRow {
  id: string;
  event_id: string;
  line_id: string;
  call_id: string | null;
  event_type: string;
  url: string | null;
  attempt: number;
  status: string;
  http_status: number | null;
  error_message: string | null;
  duration_ms: number | null;
  request_body: unknown;
  response_body: string | null;
  created_at: Date;
}

const sentAt: Column<DeliveryRow> = { header: 'Time (UTC)', cell: (row) => time(row.created_at, 'second') };

/** An attempt's outcome, and its request and response behind a native disclosure: the list's and a delivery's page's last four columns. */
const OUTCOME_COLUMNS: Array<Column<DeliveryRow>> = [
  { header: 'Status', cell: (row) => html`${row.status}${row.error_message ? html` (${row.error_message})` : ''}` },
  { header: 'HTTP', cell: (row) => row.http_status ?? '—' },
  { header: 'Milliseconds', cell: (row) => row.duration_ms ?? '—' },
  {
    header: 'Request and response',
    cell: (row) =>
      html`<details>
        <summary>Show</summary>
        <p>POST <span class="mono">${row.url ?? '—'}</span></p>
        <pre class="mono">${JSON.stringify(row.request_body, null, 2)}</pre>
        <p>Response</p>
        <pre class="mono">${row.response_body ?? '(none)'}</pre>
      </details>`,
  },
];

export const DELIVERY_STATUSES = ['success', 'failed', 'pending'] as const;

/** Webhook delivery attempts, each with its request and response behind a native disclosure (no script needed). */
export function deliveriesPage(nav: PageNav, input: { rows: DeliveryRow[]; status: string }): Html {
  return layout(
    'Webhook deliveries',
    html`<form method="get" action="/portal/deliveries" class="filters" aria-label="Filter deliveries">
        <input type="hidden" name="env" value="${nav.environment}" />
        <label for="status">Status</label>
        <select id="status" name="status">
          <option value="">all</option>
          ${DELIVERY_STATUSES.map((status) => option(status, input.status))}
        </select>
        <button type="submit">Filter</button>
      </form>
      ${table({
        id: 'deliveries',
        caption: `The newest delivery attempts of the ${nav.environment} environment`,
        rows: input.rows,
        rowData: (row) => ({ 'delivery-id': row.id, status: row.status }),
        empty: html`<p id="no-deliveries">No deliveries match.</p>`,
        columns: [
          sentAt,
          { header: 'Event', cell: (row) => html`<a href="/portal/deliveries/${row.id}?env=${nav.environment}">${row.event_type}</a>` },
          { header: 'Attempt', cell: (row) => row.attempt },
          ...OUTCOME_COLUMNS,
        ],
      })}`,
    nav,
  );
}

export interface DeliveryDetailInput {
  /** The attempt the page was opened from. */
  deliveryId: string;
  eventId: string;
  /** Every attempt of its event, oldest first (redeliveries included). */
  attempts: DeliveryRow[];
  mayRedeliver: boolean;
  error?: ShownError;
  /** The attempt number a redelivery was just started as (a notice until that attempt has finished). */
  started?: number;
}

/** One event's delivery: every attempt with its request and response, and the Redeliver action (a new attempt). */
export function deliveryPage(nav: PageNav, input: DeliveryDetailInput): Html {
  const latest = input.attempts[input.attempts.length - 1];
  return layout(
    'Webhook delivery',
    html`${errorBox(input.error)}
      <p>
        Event <span class="mono" data-event-id="${input.eventId}">${input.eventId}</span> (${latest?.event_type ?? ''}) ·
        ${
          latest?.call_id
            ? html`<a id="delivery-call" href="/portal/calls/${latest.call_id}?env=${nav.environment}">The call it is about</a> ·`
            : ''
        }
        <a href="/portal/deliveries?env=${nav.environment}">All deliveries</a>
      </p>
      ${
        // Until the new attempt has finished: reloading the page shows it.
        input.started && !input.attempts.some((row) => row.attempt === input.started && row.status !== 'pending')
          ? html`<p class="notice" role="status" id="redelivery-started">
              Redelivery started as attempt ${input.started};
              <a href="/portal/deliveries/${input.deliveryId}?env=${nav.environment}&amp;started=${input.started}">refresh</a> to see it.
            </p>`
          : ''
      }
      ${
        input.mayRedeliver
          ? html`${postButton(`/portal/deliveries/${input.deliveryId}/redeliver`, 'Redeliver', envFields(nav), { id: 'redeliver' })}
              <p>Sends the event again as a new attempt, with a new delivery id, signed with the line's current secret.</p>`
          : ''
      }
      ${table({
        id: 'attempts',
        caption: 'Attempts of this event, oldest first',
        rows: input.attempts,
        rowData: (row) => ({ attempt: row.attempt, status: row.status }),
        empty: html``, // never: the page is found by one of its attempts
        columns: [{ header: 'Attempt', cell: (row) => row.attempt }, sentAt, ...OUTCOME_COLUMNS],
      })}`,
    nav,
  );
}
