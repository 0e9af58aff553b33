import { CONSENT_SOURCE_MAX_LENGTH, CONSENT_TYPES, type ConsentRow } from '../../../src/domain/compliance/consent';
import { DISCLOSURE_LIMITS, type DisclosureRow } from '../../../src/domain/compliance/disclosures';
import { OPT_IN_REASON_MAX_LENGTH, type OptOutRow } from '../../../src/domain/compliance/optOuts';
import { html, type Html } from '../html';
import { csrfField, errorBox, layout, type PageNav, type ShownError } from '../layout';

export interface CompliancePageInput {
  consents: ConsentRow[];
  optOuts: OptOutRow[];
  disclosures: DisclosureRow[];
  lines: Array<{ id: string; name: string; released_at: Date | null }>;
  /** The languages a disclosure may be written in. */
  languages: readonly string[];
  mayChange: boolean;
  /** Only an owner may erase an opt-out, giving a reason (issue 27, M14). */
  mayRemoveOptOuts: boolean;
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
      ${optOutsTable(nav, input)}
      ${input.mayChange ? addOptOutForm(nav, typed(input, 'opt-out')) : html`<p>Your role cannot change opt-outs.</p>`}
      <h2 id="consents-title">Consent records</h2>
      ${consentsTable(nav, input)} ${input.mayChange ? grantConsentForm(nav, input) : ''}
      <h2 id="disclosures-title">AI disclosures</h2>
      ${disclosuresTable(nav, input)} ${input.mayChange ? addDisclosureForm(nav, input) : ''}`,
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
                input.mayRemoveOptOuts
                  ? html`<form method="post" action="/portal/compliance/opt-outs/remove">
                      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" />
                      <input type="hidden" name="phone_number" value="${row.phone_number}" />
                      <input
                        type="text"
                        name="reason"
                        required
                        maxlength="${OPT_IN_REASON_MAX_LENGTH}"
                        aria-label="Why the opt-out of ${row.phone_number} is removed"
                        placeholder="Reason (recorded in the audit log)"
                      />
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
  return html`<h3>Opt a number out</h3>
    <form method="post" action="/portal/compliance/opt-outs" class="card" id="add-opt-out">
      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" /><input
        type="hidden"
        name="form"
        value="opt-out"
      />
      <label for="opt-out-number">Phone number to opt out</label>
      <input id="opt-out-number" name="phone_number" type="tel" required value="${form.phone_number ?? ''}" />
      <button type="submit">Add opt-out</button>
    </form>`;
}

function consentsTable(nav: PageNav, input: CompliancePageInput): Html {
  const lineNames = new Map(input.lines.map((line) => [line.id, line.name]));
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
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${input.consents.map(
        (row) =>
          html`<tr data-consent-id="${row.id}">
            <td class="mono">${row.phone_number}</td>
            <td>${lineNames.get(row.line_id) ?? row.line_id}</td>
            <td>${row.consent_type}</td>
            <td>${row.source}</td>
            <td>${row.status}</td>
            <td>${when(row.granted_at)}</td>
            <td>${when(row.revoked_at)}</td>
            <td>
              ${
                input.mayChange && row.status === 'active'
                  ? html`<form method="post" action="/portal/compliance/consent/revoke">
                      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" />
                      <input type="hidden" name="phone_number" value="${row.phone_number}" />
                      <input type="hidden" name="line_id" value="${row.line_id}" />
                      <button
                        type="submit"
                        class="danger"
                        aria-label="Revoke consent of ${row.phone_number} on ${lineNames.get(row.line_id) ?? row.line_id}"
                      >
                        Revoke
                      </button>
                    </form>`
                  : ''
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function disclosuresTable(nav: PageNav, input: CompliancePageInput): Html {
  if (input.disclosures.length === 0) return html`<p id="no-disclosures">No disclosures in the ${nav.environment} environment yet.</p>`;
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

/** The fields a refused post typed, when it was this form's (`form` names the form). */
const typed = (input: CompliancePageInput, form: string) => (input.form?.form === form ? input.form : {});

function grantConsentForm(nav: PageNav, input: CompliancePageInput): Html {
  const lines = input.lines.filter((line) => !line.released_at);
  if (lines.length === 0) return html`<p id="no-consent-lines">Consent is recorded per line: create a line first.</p>`;
  const form = typed(input, 'consent');
  return html`<h3>Record consent</h3>
    <form method="post" action="/portal/compliance/consent" class="card" id="grant-consent">
      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" /><input
        type="hidden"
        name="form"
        value="consent"
      />
      <label for="consent-line">Line</label>
      <select id="consent-line" name="line_id">
        ${lines.map((line) => html`<option value="${line.id}" ${form.line_id === line.id ? html`selected` : ''}>${line.name}</option>`)}
      </select>
      <label for="consent-number">Phone number</label>
      <input id="consent-number" name="phone_number" type="tel" required value="${form.phone_number ?? ''}" />
      <label for="consent-type">Consent type</label>
      <select id="consent-type" name="consent_type">
        ${CONSENT_TYPES.map((type) => html`<option value="${type}" ${(form.consent_type ?? 'explicit_outbound') === type ? html`selected` : ''}>${type}</option>`)}
      </select>
      <label for="consent-source">Source (where it was given; default portal)</label>
      <input id="consent-source" name="source" type="text" maxlength="${CONSENT_SOURCE_MAX_LENGTH}" value="${form.source ?? ''}" />
      <button type="submit">Record consent</button>
    </form>`;
}

function addDisclosureForm(nav: PageNav, input: CompliancePageInput): Html {
  const form = typed(input, 'disclosure');
  return html`<h3>Add a disclosure</h3>
    <form method="post" action="/portal/compliance/disclosures" class="card" id="add-disclosure">
      ${csrfField(nav.csrfToken)}<input type="hidden" name="env" value="${nav.environment}" /><input
        type="hidden"
        name="form"
        value="disclosure"
      />
      <label for="disclosure-message">Disclosure message</label>
      <textarea id="disclosure-message" name="message" required maxlength="${DISCLOSURE_LIMITS.messageMaxLength}" rows="3">
${form.message ?? ''}</textarea>
      <label for="disclosure-language">Language</label>
      <select id="disclosure-language" name="language">
        ${input.languages.map((language) => html`<option value="${language}" ${(form.language ?? 'en') === language ? html`selected` : ''}>${language}</option>`)}
      </select>
      <label for="disclosure-jurisdiction">Jurisdiction</label>
      <input
        id="disclosure-jurisdiction"
        name="jurisdiction"
        type="text"
        maxlength="${DISCLOSURE_LIMITS.jurisdictionMaxLength}"
        value="${form.jurisdiction ?? 'US'}"
      />
      <label class="check"
        ><input type="checkbox" name="is_default" value="on" ${form.is_default ? html`checked` : ''} /> Make it the default of its language,
        the one played (the first of a language always is)</label
      >
      <button type="submit">Add disclosure</button>
    </form>`;
}
