import type { WorkspaceCallingWindow } from '../../../src/domain/callingHours/rules';
import { TIME_ZONES } from '../../../src/domain/workspaces/timeZone';
import { callingHoursSection } from './callingHours';
import { confirmLink, option, time } from '../components';
import { html, type Html } from '../html';
import { csrfField, formOutcome, layout, type PageNav, type ShownError } from '../layout';
import { renderTimeZone } from '../timeZoneScope';
import type { LegalHoldRow } from '../../../src/domain/recordings/store';
import { LEGAL_HOLD_REASON_MAX_LENGTH } from '../../../src/domain/recordings/legalHolds';

export interface SettingsPageInput {
  /** This environment's calling window (settings `calling_window`). */
  callingWindow: WorkspaceCallingWindow | null;
  /** This environment's `recordings.retention_days` (null: kept for ever) and its active legal holds (issue 32). */
  retentionDays: number | null;
  legalHolds: LegalHoldRow[];
  error?: ShownError;
  notice?: string;
  typedTimeZone?: string;
  /** The calling-hours form as typed, when its change was refused. */
  callingForm?: Record<string, string>;
  /** The legal-hold form as typed (refused), or with a call's id filled in (a call's page links here). */
  holdForm?: Record<string, string>;
}

export function settingsPage(nav: PageNav, input: SettingsPageInput): Html {
  return layout(
    'Settings',
    html`${formOutcome(input.error, input.notice)} ${timeZoneSection(nav, input.typedTimeZone)}
      ${callingHoursSection(nav, input.callingWindow, input.callingForm)} ${retentionSection(nav, input)}
      <h2>Change password</h2>
      <form method="post" action="/portal/settings/password" class="card">
        ${csrfField(nav.csrfToken)}
        <label for="current_password">Current password</label>
        <input id="current_password" name="current_password" type="password" autocomplete="current-password" required />
        <label for="new_password">New password (at least 10 characters)</label>
        <input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="10" />
        <button type="submit">Change password</button>
      </form>
      <p>Changing the password signs out every other session.</p>`,
    nav,
  );
}

/**
 * The workspace's time zone (the one this page is rendered in): owners and admins change it, as they change
 * the workspace's other settings; everyone reads it.
 */
function timeZoneSection(nav: PageNav, typed: string | undefined): Html {
  const current = renderTimeZone();
  const explained = html`<p>
    The portal shows every time in <strong id="time-zone">${current}</strong> (now: ${time(new Date())}); hover a time for UTC. The API, CSV
    exports and links stay in UTC.
  </p>`;
  if (!nav.managesMembers)
    return html`<h2>Time zone</h2>
      ${explained}
      <p>Owners and admins change it.</p>`;
  return html`<h2>Time zone</h2>
    ${explained}
    <form method="post" action="/portal/settings/time-zone" class="card">
      ${csrfField(nav.csrfToken)}
      <input type="hidden" name="env" value="${nav.environment}" />
      <label for="time_zone">Time zone (IANA name)</label>
      <select id="time_zone" name="time_zone">
        ${TIME_ZONES.includes(current) ? '' : option(current, typed ?? current)} ${TIME_ZONES.map((zone) => option(zone, typed ?? current))}
      </select>
      <button type="submit">Save time zone</button>
    </form>`;
}

/**
 * Recordings retention and legal holds (issue 32). The retention is changed through the API (`PATCH /api/v1/settings`);
 * holds are listed to owners and admins only, as the API lists them, who place and release them here as there.
 */
function retentionSection(nav: PageNav, input: SettingsPageInput): Html {
  const kept =
    input.retentionDays === null
      ? 'kept until deleted'
      : `deleted ${input.retentionDays} ${input.retentionDays === 1 ? 'day' : 'days'} after they were stored, unless on legal hold`;
  const explained = html`<h2>Recordings retention</h2>
    <p>Stored recordings and transcripts of this environment’s calls are <strong id="recordings-retention">${kept}</strong>.</p>`;
  if (!nav.managesMembers) return explained;
  const holds =
    input.legalHolds.length === 0
      ? html`<p id="legal-holds">No legal hold is in force.</p>`
      : html`<table id="legal-holds">
          <thead>
            <tr>
              <th>Holds</th>
              <th>Reason</th>
              <th>Since</th>
              <th><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${input.legalHolds.map(
              (hold) =>
                html`<tr data-legal-hold-id="${hold.id}">
                  <td>
                    ${hold.call_id ? html`call <a href="/portal/calls/${hold.call_id}?env=${nav.environment}">${hold.call_id}</a>` : hold.phone_number}
                  </td>
                  <td>${hold.reason}</td>
                  <td>${time(hold.created_at)}</td>
                  <td>
                    ${confirmLink(`/portal/settings/legal-holds/${hold.id}/release?env=${nav.environment}`, 'Release…', {
                      ariaLabel: `Release the legal hold on ${hold.call_id ? `call ${hold.call_id}` : hold.phone_number}`,
                    })}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  return html`${explained}
    <h3>Legal holds</h3>
    ${holds} ${holdForm(nav, input.holdForm ?? {})}`;
}

/** Placing a hold: a call's id or a phone number (every call from or to it), and why, as `POST /api/v1/legal-holds` takes them. */
function holdForm(nav: PageNav, typed: Record<string, string>): Html {
  return html`<form method="post" action="/portal/settings/legal-holds" class="card" id="legal-hold-form">
    ${csrfField(nav.csrfToken)}
    <input type="hidden" name="env" value="${nav.environment}" />
    <p>
      Hold one call, or every call from or to a phone number: its stored recording and transcript outlive the retention until the hold is
      released.
    </p>
    <label for="hold_call_id">Call id</label>
    <input id="hold_call_id" name="call_id" value="${typed.call_id ?? ''}" autocomplete="off" />
    <label for="hold_phone_number">or phone number</label>
    <input id="hold_phone_number" name="phone_number" type="tel" value="${typed.phone_number ?? ''}" autocomplete="off" />
    <label for="hold_reason">Reason (kept for the audit)</label>
    <textarea id="hold_reason" name="reason" required maxlength="${LEGAL_HOLD_REASON_MAX_LENGTH}">${typed.reason ?? ''}</textarea>
    <button type="submit">Place legal hold</button>
  </form>`;
}
