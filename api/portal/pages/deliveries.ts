import { html, type Html } from '../html';
import { envFields, postButton, stateBadge, table, time, type Column } from '../components';
import { choiceSelect, lineSelect, listQuery, searchBox, timeRangeFields } from '../filterFields';
import type { LineChoice } from '../lineChoices';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';
import { EVENT_TYPES } from '../../../src/domain/webhooks/events';
import { DELIVERY_STATUSES, DELIVERY_STATUS_LABELS, EVENT_TYPE_LABELS, labelOf } from '../labels';

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
  /** The headers it was POSTed with (null: never made, or made before they were recorded). */
  request_headers: Record<string, string> | null;
  response_body: string | null;
  created_at: Date;
}

const sentAt: Column<DeliveryRow> = { header: 'Time', cell: (row) => time(row.created_at, 'second') };

/** An attempt's outcome, and its request and response behind a native disclosure: the list's and a delivery's page's last four columns. */
const OUTCOME_COLUMNS: Array<Column<DeliveryRow>> = [
  { header: 'Status', cell: (row) => html`${stateBadge(row.status)}${row.error_message ? html` ${row.error_message}` : ''}` },
  { header: 'HTTP', cell: (row) => row.http_status ?? '—' },
  { header: 'Milliseconds', cell: (row) => row.duration_ms ?? '—' },
  {
    header: 'Request and response',
    cell: (row) =>
      html`<details>
        <summary>Show</summary>
        <p>POST <span class="mono">${row.url ?? '—'}</span></p>
        ${requestHeaders(row)}
        <pre class="mono">${JSON.stringify(row.request_body, null, 2)}</pre>
        <p>Response</p>
        <pre class="mono">${row.response_body ?? '(none)'}</pre>
      </details>`,
  },
];

/**
 * The headers an attempt was sent with, as the receiver got them: the signature's value is what a receiver
 * compares its own HMAC with (the secret is never recorded, so never shown).
 */
function requestHeaders(row: DeliveryRow): Html {
  if (!row.request_headers) return html`<p data-no-request-headers>No request headers: this attempt was not sent.</p>`;
  return html`<dl class="request-headers" data-request-headers>
    ${Object.entries(row.request_headers).map(
      ([name, value]) =>
        html`<div>
          <dt class="mono">${name}</dt>
          <dd class="mono">${value}</dd>
        </div>`,
    )}
  </dl>`;
}

/** An event type in words, its name as the API sends it on hover (`title`) and in `data-event-type`. */
export function eventTypeName(type: string): Html {
  return html`<span data-event-type="${type}" title="${type}">${labelOf(EVENT_TYPE_LABELS, type)}</span>`;
}

/** The list's filters as the query string carries them; '' is "all" (api/portal/deliveryRoutes.ts `DELIVERY_FILTERS`). */
export interface DeliveryListFilters {
  status: string;
  line_id: string;
  call_id: string;
  event_type: string;
  event_id: string;
  from: string;
  to: string;
}

export interface DeliveriesPageInput {
  rows: DeliveryRow[];
  filters: DeliveryListFilters;
  lines: readonly LineChoice[];
  /** The next page's cursor (the filters ride along in its link); null on the last page. */
  olderCursor: string | null;
  error?: ShownError;
}

/** Webhook delivery attempts, each with its request and response behind a native disclosure (no script needed). */
export function deliveriesPage(nav: PageNav, input: DeliveriesPageInput): Html {
  const { filters } = input;
  return layout(
    'Webhook deliveries',
    html`${searchBox(nav)} ${errorBox(input.error)}
      <form method="get" action="/portal/deliveries" class="filters" aria-label="Filter deliveries">
        <input type="hidden" name="env" value="${nav.environment}" />
        ${choiceSelect('status', 'Status', DELIVERY_STATUSES, DELIVERY_STATUS_LABELS, filters.status)}
        ${lineSelect(input.lines, filters.line_id)}
        ${choiceSelect('event_type', 'Event type', EVENT_TYPES, EVENT_TYPE_LABELS, filters.event_type)}
        <label for="call_id">Call id</label>
        <input id="call_id" name="call_id" class="mono" value="${filters.call_id}" size="36" />
        ${filters.event_id ? html`<input type="hidden" name="event_id" value="${filters.event_id}" />` : ''} ${timeRangeFields(filters)}
        <button type="submit">Filter</button>
      </form>
      ${
        filters.event_id
          ? html`<p id="event-filter">
              Only event <span class="mono">${filters.event_id}</span> ·
              <a href="/portal/deliveries?${listQuery(nav.environment, { ...filters, event_id: '' })}">every event</a>
            </p>`
          : ''
      }
      ${
        input.error
          ? ''
          : html`<p>
                <a id="deliveries-csv" href="/portal/deliveries.csv?${listQuery(nav.environment, filters)}" download
                  >Download these deliveries as CSV</a
                >
              </p>
              ${table({
                id: 'deliveries',
                caption: `The newest delivery attempts of the ${nav.environment} environment`,
                rows: input.rows,
                rowData: (row) => ({ 'delivery-id': row.id, status: row.status }),
                empty: html`<p id="no-deliveries">No deliveries match.</p>`,
                columns: [
                  sentAt,
                  {
                    header: 'Event',
                    cell: (row) => html`<a href="/portal/deliveries/${row.id}?env=${nav.environment}">${eventTypeName(row.event_type)}</a>`,
                  },
                  { header: 'Call', cell: (row) => callLink(nav, row) },
                  { header: 'Attempt', cell: (row) => row.attempt },
                  ...OUTCOME_COLUMNS,
                ],
              })}
              ${
                input.olderCursor
                  ? html`<p>
                      <a id="older" href="/portal/deliveries?${listQuery(nav.environment, filters, input.olderCursor)}">Older deliveries</a>
                    </p>`
                  : ''
              }`
      }`,
    nav,
  );
}

/** The attempt's call, when its event is a call's. */
function callLink(nav: PageNav, row: DeliveryRow): Html | string {
  return row.call_id
    ? html`<a class="mono" href="/portal/calls/${row.call_id}?env=${nav.environment}">${row.call_id.slice(0, 8)}</a>`
    : '—';
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

/** Whether a redelivery just started (`started`) has yet to finish: while so, its attempts reload themselves. */
function awaitingAttempt(input: DeliveryDetailInput): boolean {
  return Boolean(input.started) && !input.attempts.some((row) => row.attempt === input.started && row.status !== 'pending');
}

/**
 * A delivery's attempts, and the notice of a redelivery still under way. Until that attempt has finished, htmx reloads
 * this part every 2 s (GET /portal/deliveries/:id/live, the same fragment); the fragment that shows it finished carries
 * no trigger, so the polling stops.
 */
export function deliveryAttempts(input: DeliveryDetailInput, environment: string): Html {
  const awaiting = awaitingAttempt(input);
  const polling = awaiting
    ? html`hx-get="/portal/deliveries/${input.deliveryId}/live?env=${environment}&amp;started=${input.started}" hx-trigger="every 2s"
      hx-swap="outerHTML"`
    : '';
  return html`<section id="delivery-live" aria-live="polite" ${polling}>
    ${
      awaiting
        ? html`<p class="notice" role="status" id="redelivery-started">
            Redelivery started as attempt ${input.started}; this list updates when it has been answered.
          </p>`
        : ''
    }
    ${table({
      id: 'attempts',
      caption: 'Attempts of this event, oldest first',
      rows: input.attempts,
      rowData: (row) => ({ attempt: row.attempt, status: row.status }),
      empty: html``, // never: the page is found by one of its attempts
      columns: [{ header: 'Attempt', cell: (row) => row.attempt }, sentAt, ...OUTCOME_COLUMNS],
    })}
  </section>`;
}

/** One event's delivery: every attempt with its request and response, and the Redeliver action (a new attempt). */
export function deliveryPage(nav: PageNav, input: DeliveryDetailInput): Html {
  const latest = input.attempts[input.attempts.length - 1];
  return layout(
    'Webhook delivery',
    html`${errorBox(input.error)}
      <p>
        Event
        <span class="mono" data-event-id="${input.eventId}">${input.eventId}</span> (${latest ? eventTypeName(latest.event_type) : ''}) ·
        ${
          latest?.call_id
            ? html`<a id="delivery-call" href="/portal/calls/${latest.call_id}?env=${nav.environment}">The call it is about</a> ·`
            : ''
        }
        <a href="/portal/deliveries?env=${nav.environment}">All deliveries</a>
      </p>
      ${
        input.mayRedeliver
          ? html`${postButton(`/portal/deliveries/${input.deliveryId}/redeliver`, 'Redeliver', envFields(nav), { id: 'redeliver' })}
              <p>Sends the event again as a new attempt, with a new delivery id, signed with the line's current secret.</p>`
          : ''
      }
      ${deliveryAttempts(input, nav.environment)}`,
    nav,
  );
}
