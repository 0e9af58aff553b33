import type { toCallRecord } from '../../../src/domain/calls/store';
import { CALL_STATUSES, isActiveCallStatus } from '../../../src/domain/calls/rules';
import { html, type Html } from '../html';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';
import { formatCents } from './overview';

type CallRecord = ReturnType<typeof toCallRecord>;

const time = (iso: string | null) => (iso ? html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')}</time>` : '—');

export function callsPage(nav: PageNav, input: { calls: CallRecord[]; status: string; error?: ShownError }): Html {
  return layout(
    'Calls',
    html`${errorBox(input.error)}
      <form method="get" action="/portal/calls" class="filters" aria-label="Filter calls">
        <input type="hidden" name="env" value="${nav.environment}" />
        <label for="status">Status</label>
        <select id="status" name="status">
          <option value="">all</option>
          ${CALL_STATUSES.map((status) => html`<option value="${status}" ${input.status === status ? html`selected` : ''}>${status}</option>`)}
        </select>
        <button type="submit">Filter</button>
      </form>
      ${
        input.calls.length === 0
          ? html`<p id="no-calls">No calls match.</p>`
          : html`<table id="calls">
              <caption>
                The newest calls of the ${nav.environment} environment
              </caption>
              <thead>
                <tr>
                  <th scope="col">Created (UTC)</th>
                  <th scope="col">Direction</th>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col">Status</th>
                  <th scope="col">Seconds</th>
                  <th scope="col">Charge</th>
                </tr>
              </thead>
              <tbody>
                ${input.calls.map(
                  (call) =>
                    html`<tr data-call-id="${call.id}">
                      <td>
                        <a href="/portal/calls/${call.id}?env=${nav.environment}">${call.created_at.slice(0, 19).replace('T', ' ')}</a>
                      </td>
                      <td>${call.direction}</td>
                      <td class="mono">${call.from_number}</td>
                      <td class="mono">${call.to_number}</td>
                      <td>${call.status}</td>
                      <td>${call.duration_sec ?? '—'}</td>
                      <td>${call.charge_cents === null ? '—' : formatCents(call.charge_cents)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }`,
    nav,
  );
}

/**
 * The live part of a call's page: htmx reloads it every 2 s while the call is active, and until its end is
 * settled (the end time and charge land just after the status); the fragment of a settled call has no
 * trigger, so the polling stops by itself.
 */
export function callLive(call: CallRecord, environment: string): Html {
  const polling =
    isActiveCallStatus(call.status) || call.ended_at === null
      ? html`hx-get="/portal/calls/${call.id}/live?env=${environment}" hx-trigger="every 2s" hx-swap="outerHTML"`
      : '';
  return html`<section id="call-live" aria-live="polite" ${polling}>
    <dl class="stats">
      <div>
        <dt>Status</dt>
        <dd data-call-status="${call.status}">${call.status}</dd>
      </div>
      <div>
        <dt>Seconds</dt>
        <dd>${call.duration_sec ?? '—'}</dd>
      </div>
      <div>
        <dt>Charge</dt>
        <dd>${call.charge_cents === null ? '—' : formatCents(call.charge_cents)}</dd>
      </div>
      <div>
        <dt>End cause</dt>
        <dd>${call.end_cause ?? '—'}</dd>
      </div>
      <div>
        <dt>Started (UTC)</dt>
        <dd data-call-started>${time(call.started_at)}</dd>
      </div>
      <div>
        <dt>Ended (UTC)</dt>
        <dd data-call-ended>${time(call.ended_at)}</dd>
      </div>
    </dl>
    <h2>Transcript</h2>
    ${
      call.transcript?.length
        ? html`<ol id="transcript">
            ${call.transcript.map((entry) => html`<li><strong>${entry.role}</strong> ${time(entry.timestamp)}: ${entry.text}</li>`)}
          </ol>`
        : html`<p id="no-transcript">Nothing said yet.</p>`
    }
  </section>`;
}

export function callPage(nav: PageNav, call: CallRecord): Html {
  return layout(
    `Call to ${call.to_number}`,
    html`<p>
        ${call.direction} call from <span class="mono">${call.from_number}</span> to <span class="mono">${call.to_number}</span>, created
        ${time(call.created_at)}.
      </p>
      ${callLive(call, nav.environment)}
      ${call.recording_url && /^https?:\/\//.test(call.recording_url) ? html`<p><a href="${call.recording_url}">Recording</a></p>` : ''}
      <p>
        <a id="history" href="/portal/calls/${call.id}/history.json?env=${nav.environment}" download
          >Download the call's Temporal history (JSON)</a
        >
      </p>
      <p><a href="/portal/calls?env=${nav.environment}">All calls</a></p>`,
    nav,
  );
}
