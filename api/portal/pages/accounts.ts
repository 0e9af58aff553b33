import { html, type Html } from '../html';
import { csrfField, errorBox, formOutcome, layout, type ShownError } from '../layout';

/** The email field of the sign-in forms (log in, password reset), keeping what was typed. */
function signInEmailField(email: string | undefined): Html {
  return html`<label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${email ?? ''}" />`;
}

/** The signup and login pages; the values typed are kept on an error, never the password. */

export function signupPage(input: { csrfToken: string; email?: string; workspaceName?: string; error?: ShownError }): Html {
  return layout(
    'Create your workspace',
    html`${errorBox(input.error)}
      <form method="post" action="/portal/signup" class="card">
        ${csrfField(input.csrfToken)}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="email" required value="${input.email ?? ''}" />
        <label for="password">Password (at least 10 characters)</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" />
        <label for="workspace_name">Workspace name (optional)</label>
        <input id="workspace_name" name="workspace_name" type="text" autocomplete="organization" value="${input.workspaceName ?? ''}" />
        <button type="submit">Sign up</button>
      </form>
      <p>Already have an account? <a href="/portal/login">Log in</a></p>`,
  );
}

export function loginPage(input: { csrfToken: string; email?: string; error?: ShownError; notice?: string; signupOpen?: boolean }): Html {
  return layout(
    'Log in',
    html`${formOutcome(input.error, input.notice)}
      <form method="post" action="/portal/login" class="card">
        ${csrfField(input.csrfToken)} ${signInEmailField(input.email)}
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Log in</button>
      </form>
      <p><a href="/portal/password/forgot">Forgot your password?</a></p>
      ${input.signupOpen === false ? '' : html`<p>New here? <a href="/portal/signup">Create a workspace</a></p>`}`,
  );
}

/** After a signup, or when a visitor asks again: where the verification link went, and a form to send it again. */
export function checkInboxPage(input: {
  csrfToken: string;
  email: string;
  mailed: boolean;
  awaitingApproval?: boolean;
  notice?: string;
}): Html {
  return layout(
    'Check your inbox',
    html`${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ''}
      ${
        input.mailed
          ? html`<p>
              We sent a link to <strong data-email>${input.email}</strong>. Follow it to confirm the address; until then the workspace
              cannot be used.
            </p>`
          : html`<div class="error" role="alert">
              <p>We could not send the link to <strong data-email>${input.email}</strong> just now. Ask for it again below.</p>
            </div>`
      }
      ${input.awaitingApproval ? html`<p>An operator of this service then approves the workspace; we do not send a message when that happens, so try to log in later.</p>` : ''}
      <form method="post" action="/portal/verify/resend" class="card">
        ${csrfField(input.csrfToken)}
        <input type="hidden" name="email" value="${input.email}" />
        <button type="submit">Send the link again</button>
      </form>`,
  );
}

/** The page a verification link opens: a button, so that a mail scanner fetching the link uses nothing up. */
export function verifyPage(input: { csrfToken: string; token: string }): Html {
  return layout(
    'Confirm your email address',
    html`<form method="post" action="/portal/verify" class="card">
      ${csrfField(input.csrfToken)}
      <input type="hidden" name="token" value="${input.token}" />
      <p>Confirm that this address is yours to start using your workspace.</p>
      <button type="submit">Confirm my address</button>
    </form>`,
  );
}

export function awaitingApprovalPage(): Html {
  return layout(
    'Waiting for approval',
    html`<p class="notice" role="status">
        Your address is confirmed. An operator of this service approves each new workspace before it can be used: log in once it is
        approved.
      </p>
      <p><a href="/portal/login">Log in</a></p>`,
  );
}

export function forgotPasswordPage(input: { csrfToken: string; email?: string; notice?: string; error?: ShownError }): Html {
  return layout(
    'Reset your password',
    html`${formOutcome(input.error, input.notice)}
      <form method="post" action="/portal/password/forgot" class="card">
        ${csrfField(input.csrfToken)} ${signInEmailField(input.email)}
        <button type="submit">Mail me a reset link</button>
      </form>
      <p><a href="/portal/login">Log in</a></p>`,
  );
}

export function resetPasswordPage(input: { csrfToken: string; token: string; error?: ShownError }): Html {
  return layout(
    'Choose a new password',
    html`${errorBox(input.error)}
      <form method="post" action="/portal/password/reset" class="card">
        ${csrfField(input.csrfToken)}
        <input type="hidden" name="token" value="${input.token}" />
        <label for="password">New password (at least 10 characters)</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" />
        <button type="submit">Set the password</button>
      </form>`,
  );
}
