import { NUMBER_TYPES } from '../../../src/domain/lines/numberChoice';
import type { toLineRecord } from '../../../src/domain/lines/store';
import { html, type Html } from '../html';
import { envFields, hiddenFields, option, postButton, table, time } from '../components';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

type LineRecord = ReturnType<typeof toLineRecord>;

/** A signing secret just created or rotated: shown on this one answer, never again. */
export interface ShownSecret {
  lineName: string;
  secret: string;
}

export interface LinesPageInput {
  lines: LineRecord[];
  mayManage: boolean;
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
  return html`<section class="secret" aria-labelledby="secret-title">
    <h2 id="secret-title">Signing secret of ${shown.lineName}</h2>
    <p>Copy it now: it is shown only once. Webhook deliveries are signed with it.</p>
    <output id="webhook-secret" class="mono">${shown.secret}</output>
  </section>`;
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
      { header: 'Mode', cell: (line) => line.mode },
      { header: 'Number', cellClass: 'mono', cell: (line) => line.phone_number ?? '—' },
      { header: 'Status', cell: (line) => line.status },
      { header: 'Created', cell: (line) => time(line.created_at) },
    ],
    actions: (line) =>
      input.mayManage && line.status !== 'released'
        ? postButton(`/portal/lines/${line.id}/rotate-secret`, 'Rotate secret', envFields(nav), {
            ariaLabel: `Rotate secret of ${line.name}`,
          })
        : '',
  });
}

function createForm(nav: PageNav, form: Record<string, string>): Html {
  const mode = form.mode === 'webhook' || form.mode === 'agent' ? form.mode : 'hosted';
  return html`<h2>Create a line</h2>
    <form method="post" action="/portal/lines" class="card">
      ${hiddenFields(envFields(nav))}
      <label for="name">Name</label>
      <input id="name" name="name" type="text" required maxlength="100" value="${form.name ?? ''}" />
      <label for="mode">Mode</label>
      <select id="mode" name="mode">
        ${option('hosted', mode, "hosted: Switchboard's model answers with your prompt")}
        ${option('webhook', mode, 'webhook: your server answers each turn')}
        ${option('agent', mode, 'agent: your agent drives each call through the API or MCP (speak, wait)')}
      </select>
      <label for="system_prompt">System prompt (hosted lines)</label>
      <textarea id="system_prompt" name="system_prompt" rows="3">${form.system_prompt ?? ''}</textarea>
      <label for="webhook_url">Webhook URL (webhook lines), optional on agent lines (lifecycle events)</label>
      <input id="webhook_url" name="webhook_url" type="url" value="${form.webhook_url ?? ''}" />
      ${numberFields(form)}
      <button type="submit">Create line</button>
    </form>`;
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
      ${NUMBER_TYPES.map((type) => option(type, numberType, type.replace('_', '-')))}
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
