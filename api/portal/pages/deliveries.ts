import { html, type Html } from '../html';
import { csrfField, errorBox, layout, type PageNav, type ShownError } from '../layout';

export interface DeliveryRow {
  id: string;
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

/** An attempt's outcome, and its request and response behind a native disclosure: the list's and a delivery's page's last four cells. */
function outcomeCells(row: DeliveryRow): Html {
  return html`<td>${row.status}${row.error_message ? html` (${row.error_message})` : ''}</td>
    <td>${row.http_status ?? '—'}</td>
    <td>${row.duration_ms ?? '—'}</td>
    <td>
      <details>
        <summary>Show</summary>
        <p>POST <span class="mono">${row.url ?? '—'}</span></p>
        <pre class="mono">${JSON.stringify(row.request_body, null, 2)}</pre>
        <p>Response</p>
        <pre class="mono">${row.response_body ?? '(none)'}</pre>
      </details>
    </td>`;
}

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
          ${DELIVERY_STATUSES.map((status) => html`<option value="${status}" ${input.status === status ? html`selected` : ''}>${status}</option>`)}
        </select>
        <button type="submit">Filter</button>
      </form>
      ${
        input.rows.length === 0
          ? html`<p id="no-deliveries">No deliveries match.</p>`
          : html`<table id="deliveries">
              <caption>
                The newest delivery attempts of the ${nav.environment} environment
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time (UTC)</th>
                  <th scope="col">Event</th>
                  <th scope="col">Attempt</th>
                  <th scope="col">Status</th>
                  <th scope="col">HTTP</th>
                  <th scope="col">Milliseconds</th>
                  <th scope="col">Request and response</th>
                </tr>
              </thead>
              <tbody>
                ${input.rows.map(
                  (row) =>
                    html`<tr data-delivery-id="${row.id}" data-status="${row.status}">
                      <td>
                        <time datetime="${row.created_at.toISOString()}"
                          >${row.created_at.toISOString().slice(0, 19).replace('T', ' ')}</time
                        >
                      </td>
                      <td><a href="/portal/deliveries/${row.id}?env=${nav.environment}">${row.event_type}</a></td>
                      <td>${row.attempt}</td>
                      ${outcomeCells(row)}
                    </tr>`,
                )}
              </tbody>
            </table>`
      }`,
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
          ? html`<form method="post" action="/portal/deliveries/${input.deliveryId}/redeliver">
                ${csrfField(nav.csrfToken)}
                <input type="hidden" name="env" value="${nav.environment}" />
                <button type="submit" id="redeliver">Redeliver</button>
              </form>
              <p>Sends the event again as a new attempt, with a new delivery id, signed with the line's current secret.</p>`
          : ''
      }
      <table id="attempts">
        <caption>
          Attempts of this event, oldest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Time (UTC)</th>
            <th scope="col">Status</th>
            <th scope="col">HTTP</th>
            <th scope="col">Milliseconds</th>
            <th scope="col">Request and response</th>
          </tr>
        </thead>
        <tbody>
          ${input.attempts.map(
            (row) =>
              html`<tr data-attempt="${row.attempt}" data-status="${row.status}">
                <td>${row.attempt}</td>
                <td>
                  <time datetime="${row.created_at.toISOString()}">${row.created_at.toISOString().slice(0, 19).replace('T', ' ')}</time>
                </td>
                ${outcomeCells(row)}
              </tr>`,
          )}
        </tbody>
      </table>`,
    nav,
  );
}
