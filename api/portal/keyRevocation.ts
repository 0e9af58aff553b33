import type { ApiKeyRow } from '../../src/domain/keys/store';
import { envFields, time, type ConfirmationView } from './components';
import { html } from './html';

/**
 * Revoking a key (a service key, an API key, a delegated token): it stops working at once with its subtree; or, when
 * it is revoked or expired already, since when.
 */
export function keyRevocationView(
  key: ApiKeyRow,
  nav: { csrfToken: string; environment: 'test' | 'live' },
  of: { path: string; kind: string; below: string },
): ConfirmationView {
  const base = {
    title: `Revoke the ${of.kind} ${key.name}?`,
    action: `${of.path}/${key.id}/revoke`,
    hidden: envFields(nav),
    confirmLabel: `Revoke ${of.kind}`,
    back: { href: `${of.path}?env=${nav.environment}`, label: `back to the ${of.kind === 'service key' ? 'service keys' : 'API keys'}` },
  };
  if (key.revoked_at)
    return {
      ...base,
      consequences: [],
      stale: {
        message: `This ${of.kind} is already revoked.`,
        state: html`<p id="current-state"><span class="mono">${key.key_prefix}</span> revoked ${time(key.revoked_at)}.</p>`,
      },
    };
  return {
    ...base,
    consequences: [
      html`Requests with <span class="mono">${key.key_prefix}…</span> are refused at once (401 <code>invalid_api_key</code>)${
          key.last_used_at ? html`; it was last used ${time(key.last_used_at)}` : ''
        }.`,
      of.below,
      'A revoked key cannot be restored: mint a new one to replace it.',
    ],
  };
}
