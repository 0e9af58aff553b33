import type { toCallRecord } from '../../../src/domain/calls/store';
import type { LegalHoldRow } from '../../../src/domain/recordings/store';
import type { RecordingStorage } from '../../../src/domain/recordings/rules';
import { CALL_DIRECTIONS, CALL_STATUSES, isActiveCallStatus } from '../../../src/domain/calls/rules';
import { html, type Html } from '../html';
import { confirmLink, stateBadge, stateLabel, table, time } from '../components';
import { CALL_DIRECTION_LABELS, CALL_STATUS_LABELS, COPY_FAILURE_REASON_LABELS, labelOf, SPEAKER_LABELS } from '../labels';
import { choiceSelect, lineSelect, listQuery, searchBox, timeRangeFields } from '../filterFields';
import type { LineChoice } from '../lineChoices';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';
import { formatCents } from './overview';
import { callTimelineSection, secondsOf, type CallView } from './callTimeline';

type CallRecord = ReturnType<typeof toCallRecord>;

const toSecond = (iso: string | null) => time(iso, 'second');

/** The list's filters as the query string carries them; '' is "all" (api/portal/callRoutes.ts `CALL_FILTERS`). */
export interface CallListFilters {
  line_id: string;
  status: string;
  direction: string;
  /** The other party's or the line's number: whole (E.164) or some of its digits. */
  number: string;
  from: string;
  to: string;
}

export interface CallsPageInput {
  calls: CallRecord[];
  filters: CallListFilters;
  lines: readonly LineChoice[];
  olderCursor: string | null;
  error?: ShownError;
}

export function callsPage(nav: PageNav, input: CallsPageInput): Html {
  const { filters } = input;
  return layout(
    'Calls',
    html`${searchBox(nav)} ${errorBox(input.error)}
      <form method="get" action="/portal/calls" class="filters" aria-label="Filter calls">
        <input type="hidden" name="env" value="${nav.environment}" />
        ${lineSelect(input.lines, filters.line_id)} ${choiceSelect('status', 'Status', CALL_STATUSES, CALL_STATUS_LABELS, filters.status)}
        ${choiceSelect('direction', 'Direction', CALL_DIRECTIONS, CALL_DIRECTION_LABELS, filters.direction)}
        <label for="number">Phone number</label>
        <input id="number" name="number" class="mono" value="${filters.number}" size="16" />
        ${timeRangeFields(filters)}
        <button type="submit">Filter</button>
      </form>
      ${input.error ? '' : callsTable(nav, input)}`,
    nav,
  );
}

/** The calls found, the link to the CSV of every call the filters keep, and the link to older calls. */
function callsTable(nav: PageNav, input: CallsPageInput): Html {
  const lineNames = new Map(input.lines.map((line) => [line.id, line.name]));
  return html`<p>
      <a id="calls-csv" href="/portal/calls.csv?${listQuery(nav.environment, input.filters)}" download>Download these calls as CSV</a>
    </p>
    ${callsTableOf(nav, input.calls, lineNames, `The newest calls of the ${nav.environment} environment`)}
    ${
      input.olderCursor
        ? html`<p><a id="older" href="/portal/calls?${listQuery(nav.environment, input.filters, input.olderCursor)}">Older calls</a></p>`
        : ''
    }`;
}

/** A table of calls, each linked to its page and its line (the list's, and a search's). */
export function callsTableOf(nav: PageNav, calls: readonly CallRecord[], lineNames: ReadonlyMap<string, string>, caption: string): Html {
  return table({
    id: 'calls',
    caption,
    rows: calls,
    rowData: (call) => ({ 'call-id': call.id }),
    empty: html`<p id="no-calls">No calls match.</p>`,
    columns: [
      {
        header: 'Created',
        cell: (call) => html`<a href="/portal/calls/${call.id}?env=${nav.environment}">${toSecond(call.created_at)}</a>`,
      },
      {
        header: 'Line',
        cell: (call) => html`<a href="/portal/lines/${call.line_id}?env=${nav.environment}">${lineNames.get(call.line_id) ?? 'line'}</a>`,
      },
      { header: 'Direction', cell: (call) => stateLabel(call.direction) },
      { header: 'From', cellClass: 'mono', cell: (call) => call.from_number },
      { header: 'To', cellClass: 'mono', cell: (call) => call.to_number },
      { header: 'Status', cell: (call) => stateBadge(call.status) },
      { header: 'Seconds', cell: (call) => call.duration_sec ?? '—' },
      { header: 'Charge', cell: (call) => (call.charge_cents === null ? '—' : formatCents(call.charge_cents)) },
    ],
  });
}

/**
 * The live part of a call's page: htmx reloads it every 2 s while the call's story may still change
 * (src/domain/calls/timeline.ts `stillUnfolding`): its status, running seconds, charge, recording,
 * timeline and transcript.
 */
export function callLive(view: CallView, environment: string, hangUp?: { csrfToken: string }, now = new Date()): Html {
  const { call } = view;
  const polling = view.unfolding
    ? html`hx-get="/portal/calls/${call.id}/live?env=${environment}" hx-trigger="every 2s" hx-swap="outerHTML"`
    : '';
  // Played through the portal, which reads it at the carrier: the carrier's URL needs credentials the browser lacks.
  const recordingPath = `/portal/calls/${call.id}/recording?env=${environment}`;
  return html`<section id="call-live" aria-live="polite" ${polling} ${view.unfolding ? html`data-unfolding` : ''}>
    <dl class="stats">
      <div>
        <dt>Status</dt>
        <dd data-call-status="${call.status}">${stateBadge(call.status)}</dd>
      </div>
      <div>
        <dt>Seconds</dt>
        <dd data-call-seconds>${secondsOf(call, now)}</dd>
      </div>
      <div>
        <dt>Charge</dt>
        <dd>${call.charge_cents === null ? '—' : formatCents(call.charge_cents)}</dd>
      </div>
      <div>
        <dt>End cause</dt>
        <dd>${call.end_cause ? stateLabel(call.end_cause) : '—'}</dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd data-call-started>${toSecond(call.started_at)}</dd>
      </div>
      <div>
        <dt>Ended</dt>
        <dd data-call-ended>${toSecond(call.ended_at)}</dd>
      </div>
    </dl>
    ${
      hangUp && isActiveCallStatus(call.status)
        ? confirmLink(`/portal/calls/${call.id}/hangup?env=${environment}`, 'Hang up…', { id: 'hang-up' })
        : ''
    }
    ${
      call.recording_url && view.storage?.state !== 'deleted'
        ? html`<h2>Recording</h2>
            <audio id="recording-player" controls preload="none" src="${recordingPath}"></audio>
            <p><a id="recording" href="${recordingPath}" download>Download the recording</a></p>`
        : call.recording_url
          ? html`<h2>Recording</h2>`
          : html`<p id="no-recording">${isActiveCallStatus(call.status) ? 'No recording yet.' : 'No recording for this call.'}</p>`
    }
    ${storageLine(view.storage)} ${callTimelineSection(call.id, view.timeline, environment)}
    <h2>Transcript</h2>
    ${
      call.transcript?.length
        ? html`<ol id="transcript">
            ${call.transcript.map((entry) => html`<li><strong data-speaker="${entry.role}">${labelOf(SPEAKER_LABELS, entry.role)}</strong> ${toSecond(entry.timestamp)}: ${transcriptText(entry)}</li>`)}
          </ol>`
        : html`<p id="no-transcript">Nothing said yet.</p>`
    }
  </section>`;
}

/** An entry as read on the page: key presses, tool calls and cut-off replies say so. */
function transcriptText(entry: NonNullable<CallRecord['transcript']>[number]): Html {
  if (entry.kind === 'dtmf') return html`<em>pressed</em> ${entry.text}`;
  if (entry.kind === 'tool' && entry.tool)
    return html`<em>called</em> <code>${entry.tool.name}</code>(${JSON.stringify(entry.tool.arguments)}) →
      ${entry.tool.error === null ? html`<code>${entry.tool.result}</code>` : html`<em>failed: ${entry.tool.error}</em>`}`;
  if (entry.interrupted) return html`${entry.text} <em>(interrupted: the caller heard only this)</em>`;
  return html`${entry.text}`;
}

/** A call's page: its live part (with its timeline and recording), its Temporal history to download and (when configured) to open in the Temporal UI. */
export function callPage(
  nav: PageNav,
  view: CallView,
  temporalUiUrl: string | undefined,
  mayHangUp: boolean,
  campaign?: { id: string; name: string | null; row: number; attempt: number },
  /** The active legal holds that keep the call, shown to owners and admins only (undefined: not shown). */
  holds?: readonly LegalHoldRow[],
): Html {
  const { call } = view;
  return layout(
    `Call to ${call.to_number}`,
    html`<p>
        ${stateLabel(call.direction)} call from <span class="mono">${call.from_number}</span> to
        <span class="mono">${call.to_number}</span>, created ${toSecond(call.created_at)}, on
        <a href="/portal/lines/${call.line_id}?env=${nav.environment}">its line</a>.
      </p>
      ${
        campaign
          ? html`<p id="call-campaign">
              Placed by the campaign
              <a href="/portal/campaigns/${campaign.id}?env=${nav.environment}">${campaign.name ?? 'without a name'}</a>, for its contact on
              row ${campaign.row} (attempt ${campaign.attempt}).
            </p>`
          : ''
      }
      ${callLive(view, nav.environment, mayHangUp ? { csrfToken: nav.csrfToken } : undefined)}
      ${legalHoldSection(call.id, holds, nav.environment)}
      <h2>Workflow</h2>
      <p>
        <a id="history" href="/portal/calls/${call.id}/history.json?env=${nav.environment}" download
          >Download the call's Temporal history (JSON)</a
        >
      </p>
      ${
        temporalUiUrl
          ? html`<p><a id="temporal-ui" href="${temporalUiUrl}">Open the call's workflow in the Temporal UI</a></p>`
          : html`<p id="no-temporal-ui">No Temporal UI link: set <code>TEMPORAL_UI_URL</code> to link calls to their workflows.</p>`
      }
      <p><a href="/portal/calls?env=${nav.environment}">All calls</a></p>`,
    nav,
  );
}

/**
 * Whether the call is on legal hold (issue 32): directly or through its from or to number. Holds name litigation, so only
 * owners and admins see them (as the API lists them), with a way to place one on this call.
 */
function legalHoldSection(callId: string, holds: readonly LegalHoldRow[] | undefined, environment: string): Html {
  if (holds === undefined) return html``;
  const settings = `/portal/settings?env=${environment}`;
  if (holds.length === 0)
    return html`<h2>Legal hold</h2>
      <p id="legal-hold">
        Not on legal hold: the recordings retention applies.
        <a id="place-legal-hold" href="${settings}&amp;hold_call_id=${callId}#legal-hold-form">Place a legal hold on this call</a>
      </p>`;
  return html`<h2>Legal hold</h2>
    <p id="legal-hold" data-held>On legal hold: its stored recording and transcript are kept past the retention until released.</p>
    <ul id="call-legal-holds">
      ${holds.map(
        (hold) =>
          html`<li data-legal-hold-id="${hold.id}">
            ${hold.call_id ? 'On this call' : html`Through the number <span class="mono">${hold.phone_number}</span>`} since
            ${time(hold.created_at)}: ${hold.reason}
          </li>`,
      )}
    </ul>
    <p><a href="${settings}#legal-holds">Manage legal holds</a></p>`;
}

/** A size as a person reads it: bytes, KB or MB (1024-based, one decimal). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Where the copy of the call's recording and transcript into the operator's store stands (issue 32, `recording_storage`
 * of `GET /calls/{id}`): in words, with the state's and the failure's values in `data-*` for matching the page to the API.
 */
function storageLine(storage: RecordingStorage | undefined): Html {
  if (!storage || storage.state === 'none') return html``;
  const failure = storage.last_failure;
  const said = (() => {
    switch (storage.state) {
      case 'pending':
        return html`Being copied to your storage.`;
      case 'retrying':
        return html`Not in your storage yet: the copy has been failing since ${time(storage.failing_since)}
        (${labelOf(COPY_FAILURE_REASON_LABELS, failure!.reason)}; ${storage.attempts}
        ${storage.attempts === 1 ? 'failed attempt' : 'failed attempts'}, the last ${time(failure!.at, 'second')}). It is retried until the
        store takes it; the recording plays from the carrier meanwhile.`;
      case 'failed':
        return html`Not copied to your storage: ${labelOf(COPY_FAILURE_REASON_LABELS, failure!.reason)} (${time(failure!.at, 'second')}).
        The copy is tried again within the week.`;
      case 'stored': {
        const at =
          storage.objects
            .map((o) => o.stored_at)
            .sort()
            .at(-1) ?? null;
        return html`In your storage, verified: ${storage.objects.map((o) => `${o.kind} ${formatBytes(o.size_bytes)}`).join(', ')}; stored
        ${time(at, 'second')}.`;
      }
      case 'deleted':
        return html`Deleted from your storage by the retention ${time(storage.deleted_at)}.`;
    }
  })();
  return html`<p
    id="recording-storage"
    data-storage-state="${storage.state}"
    ${failure ? html`data-failure-reason="${failure.reason}"` : ''}
  >
    ${stateBadge(storage.state)} ${said}
  </p>`;
}
