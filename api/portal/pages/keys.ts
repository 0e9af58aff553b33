import type { ApiKeyRow } from '../../../src/domain/keys/store';
import { html, type Html } from '../html';
import { csrfField, errorBox, layout, type PageNav, type ShownError } from '../layout';

export interface KeysPageInput {
  keys: ApiKeyRow[];
  mayManage: boolean;
  error?: ShownError;
  /** A key just minted: its plaintext, shown on this one answer. */
  minted?: { name: string; plaintext: string };
  form?: Record<string, string>;
}

const when = (at: Date | null) =>
  at ? html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 16).replace('T', ' ')}</time>` : '—';

export function keysPage(nav: PageNav, input: KeysPageInput): Html {
  return layout(
    'Service keys',
    html`${errorBox(input.error)} ${input.minted ? mintedPanel(input.minted) : ''}
      <p>
        A service key mints and manages agent keys on <code>/v1/keys</code>; it cannot place calls itself. Revoking one revokes every agent
        key it minted.
      </p>
      ${keysTable(nav, input)} ${input.mayManage ? mintForm(nav, input.form ?? {}) : html`<p>Your role cannot mint service keys.</p>`}`,
    nav,
  );
}

function mintedPanel(minted: { name: string; plaintext: string }): Html {
  return html`<section class="secret" aria-labelledby="minted-title">
    <h2 id="minted-title">Service key ${minted.name}</h2>
    <p>Copy it now: it is shown only once. Only its hash is kept.</p>
    <output id="minted-key" class="mono">${minted.plaintext}</output>
  </section>`;
}

function keysTable(nav: PageNav, input: KeysPageInput): Html {
  if (input.keys.length === 0) return html`<p id="no-keys">No service keys in the ${nav.environment} environment yet.</p>`;
  return html`<table id="keys">
    <caption>
      Service keys of the ${nav.environment} environment
    </caption>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Prefix</th>
        <th scope="col">Created</th>
        <th scope="col">Last used</th>
        <th scope="col">Status</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${input.keys.map(
        (key) =>
          html`<tr data-key-id="${key.id}">
            <td>${key.name}</td>
            <td class="mono">${key.key_prefix}</td>
            <td>${when(key.created_at)}</td>
            <td>${when(key.last_used_at)}</td>
            <td>${key.revoked_at ? html`revoked ${when(key.revoked_at)}` : 'active'}</td>
            <td>
              ${
                input.mayManage && !key.revoked_at
                  ? html`<form method="post" action="/portal/keys/${key.id}/revoke">
                      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" />
                      <button type="submit" class="danger" aria-label="Revoke key ${key.name}">Revoke</button>
                    </form>`
                  : ''
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function mintForm(nav: PageNav, form: Record<string, string>): Html {
  return html`<h2>Mint a service key</h2>
    <form method="post" action="/portal/keys" class="card">
      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" />
      <label for="key-name">Name</label>
      <input id="key-name" name="name" type="text" required maxlength="100" value="${form.name ?? ''}" />
      <button type="submit">Mint service key</button>
    </form>`;
}
