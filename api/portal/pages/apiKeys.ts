import { keyName } from '../../openapi/fields';
import { grantOf } from '../../../src/domain/keys/scopedTokens';
import { SCOPES, type Scope } from '../../../src/domain/keys/scopes';
import type { ApiKeyRow } from '../../../src/domain/keys/store';
import { html, type Html } from '../html';
import { confirmLink, envFields, hiddenFields, keyToCopy, option, stateBadge, table, time } from '../components';
import { ENVIRONMENT_LABELS, labelOf } from '../labels';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

export interface ApiKeysPageInput {
  /** The environment's regular keys and delegated tokens, newest first. */
  keys: ApiKeyRow[];
  /** The live keys the operator may mint below: their own, or any for an owner. */
  parents: ApiKeyRow[];
  /** The email of each user a key belongs to or was minted by, by id. */
  users: Map<string, string>;
  /** Lines a delegated token may be limited to. */
  lines: Array<{ id: string; name: string; phone_number: string | null }>;
  /** The scopes the operator's role preset holds: what a key minted here may hold. */
  scopes: readonly Scope[];
  mayManage: boolean;
  now: Date;
  error?: ShownError;
  /** A key just minted: its plaintext, shown on this one answer. */
  minted?: { kind: string; name: string; plaintext: string };
  form?: Record<string, string>;
}

function keyState(key: ApiKeyRow, now: Date): 'revoked' | 'expired' | 'active' {
  if (key.revoked_at && key.revoked_at <= now) return 'revoked';
  if (key.expires_at && key.expires_at <= now) return 'expired';
  return 'active';
}

/** The key's state as a badge, with the time it was revoked or expired. */
function status(key: ApiKeyRow, now: Date): Html {
  const state = keyState(key, now);
  const since = state === 'revoked' ? key.revoked_at : state === 'expired' ? key.expires_at : null;
  return html`${stateBadge(state)}${since ? html` ${time(since)}` : ''}`;
}

const isLive = (key: ApiKeyRow, now: Date) => keyState(key, now) === 'active';

export function apiKeysPage(nav: PageNav, input: ApiKeysPageInput): Html {
  const regular = input.keys.filter((key) => key.ancestor_ids.length === 0);
  const delegated = input.keys.filter((key) => key.ancestor_ids.length > 0);
  return layout(
    'API keys',
    html`${errorBox(input.error)} ${input.minted ? mintedPanel(input.minted) : ''}
      <p>
        API keys authenticate the public API with the scopes they hold. A delegated token is minted below a key holding
        <code>keys:admin</code>, within its grant, as <code>POST /api-tokens</code> does; revoking a key revokes every token below it. Agent
        keys are managed with a service key on <code>/v1/keys</code>.
      </p>
      <h2 id="regular-title">Regular keys</h2>
      ${keysTable(nav, input, regular, 'regular-keys', 'regular-title')}
      <h2 id="delegated-title">Delegated tokens</h2>
      ${keysTable(nav, input, delegated, 'delegated-tokens', 'delegated-title')}
      ${
        input.mayManage
          ? html`${regularForm(nav, input)} ${delegateForm(nav, input)}`
          : html`<p id="keys-refused">Your role cannot mint or revoke API keys.</p>`
      }`,
    nav,
  );
}

function mintedPanel(minted: { kind: string; name: string; plaintext: string }): Html {
  return html`<section class="secret" aria-labelledby="minted-title">
    <h2 id="minted-title">${minted.kind} ${minted.name}</h2>
    <p>Copy it now: it is shown only once. Only its hash is kept.</p>
    ${keyToCopy('minted-key', minted.plaintext)}
  </section>`;
}

function grantCell(key: ApiKeyRow): Html {
  const grant = grantOf(key);
  const all = SCOPES.every((scope) => grant.scopes.includes(scope));
  return html`${all ? 'every scope' : html`<span class="mono">${grant.scopes.join(' ')}</span>`}
  ${grant.numbers ? html`<br />lines: <span class="mono">${grant.numbers.join(' ')}</span>` : ''}
  ${
    grant.spendLimit
      ? html`<br />limit: ${grant.spendLimit.amountCents} cents${grant.spendLimit.resetPeriod === 'monthly' ? ' a month' : ''}`
      : ''
  }`;
}

function keysTable(nav: PageNav, input: ApiKeysPageInput, keys: ApiKeyRow[], id: string, titleId: string): Html {
  const prefixOf = new Map(input.keys.map((key) => [key.id, key.key_prefix]));
  return table({
    id,
    labelledBy: titleId,
    rows: keys,
    rowData: (key) => ({ 'key-id': key.id }),
    empty: html`<p id="no-${id}">None in the ${nav.environment} environment yet.</p>`,
    columns: [
      { header: 'Name', cell: (key) => key.name },
      { header: 'Prefix', cellClass: 'mono', cell: (key) => key.key_prefix },
      { header: 'Environment', cell: (key) => labelOf(ENVIRONMENT_LABELS, key.environment) },
      { header: 'Grant', cell: grantCell },
      { header: 'Minted by', cellMarker: 'minted-by', cell: (key) => mintedBy(key, input, prefixOf) },
      { header: 'Created', cell: (key) => time(key.created_at) },
      { header: 'Last used', cell: (key) => time(key.last_used_at) },
      { header: 'Expires', cell: (key) => time(key.expires_at) },
      { header: 'Status', cellMarker: 'status', cell: (key) => status(key, input.now) },
    ],
    actions: (key) =>
      input.mayManage && isLive(key, input.now)
        ? confirmLink(`/portal/api-keys/${key.id}/revoke?env=${nav.environment}`, 'Revoke…', {
            ariaLabel: `Revoke ${key.name} (${key.key_prefix})`,
          })
        : '',
  });
}

/**
 * Who minted a key: the portal user who did (a delegated token's minter, else a root key's own
 * user) and, for a delegated token, the parent key it was minted below.
 */
function mintedBy(key: ApiKeyRow, input: ApiKeysPageInput, prefixOf: Map<string, string>): Html {
  const userId = key.minted_by_user_id ?? (key.parent_key_id ? null : key.user_id);
  const user = userId ? (input.users.get(userId) ?? userId) : null;
  const parent = key.parent_key_id ? html`<span class="mono">${prefixOf.get(key.parent_key_id) ?? key.parent_key_id}</span>` : null;
  if (user && parent) return html`${user} below ${parent}`;
  if (parent) return html`key ${parent}`;
  return html`${user ?? 'an operator'}`;
}

/** One checkbox per scope; a fresh form checks `preset` (a refused one keeps what was ticked). */
function scopeBoxes(prefix: string, scopes: readonly Scope[], form: Record<string, string> | undefined, preset: readonly Scope[]): Html[] {
  return scopes.map((scope) => {
    const ticked = form ? form[`scope.${scope}`] !== undefined && form[`scope.${scope}`] !== '' : preset.includes(scope);
    return html`<label class="check"
      ><input type="checkbox" id="${prefix}-${scope}" name="scope.${scope}" value="on" ${ticked ? html`checked` : ''} /> ${scope}</label
    >`;
  });
}

function regularForm(nav: PageNav, input: ApiKeysPageInput): Html {
  const form = input.form?.parent_key_id === undefined ? input.form : undefined;
  return html`<h2>Mint an API key</h2>
    <form method="post" action="/portal/api-keys" class="card" id="mint-regular">
      ${hiddenFields(envFields(nav))}
      <label for="regular-name">Name</label>
      <input id="regular-name" name="name" type="text" required maxlength="${keyName.maxLength}" value="${form?.name ?? ''}" />
      <fieldset>
        <legend>Scopes (your role's preset at most)</legend>
        ${scopeBoxes('regular', input.scopes, form, input.scopes)}
      </fieldset>
      <button type="submit">Mint API key</button>
    </form>`;
}

function delegateForm(nav: PageNav, input: ApiKeysPageInput): Html {
  const form = input.form?.parent_key_id !== undefined ? input.form : undefined;
  const parents = input.parents.filter((key) => isLive(key, input.now) && key.scopes.includes('keys:admin'));
  if (parents.length === 0)
    return html`<h2>Mint a delegated token</h2>
      <p id="no-parents">
        A delegated token is minted below an active (not revoked or expired) key of yours holding <code>keys:admin</code>: mint one first.
      </p>`;
  return html`<h2>Mint a delegated token</h2>
    <form method="post" action="/portal/api-keys/delegated" class="card" id="mint-delegated">
      ${hiddenFields(envFields(nav))}
      ${grantFields({ parents, scopes: input.scopes, lines: input.lines, form, presetScopes: ['read'], parentLabel: 'Parent key' })}
      <button type="submit">Mint delegated token</button>
    </form>`;
}

export interface GrantFieldsInput {
  /** Live keys holding `keys:admin` the operator may mint below. */
  parents: ApiKeyRow[];
  scopes: readonly Scope[];
  lines: Array<{ id: string; name: string; phone_number: string | null }>;
  /** What was typed, on a refused post. */
  form?: Record<string, string>;
  /** Scopes ticked on a fresh form. */
  presetScopes: readonly Scope[];
  parentLabel: string;
  /** The name field's value on a fresh form. */
  defaultName?: string;
}

/**
 * The fields of a delegated grant as `/api-tokens` takes it (parent, name, scopes, lines, spend
 * limit): the delegated-token form here and the OAuth consent page (pages/oauthConsent.ts).
 */
export function grantFields(input: GrantFieldsInput): Html {
  const { form } = input;
  return html`<label for="parent-key">${input.parentLabel}</label>
    <select id="parent-key" name="parent_key_id">
      ${input.parents.map((key) => option(key.id, form?.parent_key_id, `${key.name} (${key.key_prefix})`))}
    </select>
    <label for="delegated-name">Name</label>
    <input
      id="delegated-name"
      name="name"
      type="text"
      required
      maxlength="${keyName.maxLength}"
      value="${form?.name ?? input.defaultName ?? ''}"
    />
    <fieldset>
      <legend>Scopes (within the parent's)</legend>
      ${scopeBoxes('delegated', input.scopes, form, input.presetScopes)}
    </fieldset>
    ${
      input.lines.length > 0
        ? html`<fieldset>
            <legend>Limit to these lines (none: every line the parent may use)</legend>
            ${input.lines.map(
              (line) =>
                html`<label class="check"
                  ><input type="checkbox" name="line.${line.id}" value="on" ${form?.[`line.${line.id}`] ? html`checked` : ''} />
                  ${line.name} ${line.phone_number ?? ''}</label
                >`,
            )}
          </fieldset>`
        : ''
    }
    <label for="spend-limit">Spend limit in cents (empty: none of its own; a parent's limit needs one no larger)</label>
    <input id="spend-limit" name="spend_limit_cents" type="number" min="0" step="1" value="${form?.spend_limit_cents ?? ''}" />
    <label for="spend-period">Spend limit resets</label>
    <select id="spend-period" name="spend_reset_period">
      <option value="">never (a lifetime limit)</option>
      ${option('monthly', form?.spend_reset_period, 'monthly (UTC month)')}
    </select>`;
}
