import { CONTACT_OUTCOMES, LIVE_CAMPAIGN_STATUSES } from '../../../src/domain/campaigns/rules';
import type { toContactResult } from '../../../src/domain/campaigns/records';
import { confirmLink, envFields, postButton, stateBadge, table, time } from '../components';
import { html, type Html } from '../html';
import { ANSWERING_MACHINE_LABELS, CONTACT_OUTCOME_LABELS, labelOf, PAUSED_REASON_LABELS, SKIP_REASON_LABELS } from '../labels';
import type { LineChoice } from '../lineChoices';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';
import { campaignName, doneOf, type CampaignRecord } from './campaigns';
import { formatCents } from './overview';

type ContactResult = ReturnType<typeof toContactResult>;

/** What the live part of a campaign's page shows. */
export interface CampaignLiveInput {
  campaign: CampaignRecord;
  /** A page of its contacts' results in list order, from row `after` + 1. */
  results: ContactResult[];
  after: number;
  nextAfter: string | null;
  /** May pause, resume and cancel (calls:control). */
  mayControl: boolean;
}

export interface CampaignPageInput extends CampaignLiveInput {
  /** Its pool lines, by id (a line since released keeps its name). */
  lines: ReadonlyMap<string, LineChoice>;
  notice?: string;
  error?: ShownError;
}

/**
 * Whether the campaign's figures may still change: it may still dial, or a call it placed is still going on (a
 * cancelled campaign's calls in progress go on to their end). While so, its live part reloads itself.
 */
export function stillChanging(campaign: CampaignRecord): boolean {
  return LIVE_CAMPAIGN_STATUSES.includes(campaign.status) || campaign.progress.dialing > 0;
}

/**
 * The live part of a campaign's page: its status, why it paused, its progress (contacts done of all, by status and by
 * outcome), the controls its status allows and the page of contacts shown. htmx reloads it every 3 s (GET /portal/campaigns/:id/live, this same
 * fragment) while the figures may change; the fragment that shows it ended carries no trigger, so the polling stops.
 */
export function campaignLive(input: CampaignLiveInput, nav: Pick<PageNav, 'environment' | 'csrfToken'>): Html {
  const { campaign, mayControl } = input;
  const changing = stillChanging(campaign);
  const after = input.after > 0 ? html`&amp;after=${input.after}` : '';
  const polling = changing
    ? html`hx-get="/portal/campaigns/${campaign.id}/live?env=${nav.environment}${after}" hx-trigger="every 3s" hx-swap="outerHTML"`
    : '';
  const { progress } = campaign;
  const outcomes = CONTACT_OUTCOMES.filter((outcome) => progress[outcome] > 0);
  return html`<section id="campaign-live" aria-labelledby="progress-title" ${polling} ${changing ? html`data-changing` : ''}>
    <h2 id="progress-title">Progress</h2>
    <p>
      Status <span data-campaign-status="${campaign.status}">${stateBadge(campaign.status)}</span>
      ${
        campaign.paused_reason
          ? html`<span id="paused-reason" data-paused-reason="${campaign.paused_reason}"
              >: paused itself. ${labelOf(PAUSED_REASON_LABELS, campaign.paused_reason)}.</span
            >`
          : ''
      }
      ${campaign.ended_at ? html`<span id="ended-at">, ended ${time(campaign.ended_at)}</span>` : ''}
    </p>
    <label for="campaign-progress">${doneOf(campaign)}</label>
    <progress id="campaign-progress" max="${Math.max(progress.total, 1)}" value="${progress.done}" data-done="${progress.done}">
      ${doneOf(campaign)}
    </progress>
    <dl class="stats" id="contact-counts">
      <div>
        <dt>Contacts</dt>
        <dd data-count="total">${progress.total}</dd>
      </div>
      <div>
        <dt>Waiting</dt>
        <dd data-count="pending">${progress.pending}</dd>
      </div>
      <div>
        <dt>On a call now</dt>
        <dd data-count="dialing">${progress.dialing}</dd>
      </div>
      <div>
        <dt>Done</dt>
        <dd data-count="done">${progress.done}</dd>
      </div>
    </dl>
    <h3>Done, by outcome</h3>
    ${
      outcomes.length
        ? html`<dl class="stats" id="outcome-counts">
            ${outcomes.map(
              (outcome) =>
                html`<div>
                  <dt>${labelOf(CONTACT_OUTCOME_LABELS, outcome)}</dt>
                  <dd data-outcome="${outcome}">${progress[outcome]}</dd>
                </div>`,
            )}
          </dl>`
        : html`<p id="no-outcomes">No contact is done yet.</p>`
    }
    ${mayControl ? controls(campaign, nav) : ''} ${resultsTable(nav, input)}
  </section>`;
}

/** Pause or resume (one button, as the status allows) and cancel (behind its confirmation); none once it has ended. */
function controls(campaign: CampaignRecord, nav: Pick<PageNav, 'environment' | 'csrfToken'>): Html | string {
  if (!LIVE_CAMPAIGN_STATUSES.includes(campaign.status)) return '';
  const base = `/portal/campaigns/${campaign.id}`;
  const hidden = envFields(nav);
  const toggle =
    campaign.status === 'paused'
      ? postButton(`${base}/resume`, 'Resume', hidden, { id: 'resume' })
      : postButton(`${base}/pause`, 'Pause', hidden, { id: 'pause' });
  return html`<div class="campaign-controls">
    ${toggle} ${confirmLink(`${base}/cancel?env=${nav.environment}`, 'Cancel campaign…', { id: 'cancel' })}
  </div>`;
}

/** A campaign's settings, as it was created. */
function settings(campaign: CampaignRecord, nav: PageNav, lines: ReadonlyMap<string, LineChoice>): Html {
  const retry = campaign.retry;
  const row = (label: string, value: unknown) =>
    html`<div>
      <dt>${label}</dt>
      <dd>${value}</dd>
    </div>`;
  return html`<h2>Settings</h2>
    <dl class="details" id="campaign-settings">
      ${row(
        'Lines',
        html`<ul>
          ${campaign.line_ids.map((id) => {
            const line = lines.get(id);
            return html`<li>
              <a href="/portal/lines/${id}?env=${nav.environment}">${line?.name ?? 'line'}</a>
              <span class="mono">${line?.phoneNumber ?? ''}</span>
            </li>`;
          })}
        </ul>`,
      )}
      ${row('What each call is', campaign.topic ? html`A hosted conversation about: ${campaign.topic}` : "As each line's mode decides")}
      ${campaign.begin_message ? row('First words', campaign.begin_message) : ''}
      ${campaign.max_duration_seconds ? row('Longest conversation', `${campaign.max_duration_seconds} s`) : ''}
      ${row(
        'When a machine answers',
        campaign.answering_machine
          ? html`${labelOf(ANSWERING_MACHINE_LABELS, campaign.answering_machine.action)}${
              campaign.answering_machine.voicemail_message ? html`: “${campaign.answering_machine.voicemail_message}”` : ''
            }`
          : campaign.machine_detection === 'detect'
            ? 'Detected, then as with a person'
            : 'Not detected',
      )}
      ${row('Starts', time(campaign.start_at))}
      ${row('Pace', `${campaign.calls_per_minute} calls a minute, at most ${campaign.max_concurrency} at once`)}
      ${row(
        'Retries',
        retry.max_attempts > 1
          ? `Up to ${retry.max_attempts} attempts, ${retry.backoff_seconds} s apart, when ${retry.on.map((o) => labelOf(CONTACT_OUTCOME_LABELS, o).toLowerCase()).join(', ')}`
          : 'None: one attempt per contact',
      )}
      ${row('Created', time(campaign.created_at))}
    </dl>`;
}

/** A contact's outcome: its badge, with why it was skipped. */
function outcomeCell(result: ContactResult): Html | string {
  if (!result.outcome) return '—';
  const badge = stateBadge(result.outcome);
  return result.skip_reason
    ? html`${badge} <span data-skip-reason="${result.skip_reason}">${labelOf(SKIP_REASON_LABELS, result.skip_reason)}</span>`
    : badge;
}

function resultsTable(nav: Pick<PageNav, 'environment'>, input: CampaignLiveInput): Html {
  const { campaign } = input;
  const base = `/portal/campaigns/${campaign.id}`;
  return html`<h2 id="results-title">Contacts</h2>
    <p>
      <a id="results-csv" href="${base}/results.csv?env=${nav.environment}" download>Download every contact's result as CSV</a>
    </p>
    ${table({
      id: 'results',
      labelledBy: 'results-title',
      rows: input.results,
      rowData: (result) => ({ row: result.row, 'contact-status': result.status, outcome: result.outcome ?? '' }),
      empty: html`<p id="no-results">No contacts ${input.after > 0 ? 'after these' : ''}.</p>`,
      columns: [
        { header: 'Row', numeric: true, cell: (result) => result.row },
        { header: 'Number', cellClass: 'mono', cell: (result) => result.to_number },
        { header: 'Status', cell: (result) => stateBadge(result.status) },
        { header: 'Outcome', cell: outcomeCell },
        { header: 'Attempts', numeric: true, cell: (result) => result.attempts },
        { header: 'Next attempt', cell: (result) => time(result.next_attempt_at) },
        { header: 'Seconds', numeric: true, cell: (result) => result.duration_sec },
        { header: 'Charge', numeric: true, cell: (result) => formatCents(result.charge_cents) },
        {
          header: 'Calls',
          cell: (result) =>
            result.call_ids.length
              ? html`${result.call_ids.map(
                  (id, index) =>
                    html`<a href="/portal/calls/${id}?env=${nav.environment}" aria-label="Call ${index + 1} of row ${result.row}"
                      >Call ${index + 1}</a
                    > `,
                )}`
              : '—',
        },
      ],
    })}
    <p>
      ${input.after > 0 ? html`<a id="first-results" href="${base}?env=${nav.environment}">First contacts</a> ` : ''}
      ${input.nextAfter ? html`<a id="more-results" href="${base}?env=${nav.environment}&amp;after=${input.nextAfter}">More contacts</a>` : ''}
    </p>`;
}

/** A campaign's page: its progress (live while it runs), controls, settings and per-contact results with links to their calls. */
export function campaignPage(nav: PageNav, input: CampaignPageInput): Html {
  const { campaign } = input;
  return layout(
    campaignName(campaign),
    html`${errorBox(input.error)} ${input.notice ? html`<p class="notice" role="status" id="campaign-notice">${input.notice}</p>` : ''}
      <p><a href="/portal/campaigns?env=${nav.environment}">All campaigns</a></p>
      ${campaignLive(input, nav)} ${settings(campaign, nav, input.lines)}`,
    nav,
  );
}
