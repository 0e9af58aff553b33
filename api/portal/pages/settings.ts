import type { WorkspaceCallingWindow } from '../../../src/domain/callingHours/rules';
import { TIME_ZONES } from '../../../src/domain/workspaces/timeZone';
import { callingHoursSection } from './callingHours';
import { option, time } from '../components';
import { html, type Html } from '../html';
import { csrfField, formOutcome, layout, type PageNav, type ShownError } from '../layout';
import { renderTimeZone } from '../timeZoneScope';
import type { LegalHoldRow } from '../../../src/domain/recordings/store';

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
 * Recordings retention and legal holds (issue 32), read-only: changed through the API (`PATCH /api/v1/settings`,
 * `/api/v1/legal-holds`). Holds are listed to owners and admins only, as the API lists them.
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
            </tr>
          </thead>
          <tbody>
            ${input.legalHolds.map(
              (hold) =>
                html`<tr>
                  <td>
                    ${hold.call_id ? html`call <a href="/portal/calls/${hold.call_id}?env=${nav.environment}">${hold.call_id}</a>` : hold.phone_number}
                  </td>
                  <td>${hold.reason}</td>
                  <td>${time(hold.created_at)}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  return html`${explained} ${holds}`;
}
