import { html, type Html } from '../html';
import { csrfField, errorBox, layout, type ShownError } from '../layout';

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

export function loginPage(input: { csrfToken: string; email?: string; error?: ShownError; notice?: string }): Html {
  return layout(
    'Log in',
    html`${errorBox(input.error)} ${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ''}
      <form method="post" action="/portal/login" class="card">
        ${csrfField(input.csrfToken)}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ''}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Log in</button>
      </form>
      <p>New here? <a href="/portal/signup">Create a workspace</a></p>`,
  );
}
