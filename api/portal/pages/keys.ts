import type { ApiKeyRow } from '../../../src/domain/keys/store';
import { html, type Html } from '../html';
import { confirmLink, envFields, hiddenFields, keyToCopy, stateBadge, table, time } from '../components';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

export interface KeysPageInput {
  keys: ApiKeyRow[];
  mayManage: boolean;
  error?: ShownError;
  /** A key just minted: its plaintext, shown on this one answer. */
  minted?: { name: string; plaintext: string };
  form?: Record<string, string>;
}

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
    ${keyToCopy('minted-key', minted.plaintext)}
  </section>`;
}

function keysTable(nav: PageNav, input: KeysPageInput): Html {
  return table({
    id: 'keys',
    caption: `Service keys of the ${nav.environment} environment`,
    rows: input.keys,
    rowData: (key) => ({ 'key-id': key.id }),
    empty: html`<p id="no-keys">No service keys in the ${nav.environment} environment yet.</p>`,
    columns: [
      { header: 'Name', cell: (key) => key.name },
      { header: 'Prefix', cellClass: 'mono', cell: (key) => key.key_prefix },
      { header: 'Created', cell: (key) => time(key.created_at) },
      { header: 'Last used', cell: (key) => time(key.last_used_at) },
      { header: 'Status', cell: (key) => (key.revoked_at ? html`${stateBadge('revoked')} ${time(key.revoked_at)}` : stateBadge('active')) },
    ],
    actions: (key) =>
      input.mayManage && !key.revoked_at
        ? confirmLink(`/portal/keys/${key.id}/revoke?env=${nav.environment}`, 'Revoke…', { ariaLabel: `Revoke key ${key.name}` })
        : '',
  });
}

function mintForm(nav: PageNav, form: Record<string, string>): Html {
  return html`<h2>Mint a service key</h2>
    <form method="post" action="/portal/keys" class="card">
      ${hiddenFields(envFields(nav))}
      <label for="key-name">Name</label>
      <input id="key-name" name="name" type="text" required maxlength="100" value="${form.name ?? ''}" />
      <button type="submit">Mint service key</button>
    </form>`;
}
