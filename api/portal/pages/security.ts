import { html, type Html } from '../html';
import { csrfField, errorBox, formOutcome, layout, type PageNav, type ShownError } from '../layout';
import { confirmLink, copyButton } from '../components';

/** Two-factor sign-in pages (issue 27): the second step of a sign-in, and the user's security page. */

export function secondFactorPage(input: { csrfToken: string; error?: ShownError }): Html {
  return layout(
    'Two-factor sign-in',
    html`${errorBox(input.error)}
      <form method="post" action="/portal/login/code" class="card">
        ${csrfField(input.csrfToken)}
        <label for="code">The 6-digit code from your authenticator app, or one of your recovery codes</label>
        <input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" required autofocus />
        <button type="submit">Verify</button>
      </form>
      <p><a href="/portal/login">Start again</a></p>`,
  );
}

export interface SecurityView {
  enabled: boolean;
  required: boolean;
  isOwner: boolean;
  recoveryCodesLeft: number;
  /** Set while enrolling: the secret to add to an authenticator app. */
  pending?: { secret: string; uri: string };
  /** Shown once, right after enrolment. */
  recoveryCodes?: string[];
  notice?: string;
  error?: ShownError;
}

export function securityPage(nav: PageNav, view: SecurityView): Html {
  return layout(
    'Security',
    html`${formOutcome(view.error, view.notice)}
      ${
        view.required && !view.enabled
          ? html`<p class="notice" role="status">This workspace requires two-factor sign-in: set it up to continue using the portal.</p>`
          : ''
      }
      <h2>Two-factor sign-in</h2>
      ${view.recoveryCodes ? recoveryCodesBlock(view.recoveryCodes) : ''}
      ${view.enabled ? enabledBlock(view) : view.pending ? enrolBlock(nav, view.pending) : startBlock(nav)}
      ${view.isOwner ? requirementBlock(nav, view) : ''}`,
    nav,
  );
}

function startBlock(nav: PageNav): Html {
  return html`<p>Two-factor sign-in is <strong>off</strong>: signing in needs only your password.</p>
    <form method="post" action="/portal/security/two-factor" class="card">
      ${csrfField(nav.csrfToken)}
      <button type="submit">Set up an authenticator app</button>
    </form>`;
}

function enrolBlock(nav: PageNav, pending: { secret: string; uri: string }): Html {
  return html`<form method="post" action="/portal/security/two-factor/confirm" class="card">
    ${csrfField(nav.csrfToken)}
    <p>Add this account to your authenticator app, by its setup link or by typing the key:</p>
    <p>Key: <code id="totp-secret" class="mono" data-totp-secret>${pending.secret}</code> ${copyButton('totp-secret', 'the setup key')}</p>
    <p>Setup link: <a class="mono" href="${pending.uri}" data-totp-uri>${pending.uri}</a></p>
    <label for="code">Then type the 6-digit code it shows</label>
    <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required />
    <button type="submit">Turn on two-factor sign-in</button>
  </form>`;
}

function recoveryCodesBlock(codes: string[]): Html {
  return html`<div class="secret" data-recovery-codes>
    <p><strong>Your recovery codes.</strong> Keep them somewhere safe: each signs you in once without the app. They are shown only now.</p>
    <ul id="recovery-codes">
      ${codes.map((code) => html`<li><code class="mono">${code}</code></li>`)}
    </ul>
    ${copyButton('recovery-codes', 'the recovery codes')}
  </div>`;
}

function enabledBlock(view: SecurityView): Html {
  return html`<p>Two-factor sign-in is <strong>on</strong>. Recovery codes left: ${view.recoveryCodesLeft}.</p>
    <p>${confirmLink('/portal/security/recovery-codes', 'Make new recovery codes…', { id: 'renew-recovery-codes' })}</p>
    ${
      view.required
        ? html`<p>Your workspace requires it, so it cannot be turned off.</p>`
        : html`<p>${confirmLink('/portal/security/two-factor/remove', 'Turn off two-factor sign-in…', { id: 'turn-off-two-factor' })}</p>`
    }`;
}

function requirementBlock(nav: PageNav, view: SecurityView): Html {
  return html`<h2>Workspace</h2>
    <p>Two-factor sign-in is <strong>${view.required ? 'required' : 'not required'}</strong> of every member.</p>
    <form method="post" action="/portal/security/require" class="card">
      ${csrfField(nav.csrfToken)}
      <input type="hidden" name="required" value="${view.required ? 'false' : 'true'}" />
      <button type="submit">${view.required ? 'Stop requiring two-factor sign-in' : 'Require two-factor sign-in of every member'}</button>
    </form>`;
}
