import type { ApiKeyRow } from '../../../src/domain/keys/store';
import type { Scope } from '../../../src/domain/keys/scopes';
import { html, type Html } from '../html';
import { hiddenFields } from '../components';
import { errorBox, layout, type ShownError } from '../layout';
import { grantFields } from './apiKeys';

/** Who is consenting, in which environment, with their session's CSRF token. */
export interface ConsentVisitor {
  email: string;
  environment: 'test' | 'live';
  csrfToken: string;
}

export interface ConsentPageInput {
  requestId: string;
  clientName: string;
  /** Where the client's redirect URI points (its host, or its scheme for an app). */
  clientDestination: string;
  parents: ApiKeyRow[];
  scopes: readonly Scope[];
  lines: Array<{ id: string; name: string; phone_number: string | null }>;
  /** Scopes the client asked for that the parent may hold: ticked on a fresh form. */
  presetScopes: readonly Scope[];
  form?: Record<string, string>;
  error?: ShownError;
}

/**
 * The consent page of an OAuth authorization (issue 29): the signed-in person chooses the key the
 * client acts below and narrows it (scopes, lines, spend limit) into a delegated token, or declines.
 * No portal navigation: the page is one decision, and its environment switch keeps the request.
 */
export function consentPage(nav: ConsentVisitor, input: ConsentPageInput): Html {
  const hidden = hiddenFields({ csrf_token: nav.csrfToken, env: nav.environment, request: input.requestId });
  const other = nav.environment === 'test' ? 'live' : 'test';
  const switchLink = html`<p class="env">
    Signed in as ${nav.email} · Environment: <strong>${nav.environment}</strong> ·
    <a href="/portal/oauth/consent?request=${input.requestId}&env=${other}">use a ${other} key instead</a>
  </p>`;
  const decline = html`<button type="submit" name="decision" value="deny" formnovalidate class="danger" id="consent-deny">Deny</button>`;
  const body =
    input.parents.length === 0
      ? html`${switchLink}
          <p id="no-parents">
            The client acts as a delegated token below one of your keys holding <code>keys:admin</code>, and you have none live in the
            ${nav.environment} environment: mint one on <a href="/portal/api-keys?env=${nav.environment}">API keys</a>, then reload this
            page.
          </p>
          <form method="post" action="/portal/oauth/consent" class="card" id="consent">${hidden} ${decline}</form>`
      : html`${switchLink}
          <form method="post" action="/portal/oauth/consent" class="card" id="consent">
            ${hidden}
            ${grantFields({
              parents: input.parents,
              scopes: input.scopes,
              lines: input.lines,
              form: input.form,
              presetScopes: input.presetScopes,
              parentLabel: 'Act below this key',
              defaultName: `MCP: ${input.clientName}`.slice(0, 200),
            })}
            <button type="submit" name="decision" value="allow" id="consent-allow">Allow</button>
            ${decline}
          </form>`;
  return layout(
    `Authorize ${input.clientName}`,
    html`${errorBox(input.error)}
      <p id="consent-summary">
        <strong>${input.clientName}</strong> (returning to <span class="mono">${input.clientDestination}</span>) asks to use this
        workspace's MCP endpoint. Allowing mints a delegated token for it below the key you choose, with the scopes, lines and spend limit
        you set: it can never do more than that key. Revoking the key, or the token on API keys, ends its access at once.
      </p>
      ${body}`,
  );
}
