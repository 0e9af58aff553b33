import {
  ANSWERING_MACHINE_ACTIONS,
  CAMPAIGN_STATUSES,
  DEFAULT_CALLS_PER_MINUTE,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_RETRY_BACKOFF_SECONDS,
  MAX_ATTEMPTS,
  MAX_POOL_LINES,
  MAX_RETRY_BACKOFF_SECONDS,
  RETRYABLE_OUTCOMES,
  WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE,
} from '../../../src/domain/campaigns/rules';
import type { toCampaignRecord } from '../../../src/domain/campaigns/records';
import { hiddenFields, envFields, option, stateBadge, table, time } from '../components';
import { choiceSelect, listQuery } from '../filterFields';
import { html, type Html } from '../html';
import { ANSWERING_MACHINE_LABELS, CAMPAIGN_STATUS_LABELS, CONTACT_OUTCOME_LABELS, labelOf } from '../labels';
import { MAX_CONVERSATION_SECONDS, MIN_CONVERSATION_SECONDS } from '../../../src/domain/calls/conversation';
import type { LineChoice } from '../lineChoices';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

export type CampaignRecord = ReturnType<typeof toCampaignRecord>;

/** The list's filter as the query string carries it; '' is "all" (api/portal/campaignRoutes.ts `CAMPAIGN_FILTERS`). */
export interface CampaignListFilters {
  status: string;
}

export interface CampaignsPageInput {
  campaigns: CampaignRecord[];
  filters: CampaignListFilters;
  olderCursor: string | null;
  /** The lines a new campaign may call from (active ones); undefined when the role cannot create campaigns. */
  pool?: readonly LineChoice[];
  /** A fresh key for the create form, so that a form sent twice creates one campaign. */
  createKey: string;
  /** The create form as typed, when it was refused. */
  form?: Record<string, string>;
  error?: ShownError;
}

/** How far a campaign has got: its contacts done of all, in words (and as a native progress bar on its page). */
export function doneOf(campaign: CampaignRecord): string {
  return `${campaign.progress.done} of ${campaign.progress.total} done`;
}

export function campaignsPage(nav: PageNav, input: CampaignsPageInput): Html {
  const { filters } = input;
  return layout(
    'Campaigns',
    html`${errorBox(input.error)}
      <form method="get" action="/portal/campaigns" class="filters" aria-label="Filter campaigns">
        <input type="hidden" name="env" value="${nav.environment}" />
        ${choiceSelect('status', 'Status', CAMPAIGN_STATUSES, CAMPAIGN_STATUS_LABELS, filters.status)}
        <button type="submit">Filter</button>
      </form>
      ${table({
        id: 'campaigns',
        caption: `Campaigns of the ${nav.environment} environment, newest first`,
        rows: input.campaigns,
        rowData: (campaign) => ({ 'campaign-id': campaign.id, status: campaign.status }),
        empty: html`<p id="no-campaigns">No campaigns match.</p>`,
        columns: [
          {
            header: 'Campaign',
            cell: (campaign) => html`<a href="/portal/campaigns/${campaign.id}?env=${nav.environment}">${campaignName(campaign)}</a>`,
          },
          { header: 'Status', cell: (campaign) => stateBadge(campaign.status) },
          { header: 'Progress', cell: doneOf },
          { header: 'Answered', numeric: true, cell: (campaign) => campaign.progress.answered },
          { header: 'Starts', cell: (campaign) => time(campaign.start_at) },
          { header: 'Created', cell: (campaign) => time(campaign.created_at) },
        ],
      })}
      ${
        input.olderCursor
          ? html`<p>
              <a id="older" href="/portal/campaigns?${listQuery(nav.environment, filters, input.olderCursor)}">Older campaigns</a>
            </p>`
          : ''
      }
      ${input.pool ? createForm(nav, input.pool, input.createKey, input.form ?? {}) : html`<p>Your role cannot create campaigns.</p>`}`,
    nav,
  );
}

/** A campaign's name, or its creation time when it has none. */
export function campaignName(campaign: CampaignRecord): string {
  return campaign.name ?? `Campaign of ${campaign.created_at.slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The create form: the fields of POST /api/v1/campaigns (api/portal/campaignRoutes.ts turns them into its body), the
 * contacts pasted as the API's JSON list, a CSV with its header, or one number a line.
 */
function createForm(nav: PageNav, pool: readonly LineChoice[], createKey: string, form: Record<string, string>): Html {
  const typed = (name: string) => form[name] ?? '';
  const number = (name: string, label: string, attrs: { min: number; max: number; placeholder?: string | number }) =>
    html`<label for="${name}">${label}</label>
      <input
        id="${name}"
        name="${name}"
        type="number"
        inputmode="numeric"
        min="${attrs.min}"
        max="${attrs.max}"
        placeholder="${attrs.placeholder ?? ''}"
        value="${typed(name)}"
      />`;
  const retried = (outcome: string) => (form.idempotency_key ? Boolean(form[`retry_on.${outcome}`]) : true);
  return html`<h2 id="create-title">Create a campaign</h2>
    ${
      pool.length === 0
        ? html`<p id="no-pool">No active line to call from: <a href="/portal/lines?env=${nav.environment}">create a line</a> first.</p>`
        : html`<form method="post" action="/portal/campaigns" class="card" aria-labelledby="create-title">
            ${hiddenFields({ ...envFields(nav), idempotency_key: createKey })}
            <label for="name">Name (optional)</label>
            <input id="name" name="name" type="text" maxlength="200" value="${typed('name')}" />
            <fieldset>
              <legend>Lines to call from (one call at a time each; at most ${MAX_POOL_LINES})</legend>
              ${pool.map(
                (line) =>
                  html`<label class="check"
                    ><input type="checkbox" name="line.${line.id}" value="on" ${form[`line.${line.id}`] ? html`checked` : ''} />
                    ${line.name} <span class="mono">${line.phoneNumber ?? ''}</span></label
                  >`,
              )}
            </fieldset>
            <label for="contacts">Contacts: one phone number a line (E.164), a CSV with its header, or the API's JSON list</label>
            <textarea id="contacts" name="contacts" rows="6" required aria-describedby="contacts-hint" class="mono">
${typed('contacts')}</textarea>
            <p id="contacts-hint" class="hint">
              A CSV whose header names <code>phone_number</code> gives each contact variables (its other columns) and metadata (<code
                >metadata.&lt;key&gt;</code
              >
              columns), as an uploaded contact list; so does a JSON list:
              <code>[{"to_number": "+14155550100", "variables": {"name": "Ada"}}]</code>. A number that is not one, or repeats, is skipped
              and reported.
            </p>
            <label for="topic">Topic (optional: each call is a hosted conversation about it)</label>
            <textarea id="topic" name="topic" rows="3">${typed('topic')}</textarea>
            <label for="begin_message">First words of each conversation (optional, with a topic)</label>
            <input id="begin_message" name="begin_message" type="text" maxlength="1000" value="${typed('begin_message')}" />
            ${number('max_duration_seconds', 'Longest conversation, in seconds (optional, with a topic)', {
              min: MIN_CONVERSATION_SECONDS,
              max: MAX_CONVERSATION_SECONDS,
            })}
            <label for="start_at">Start (UTC; blank: now)</label>
            <input id="start_at" name="start_at" type="datetime-local" value="${typed('start_at')}" />
            ${number('calls_per_minute', `Calls started per minute (default ${DEFAULT_CALLS_PER_MINUTE})`, {
              min: 1,
              max: WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE,
              placeholder: DEFAULT_CALLS_PER_MINUTE,
            })}
            ${number('max_concurrency', 'Calls at once (default: one per line)', { min: 1, max: MAX_POOL_LINES })}
            <fieldset>
              <legend>Retries</legend>
              ${number('max_attempts', `Attempts per contact (default ${DEFAULT_MAX_ATTEMPTS}: no retry)`, {
                min: 1,
                max: MAX_ATTEMPTS,
                placeholder: DEFAULT_MAX_ATTEMPTS,
              })}
              ${number('backoff_seconds', `Seconds between attempts (default ${DEFAULT_RETRY_BACKOFF_SECONDS})`, {
                min: 0,
                max: MAX_RETRY_BACKOFF_SECONDS,
                placeholder: DEFAULT_RETRY_BACKOFF_SECONDS,
              })}
              ${RETRYABLE_OUTCOMES.map(
                (outcome) =>
                  html`<label class="check"
                    ><input type="checkbox" name="retry_on.${outcome}" value="on" ${retried(outcome) ? html`checked` : ''} /> Retry when
                    ${labelOf(CONTACT_OUTCOME_LABELS, outcome).toLowerCase()}</label
                  >`,
              )}
            </fieldset>
            <label class="check"
              ><input type="checkbox" name="machine_detection" value="on" ${form.machine_detection ? html`checked` : ''} /> Detect answering
              machines (a few seconds after each answer; always with the choice below)</label
            >
            <label for="answering_machine">When a machine answers</label>
            <select id="answering_machine" name="answering_machine">
              ${option('', typed('answering_machine'), 'Go on as with a person')}
              ${ANSWERING_MACHINE_ACTIONS.map((action) => option(action, typed('answering_machine'), ANSWERING_MACHINE_LABELS[action]))}
            </select>
            <label for="voicemail_message">Voicemail message (with "leave a voicemail")</label>
            <textarea id="voicemail_message" name="voicemail_message" rows="2">${typed('voicemail_message')}</textarea>
            <button type="submit">Create campaign</button>
          </form>`
    }`;
}
