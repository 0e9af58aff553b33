import { NUMBER_TYPES } from '../../../src/domain/lines/numberChoice';
import type { toLineRecord } from '../../../src/domain/lines/store';
import { html, type Html } from '../html';
import { confirmLink, copyable, envFields, hiddenFields, option, stateBadge, table, time } from '../components';
import { labelOf, LINE_MODE_LABELS, NUMBER_TYPE_LABELS } from '../labels';
import { forModes, LINE_FORM_SCRIPT, modeSelect, voiceSelect } from './lineFields';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

type LineRecord = ReturnType<typeof toLineRecord>;

/** A signing secret just created or rotated: shown on this one answer, never again. */
export interface ShownSecret {
  lineName: string;
  secret: string;
  /** What the line's secret signs (`signedDeliveriesOf`); empty when nothing the line sends is signed. */
  signs: string[];
  /** Set when it came from a rotation: whether a staged secret was promoted, and when the new one may be. */
  rotation?: { promoted: boolean; stagedAt: string; promotableAt: string };
}

/** A line's signing secrets as the list shows them: what they sign, and a staged `next` one (when it may be promoted). */
export interface LineSecretState {
  signs: string[];
  staged?: { at: Date; promotableAt: Date };
}

export interface LinesPageInput {
  lines: LineRecord[];
  /** By line id. */
  secrets: Map<string, LineSecretState>;
  mayManage: boolean;
  /** May rotate signing secrets (webhooks:write). */
  mayRotate: boolean;
  error?: ShownError;
  secret?: ShownSecret;
  form?: Record<string, string>;
}

export function linesPage(nav: PageNav, input: LinesPageInput): Html {
  return layout(
    'Lines',
    html`${errorBox(input.error)} ${input.secret ? secretPanel(input.secret) : ''} ${linesTable(nav, input)}
    ${input.mayManage ? createForm(nav, input.form ?? {}) : html`<p>Your role cannot create lines.</p>`}`,
    nav,
  );
}

function secretPanel(shown: ShownSecret): Html {
  const { rotation } = shown;
  const signs = shown.signs.length
    ? html`It signs this line's ${shown.signs.join(', ')}.`
    : html`Nothing this line sends is signed yet (it has no webhook URL, status callback URL or tools, and the workspace no default webhook
      URL); keep it for when it does: it cannot be shown again.`;
  const heading = rotation ? `New signing secret of ${shown.lineName} (staged)` : `Signing secret of ${shown.lineName}`;
  return html`<section class="secret" aria-labelledby="secret-title">
    <h2 id="secret-title">${heading}</h2>
    <p>Copy it now: it is shown only once. ${rotation ? '' : signs}</p>
    ${rotation ? rotationWindow(rotation) : ''} ${copyable('webhook-secret', shown.secret, 'the signing secret')}
  </section>`;
}

/** The two-secret window a rotation opened: which secret signs now, and from when the staged one may take over. */
function rotationWindow(rotation: NonNullable<ShownSecret['rotation']>): Html {
  return html`<ul id="rotation-window">
    ${rotation.promoted ? html`<li>The secret staged before is now the one that signs; the one before it is retired.</li>` : ''}
    <li>
      This new secret was staged at ${time(rotation.stagedAt, 'second')}: it does not sign yet. Make your receivers accept it beside the
      current one now.
    </li>
    <li>From ${time(rotation.promotableAt, 'second')}, rotating again makes it the signing secret (and retires the current one).</li>
  </ul>`;
}

/** The list's secret column: staged (and from when it may be promoted), signing, or signing nothing. */
function secretCell(state: LineSecretState | undefined): Html | string {
  if (!state) return '—';
  if (state.staged)
    return html`<span data-secret-staged
      >New secret staged ${time(state.staged.at)}; promotable from ${time(state.staged.promotableAt)}</span
    >`;
  return state.signs.length ? 'One secret, signing' : 'Nothing signed';
}

function linesTable(nav: PageNav, input: LinesPageInput): Html {
  return table({
    id: 'lines',
    caption: `Lines of the ${nav.environment} environment`,
    rows: input.lines,
    rowData: (line) => ({ 'line-id': line.id }),
    empty: html`<p id="no-lines">No lines in the ${nav.environment} environment yet.</p>`,
    columns: [
      { header: 'Name', cell: (line) => html`<a href="/portal/lines/${line.id}?env=${nav.environment}">${line.name}</a>` },
      { header: 'Mode', cell: (line) => labelOf(LINE_MODE_LABELS, line.mode) },
      { header: 'Number', cellClass: 'mono', cell: (line) => line.phone_number ?? '—' },
      { header: 'Status', cell: (line) => stateBadge(line.status) },
      {
        header: 'Signing secret',
        cellMarker: 'secret-state',
        cell: (line) => (line.status === 'released' ? '—' : secretCell(input.secrets.get(line.id))),
      },
      { header: 'Created', cell: (line) => time(line.created_at) },
    ],
    actions: (line) =>
      input.mayRotate && line.status !== 'released'
        ? confirmLink(`/portal/lines/${line.id}/rotate-secret?env=${nav.environment}`, 'Rotate secret…', {
            ariaLabel: `Rotate secret of ${line.name}`,
          })
        : '',
  });
}

function createForm(nav: PageNav, form: Record<string, string>): Html {
  const typed = (name: string) => form[name] ?? '';
  const field = (name: string, label: string, type = 'text') =>
    html`<label for="${name}">${label}</label> <input id="${name}" name="${name}" type="${type}" value="${typed(name)}" />`;
  return html`<h2>Create a line</h2>
    <form method="post" action="/portal/lines" class="card" data-mode-form>
      ${hiddenFields(envFields(nav))}
      <label for="name">Name</label>
      <input id="name" name="name" type="text" required maxlength="100" value="${typed('name')}" />
      ${modeSelect('mode', form.mode || 'hosted')}
      ${forModes(
        'system_prompt',
        html`<label for="system_prompt">System prompt</label>
          <textarea id="system_prompt" name="system_prompt" rows="3">${typed('system_prompt')}</textarea>`,
      )}
      ${forModes('webhook_url', field('webhook_url', 'Webhook URL', 'url'))}
      ${forModes('audio_handler_url', field('audio_handler_url', 'Audio handler URL (ws or wss)'))}
      ${forModes('begin_message', field('begin_message', 'Begin message (spoken when the call is answered)'))}
      ${voiceSelect('voice', typed('voice'))} ${numberFields(form)}
      <button type="submit">Create line</button>
    </form>
    ${LINE_FORM_SCRIPT}`;
}

/** The line's number: bought to criteria (blank: a local US number), or imported from the carrier account (POST /api/v1/lines's fields). */
function numberFields(form: Record<string, string>): Html {
  const importing = form.number_source === 'imported';
  const numberType = form.number_type ?? 'local';
  return html`<fieldset id="number-choice">
    <legend>Phone number</legend>
    <label class="check"><input type="radio" name="number_source" value="purchased" ${importing ? '' : html`checked`} /> Buy one</label>
    <label for="country">Country (ISO code; blank: US)</label>
    <input id="country" name="country" type="text" maxlength="2" autocomplete="off" value="${form.country ?? ''}" />
    <label for="number_type">Type</label>
    <select id="number_type" name="number_type">
      ${NUMBER_TYPES.map((type) => option(type, numberType, NUMBER_TYPE_LABELS[type]))}
    </select>
    <label for="area_code">Area code (blank: any)</label>
    <input id="area_code" name="area_code" type="text" inputmode="numeric" maxlength="6" value="${form.area_code ?? ''}" />
    <label class="check"
      ><input type="radio" name="number_source" value="imported" ${importing ? html`checked` : ''} /> Import one this account owns (granted
      by your operator)</label
    >
    <label for="phone_number">Number to import (E.164)</label>
    <input id="phone_number" name="phone_number" type="tel" value="${form.phone_number ?? ''}" />
  </fieldset>`;
}
