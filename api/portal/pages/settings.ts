import { html, type Html } from '../html';
import { csrfField, formOutcome, layout, type PageNav, type ShownError } from '../layout';

export function settingsPage(nav: PageNav, input: { error?: ShownError; notice?: string } = {}): Html {
  return layout(
    'Settings',
    html`${formOutcome(input.error, input.notice)}
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
