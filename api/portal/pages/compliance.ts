import { CONSENT_SOURCE_MAX_LENGTH, CONSENT_TYPES, type ConsentRow } from '../../../src/domain/compliance/consent';
import { DISCLOSURE_LIMITS, type DisclosureRow } from '../../../src/domain/compliance/disclosures';
import { OPT_IN_REASON_MAX_LENGTH, type OptOutRow } from '../../../src/domain/compliance/optOuts';
import { html, type Html } from '../html';
import { envFields, hiddenFields, option, postButton, stateBadge, stateLabel, table, time } from '../components';
import { LANGUAGE_LABELS, labelOf, OPT_OUT_SOURCE_LABELS } from '../labels';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

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
  return table({
    id: 'opt-outs',
    labelledBy: 'opt-outs-title',
    rows: input.optOuts,
    rowData: (row) => ({ 'phone-number': row.phone_number }),
    empty: html`<p id="no-opt-outs">No opted-out numbers in the ${nav.environment} environment.</p>`,
    columns: [
      { header: 'Phone number', cellClass: 'mono', cell: (row) => row.phone_number },
      { header: 'Source', cell: (row) => labelOf(OPT_OUT_SOURCE_LABELS, row.source) },
      { header: 'Opted out', cell: (row) => time(row.opted_out_at) },
    ],
    actions: (row) =>
      input.mayRemoveOptOuts
        ? postButton(
            '/portal/compliance/opt-outs/remove',
            'Remove…',
            { ...envFields(nav), phone_number: row.phone_number },
            {
              danger: true,
              ariaLabel: `Remove the opt-out of ${row.phone_number}`,
              fields: html`<input
                type="text"
                name="reason"
                required
                maxlength="${OPT_IN_REASON_MAX_LENGTH}"
                aria-label="Why the opt-out of ${row.phone_number} is removed"
                placeholder="Reason (recorded in the audit log)"
              />`,
            },
          )
        : '',
  });
}

function addOptOutForm(nav: PageNav, form: Record<string, string>): Html {
  return html`<h3>Opt a number out</h3>
    <form method="post" action="/portal/compliance/opt-outs" class="card" id="add-opt-out">
      ${hiddenFields({ ...envFields(nav), form: 'opt-out' })}
      <label for="opt-out-number">Phone number to opt out</label>
      <input id="opt-out-number" name="phone_number" type="tel" required value="${form.phone_number ?? ''}" />
      <button type="submit">Add opt-out</button>
    </form>`;
}

function consentsTable(nav: PageNav, input: CompliancePageInput): Html {
  const lineNames = new Map(input.lines.map((line) => [line.id, line.name]));
  const lineOf = (row: ConsentRow) => lineNames.get(row.line_id) ?? row.line_id;
  return table({
    id: 'consents',
    labelledBy: 'consents-title',
    rows: input.consents,
    rowData: (row) => ({ 'consent-id': row.id }),
    empty: html`<p id="no-consents">No consent recorded in the ${nav.environment} environment.</p>`,
    columns: [
      { header: 'Phone number', cellClass: 'mono', cell: (row) => row.phone_number },
      { header: 'Line', cell: lineOf },
      { header: 'Type', cell: (row) => stateLabel(row.consent_type) },
      { header: 'Source', cell: (row) => row.source },
      { header: 'Status', cell: (row) => stateBadge(row.status) },
      { header: 'Granted', cell: (row) => time(row.granted_at) },
      { header: 'Revoked', cell: (row) => time(row.revoked_at) },
    ],
    actions: (row) =>
      input.mayChange && row.status === 'active'
        ? postButton(
            '/portal/compliance/consent/revoke',
            'Revoke…',
            { ...envFields(nav), phone_number: row.phone_number, line_id: row.line_id },
            { danger: true, ariaLabel: `Revoke consent of ${row.phone_number} on ${lineOf(row)}` },
          )
        : '',
  });
}

function disclosuresTable(nav: PageNav, input: CompliancePageInput): Html {
  return table({
    id: 'disclosures',
    labelledBy: 'disclosures-title',
    rows: input.disclosures,
    rowData: (row) => ({ 'disclosure-id': row.id }),
    empty: html`<p id="no-disclosures">No disclosures in the ${nav.environment} environment yet.</p>`,
    columns: [
      { header: 'Message', cell: (row) => row.message },
      { header: 'Language', cell: (row) => labelOf(LANGUAGE_LABELS, row.language) },
      { header: 'Jurisdiction', cell: (row) => row.jurisdiction },
      { header: 'Default', cell: (row) => (row.is_default ? 'played' : 'no') },
      { header: 'Created', cell: (row) => time(row.created_at) },
    ],
  });
}

/** The fields a refused post typed, when it was this form's (`form` names the form). */
const typed = (input: CompliancePageInput, form: string) => (input.form?.form === form ? input.form : {});

function grantConsentForm(nav: PageNav, input: CompliancePageInput): Html {
  const lines = input.lines.filter((line) => !line.released_at);
  if (lines.length === 0) return html`<p id="no-consent-lines">Consent is recorded per line: create a line first.</p>`;
  const form = typed(input, 'consent');
  return html`<h3>Record consent</h3>
    <form method="post" action="/portal/compliance/consent" class="card" id="grant-consent">
      ${hiddenFields({ ...envFields(nav), form: 'consent' })}
      <label for="consent-line">Line</label>
      <select id="consent-line" name="line_id">
        ${lines.map((line) => option(line.id, form.line_id, line.name))}
      </select>
      <label for="consent-number">Phone number</label>
      <input id="consent-number" name="phone_number" type="tel" required value="${form.phone_number ?? ''}" />
      <label for="consent-type">Consent type</label>
      <select id="consent-type" name="consent_type">
        ${CONSENT_TYPES.map((type) => option(type, form.consent_type ?? 'explicit_outbound', stateLabel(type)))}
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
      ${hiddenFields({ ...envFields(nav), form: 'disclosure' })}
      <label for="disclosure-message">Disclosure message</label>
      <textarea id="disclosure-message" name="message" required maxlength="${DISCLOSURE_LIMITS.messageMaxLength}" rows="3">
${form.message ?? ''}</textarea>
      <label for="disclosure-language">Language</label>
      <select id="disclosure-language" name="language">
        ${input.languages.map((language) => option(language, form.language ?? 'en', labelOf(LANGUAGE_LABELS, language)))}
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
