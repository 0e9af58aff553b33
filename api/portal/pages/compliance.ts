import type { ConsentRow } from '../../../src/domain/compliance/consent';
import type { DisclosureRow } from '../../../src/domain/compliance/disclosures';
import type { OptOutRow } from '../../../src/domain/compliance/optOuts';
import { html, type Html } from '../html';
import { csrfField, errorBox, layout, type PageNav, type ShownError } from '../layout';

export interface CompliancePageInput {
  consents: ConsentRow[];
  optOuts: OptOutRow[];
  disclosures: DisclosureRow[];
  lineNames: Map<string, string>;
  mayChange: boolean;
  error?: ShownError;
  form?: Record<string, string>;
}

const when = (at: Date | null) =>
  at ? html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 16).replace('T', ' ')}</time>` : '—';

/** Consent, opt-outs and disclosures of the environment; the audit log has its own page. */
export function compliancePage(nav: PageNav, input: CompliancePageInput): Html {
  return layout(
    'Compliance',
    html`${errorBox(input.error)}
      <p>
        Calls on lines with compliance enabled need an active <code>explicit_outbound</code> consent and play the default disclosure of
        their language; nobody on the opt-out list is called or sent SMS. Every change is in the
        <a href="/portal/audit?env=${nav.environment}">audit log</a>.
      </p>
      <h2 id="opt-outs-title">Opt-outs</h2>
      ${optOutsTable(nav, input)} ${input.mayChange ? addOptOutForm(nav, input.form ?? {}) : html`<p>Your role cannot change opt-outs.</p>`}
      <h2 id="consents-title">Consent records</h2>
      ${consentsTable(nav, input)}
      <h2 id="disclosures-title">AI disclosures</h2>
      ${disclosuresTable(nav, input)}`,
    nav,
  );
}

function optOutsTable(nav: PageNav, input: CompliancePageInput): Html {
  if (input.optOuts.length === 0) return html`<p id="no-opt-outs">No opted-out numbers in the ${nav.environment} environment.</p>`;
  return html`<table id="opt-outs" aria-labelledby="opt-outs-title">
    <thead>
      <tr>
        <th scope="col">Phone number</th>
        <th scope="col">Source</th>
        <th scope="col">Opted out</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${input.optOuts.map(
        (row) =>
          html`<tr data-phone-number="${row.phone_number}">
            <td class="mono">${row.phone_number}</td>
            <td>${row.source}</td>
            <td>${when(row.opted_out_at)}</td>
            <td>
              ${
                input.mayChange
                  ? html`<form method="post" action="/portal/compliance/opt-outs/remove">
                      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" />
                      <input type="hidden" name="phone_number" value="${row.phone_number}" />
                      <button type="submit" class="danger" aria-label="Remove the opt-out of ${row.phone_number}">Remove</button>
                    </form>`
                  : ''
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function addOptOutForm(nav: PageNav, form: Record<string, string>): Html {
  return html`<form method="post" action="/portal/compliance/opt-outs" class="card" id="add-opt-out">
    ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" />
    <label for="opt-out-number">Phone number to opt out</label>
    <input id="opt-out-number" name="phone_number" type="tel" required value="${form.phone_number ?? ''}" />
    <button type="submit">Add opt-out</button>
  </form>`;
}

function consentsTable(nav: PageNav, input: CompliancePageInput): Html {
  if (input.consents.length === 0) return html`<p id="no-consents">No consent recorded in the ${nav.environment} environment.</p>`;
  return html`<table id="consents" aria-labelledby="consents-title">
    <thead>
      <tr>
        <th scope="col">Phone number</th>
        <th scope="col">Line</th>
        <th scope="col">Type</th>
        <th scope="col">Source</th>
        <th scope="col">Status</th>
        <th scope="col">Granted</th>
        <th scope="col">Revoked</th>
      </tr>
    </thead>
    <tbody>
      ${input.consents.map(
        (row) =>
          html`<tr data-consent-id="${row.id}">
            <td class="mono">${row.phone_number}</td>
            <td>${input.lineNames.get(row.line_id) ?? row.line_id}</td>
            <td>${row.consent_type}</td>
            <td>${row.source}</td>
            <td>${row.status}</td>
            <td>${when(row.granted_at)}</td>
            <td>${when(row.revoked_at)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function disclosuresTable(nav: PageNav, input: CompliancePageInput): Html {
  if (input.disclosures.length === 0)
    return html`<p id="no-disclosures">
      No disclosures in the ${nav.environment} environment: add them with <code>POST /api/v1/disclosures</code>.
    </p>`;
  return html`<table id="disclosures" aria-labelledby="disclosures-title">
    <thead>
      <tr>
        <th scope="col">Message</th>
        <th scope="col">Language</th>
        <th scope="col">Jurisdiction</th>
        <th scope="col">Default</th>
        <th scope="col">Created</th>
      </tr>
    </thead>
    <tbody>
      ${input.disclosures.map(
        (row) =>
          html`<tr data-disclosure-id="${row.id}">
            <td>${row.message}</td>
            <td>${row.language}</td>
            <td>${row.jurisdiction}</td>
            <td>${row.is_default ? 'played' : 'no'}</td>
            <td>${when(row.created_at)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
