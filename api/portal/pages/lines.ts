import { NUMBER_TYPES } from '../../../src/domain/lines/numberChoice';
import type { toLineRecord } from '../../../src/domain/lines/store';
import { html, type Html } from '../html';
import { csrfField, errorBox, layout, type PageNav, type ShownError } from '../layout';

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
  if (input.lines.length === 0) return html`<p id="no-lines">No lines in the ${nav.environment} environment yet.</p>`;
  return html`<table id="lines">
    <caption>
      Lines of the ${nav.environment} environment
    </caption>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Mode</th>
        <th scope="col">Number</th>
        <th scope="col">Status</th>
        <th scope="col">Created</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${input.lines.map(
        (line) =>
          html`<tr data-line-id="${line.id}">
            <td><a href="/portal/lines/${line.id}?env=${nav.environment}">${line.name}</a></td>
            <td>${line.mode}</td>
            <td class="mono">${line.phone_number ?? '—'}</td>
            <td>${line.status}</td>
            <td><time datetime="${line.created_at}">${line.created_at.slice(0, 16).replace('T', ' ')}</time></td>
            <td>
              ${
                input.mayManage && line.status !== 'released'
                  ? html`<form method="post" action="/portal/lines/${line.id}/rotate-secret">
                      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" />
                      <button type="submit" aria-label="Rotate secret of ${line.name}">Rotate secret</button>
                    </form>`
                  : ''
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function createForm(nav: PageNav, form: Record<string, string>): Html {
  const mode = form.mode === 'webhook' ? 'webhook' : 'hosted';
  return html`<h2>Create a line</h2>
    <form method="post" action="/portal/lines" class="card">
      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" />
      <label for="name">Name</label>
      <input id="name" name="name" type="text" required maxlength="100" value="${form.name ?? ''}" />
      <label for="mode">Mode</label>
      <select id="mode" name="mode">
        <option value="hosted" ${mode === 'hosted' ? html`selected` : ''}>hosted: Switchboard's model answers with your prompt</option>
        <option value="webhook" ${mode === 'webhook' ? html`selected` : ''}>webhook: your server answers each turn</option>
      </select>
      <label for="system_prompt">System prompt (hosted lines)</label>
      <textarea id="system_prompt" name="system_prompt" rows="3">${form.system_prompt ?? ''}</textarea>
      <label for="webhook_url">Webhook URL (webhook lines)</label>
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
      ${NUMBER_TYPES.map((type) => html`<option value="${type}" ${numberType === type ? html`selected` : ''}>${type.replace('_', '-')}</option>`)}
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
