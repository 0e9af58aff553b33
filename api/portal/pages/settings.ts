import type { WorkspaceCallingWindow } from '../../../src/domain/callingHours/rules';
import { TIME_ZONES } from '../../../src/domain/workspaces/timeZone';
import { callingHoursSection } from './callingHours';
import { option, time } from '../components';
import { html, type Html } from '../html';
import { csrfField, formOutcome, layout, type PageNav, type ShownError } from '../layout';
import { renderTimeZone } from '../timeZoneScope';

export interface SettingsPageInput {
  /** This environment's calling window (settings `calling_window`). */
  callingWindow: WorkspaceCallingWindow | null;
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
      ${callingHoursSection(nav, input.callingWindow, input.callingForm)}
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
