import { Html, html } from './html';
import { asWords, STATE_WORDS } from './labels';
import { renderTimeZone } from './timeZoneScope';
import { zonedFormat } from '../../src/platform/zonedFormat';

/**
 * The pieces every portal page repeats: a data table, a one-button post form, a timestamp, a select option.
 * Each renders the markup the pages wrote by hand before (issue 28), so that a page states only its columns,
 * its actions and its words.
 */

/** One column of a `table`: its header and how a row fills its cell. */
export interface Column<Row> {
  header: string;
  cell: (row: Row) => unknown;
  /** The header is for screen readers only (an actions column). */
  hiddenHeader?: boolean;
  /** A number column: right-aligned header and cell (class `num`). */
  numeric?: boolean;
  /** A class of the cell only (`mono`, `message-text`). */
  cellClass?: string;
  /** A valueless `data-*` attribute on the cell, for tests and scripts to find it (`minted-by` → `data-minted-by`). */
  cellMarker?: string;
}

export interface TableOptions<Row> {
  id: string;
  columns: Array<Column<Row>>;
  rows: readonly Row[];
  /** The `data-*` attributes of a row's `<tr>`, by name without the `data-` prefix. */
  rowData: (row: Row) => Record<string, string | number>;
  /** What stands instead of a table without rows (a `<p>` with its own id). */
  empty: Html;
  /** The table's caption; or `labelledBy`, the id of the heading that names it. */
  caption?: unknown;
  labelledBy?: string;
  /** The last column: the row's buttons (or nothing), under a header only screen readers read. */
  actions?: (row: Row) => unknown;
}

/** A data table: header row from the columns, one row per item, or the `empty` paragraph when there is none. */
export function table<Row>(options: TableOptions<Row>): Html {
  if (options.rows.length === 0) return options.empty;
  const columns = options.actions
    ? [...options.columns, { header: 'Actions', hiddenHeader: true, cell: options.actions }]
    : options.columns;
  const caption =
    options.caption === undefined
      ? ''
      : html`<caption>
          ${options.caption}
        </caption>`;
  // `stacked`: below 40rem each row becomes a card of labelled cells (portal.css), so no table is wider than a phone.
  return html`<table${attributes({ id: options.id, class: 'stacked', 'aria-labelledby': options.labelledBy })}>
    ${caption}
    <thead>
      <tr>
        ${columns.map(headerCell)}
      </tr>
    </thead>
    <tbody>
      ${options.rows.map((row) => html`<tr${dataAttributes(options.rowData(row))}>${columns.map((column) => bodyCell(column, row))}</tr>`)}
    </tbody>
  </table>`;
}

function headerCell<Row>(column: Column<Row>): Html {
  const label = column.hiddenHeader ? html`<span class="visually-hidden">${column.header}</span>` : column.header;
  return html`<th${attributes({ scope: 'col', class: column.numeric ? 'num' : undefined })}>${label}</th>`;
}

function bodyCell<Row>(column: Column<Row>, row: Row): Html {
  const classes = [column.numeric ? 'num' : '', column.cellClass ?? ''].filter(Boolean).join(' ');
  const marker = column.cellMarker ? { [`data-${column.cellMarker}`]: true as const } : {};
  // `data-label` names the cell where a phone stacks a row's cells (portal.css): the column's header.
  const label = column.hiddenHeader ? undefined : column.header;
  return html`<td${attributes({ class: classes || undefined, 'data-label': label, ...marker })}>${column.cell(row)}</td>`;
}

function dataAttributes(data: Record<string, string | number>): Html {
  return attributes(Object.fromEntries(Object.entries(data).map(([name, value]) => [`data-${name}`, value])));
}

/**
 * Attributes, each with a leading space so that `<td${attributes({})}>` is `<td>`: a value is escaped,
 * `true` is a valueless attribute, `undefined` and `false` leave it out. Names are the caller's own words.
 */
export function attributes(values: Record<string, string | number | boolean | undefined>): Html {
  const rendered = Object.entries(values).map(([name, value]) => {
    if (value === undefined || value === false) return '';
    return value === true ? ` ${name}` : html` ${new Html(name)}="${value}"`.value;
  });
  return new Html(rendered.join(''));
}

export interface PostButtonOptions {
  /** A destructive action: styled as such (class `danger`). */
  danger?: boolean;
  /** What the button does, for screen readers, where its label alone is ambiguous in a table. */
  ariaLabel?: string;
  id?: string;
  /** Fields the operator fills in before pressing (shown before the button). */
  fields?: Html;
}

/** A form that posts its hidden fields to `action` with one button (revoke, remove, rotate, redeliver). */
export function postButton(action: string, label: string, hidden: Record<string, string>, options: PostButtonOptions = {}): Html {
  const button = attributes({
    type: 'submit',
    id: options.id,
    class: options.danger ? 'danger' : undefined,
    'aria-label': options.ariaLabel,
  });
  return html`<form method="post" action="${action}">
    ${hiddenFields(hidden)} ${options.fields ?? ''}
    <button${button}>${label}</button>
  </form>`;
}

/** Hidden inputs, one per field. */
export function hiddenFields(fields: Record<string, string>): Html[] {
  return Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`);
}

/** The hidden fields of a post in an environment's page: the CSRF token and the environment. */
export function envFields(nav: { csrfToken: string; environment: string }): Record<string, string> {
  return { csrf_token: nav.csrfToken, env: nav.environment };
}

const SHOWN_LENGTH = { day: 10, minute: 16, second: 19 } as const;
type Precision = keyof typeof SHOWN_LENGTH;

/**
 * A timestamp, in the workspace's time zone (./timeZoneScope.ts) to the minute (or `day`/`second`), with
 * the zone's abbreviation unless it is UTC; machine-readable in `datetime`, the UTC time on hover
 * (`title`); '—' when absent. The one way every portal page shows a time.
 */
export function time(at: Date | string | null, precision: Precision = 'minute'): Html | string {
  if (at === null) return '—';
  const instant = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(instant.getTime())) return String(at);
  const iso = instant.toISOString();
  const utc = iso.slice(0, SHOWN_LENGTH[precision]).replace('T', ' ');
  const zone = renderTimeZone();
  const shown = zone === 'UTC' ? utc : inZone(instant, zone, precision);
  return html`<time datetime="${iso}" title="${iso.slice(0, 19).replace('T', ' ')} UTC">${shown}</time>`;
}

/** `2026-11-28 10:30 CET`: the same digits as the UTC form, read in `zone`, with its short name. */
function inZone(at: Date, zone: string, precision: Precision): string {
  const format = zonedFormat(zone, `portal time ${precision}`, () => ({
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    ...(precision === 'day' ? {} : { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' as const }),
    ...(precision === 'second' ? { second: '2-digit' } : {}),
    timeZoneName: 'short',
  }));
  const part = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  const day = `${part.year}-${part.month}-${part.day}`;
  if (precision === 'day') return `${day} ${part.timeZoneName}`;
  return `${day} ${part.hour}:${part.minute}${precision === 'second' ? `:${part.second}` : ''} ${part.timeZoneName}`;
}

/** A select's option, selected when it is the current value. */
export function option(value: string, current: string | undefined, label: string = value): Html {
  return html`<option value="${value}" ${current === value ? html`selected` : ''}>${label}</option>`;
}

/** A state's words (api/portal/labels.ts, every vocabulary a badge shows); a value no vocabulary lists reads as words. */
export function stateLabel(value: string): string {
  return STATE_WORDS.get(value)?.label ?? asWords(value);
}

/**
 * A state as a coloured badge with its readable label; the raw value stays in `data-state` (and in `title`, for an
 * operator matching it to the API). '—' when absent.
 */
export function stateBadge(value: string | null | undefined): Html | string {
  if (!value) return '—';
  const tone = STATE_WORDS.get(value)?.tone ?? 'neutral';
  return html`<span class="badge badge-${tone}" data-state="${value}" title="${value}">${stateLabel(value)}</span>`;
}

/**
 * A value to copy (a one-time secret, a ready header): the text in an `<output id>` and a Copy button that
 * /portal/assets/portal.js reveals and wires (hidden without script, where selecting the text is the way). The
 * status beside it tells a screen reader that the copy happened.
 */
export function copyable(id: string, value: unknown, what: string): Html {
  return html`<div class="copyable">
    <output id="${id}" class="mono">${value}</output>
    ${copyButton(id, what)}
  </div>`;
}

/** The Copy button of the element `id` (its text is copied), and the status that says it was. */
export function copyButton(id: string, what: string): Html {
  return html`<button type="button" class="secondary copy" data-copy="${id}" aria-label="Copy ${what}" hidden>Copy</button>
    <span id="${id}-copied" class="copied" role="status"></span>`;
}

/** A key's plaintext, and the header a request sends it in, each ready to copy. */
export function keyToCopy(id: string, plaintext: string): Html {
  return html`${copyable(id, plaintext, 'the key')}
    <p class="copy-hint">Send it as this header:</p>
    ${copyable(`${id}-header`, `Authorization: Bearer ${plaintext}`, 'the Authorization header')}`;
}

/**
 * The field a destructive or irreversible form (revoke, remove, release, hang up, rotate) must carry to act: only the
 * confirmation step's own button sets it, so a one-click button, a replayed form or a script without it changes
 * nothing and is shown the confirmation (issue 30, docs/decisions/portal.md "Confirmed actions").
 */
export const CONFIRM_FIELD = 'confirm';
export const CONFIRMED = 'yes';

export function isConfirmed(form: Record<string, string>): boolean {
  return form[CONFIRM_FIELD] === CONFIRMED;
}

/** What a confirmation step says and posts. */
export interface ConfirmationView {
  /** The question, as the page's heading ("Release the line Front desk?"). */
  title: string;
  /** The form's action: the same path the one-click button posted to. */
  action: string;
  /** Its hidden fields (CSRF token, environment, and what the button carried, e.g. a phone number). */
  hidden: Record<string, string>;
  /** What will happen, one sentence each, in the order it happens. */
  consequences: unknown[];
  /** Fields the person fills in to confirm (their password), shown above the button. */
  fields?: unknown;
  /** The confirming button's label ("Release line"). */
  confirmLabel: string;
  /** Where "Cancel" goes: the page the action was started from. */
  back: { href: string; label: string };
  /**
   * Set when the action no longer applies (the line is already released, the call has ended): what changed, said
   * plainly, and the object's current state; then no button is offered.
   */
  stale?: { message: string; state?: unknown; code?: string };
}

/** The confirmation step: what will happen and a danger button that posts with `confirm=yes`, or why it cannot. */
export function confirmation(view: ConfirmationView): Html {
  if (view.stale)
    return html`<section class="confirmation card" id="confirmation" aria-labelledby="confirmation-title">
      <h2 id="confirmation-title">Nothing to do</h2>
      <p id="stale-message" role="status">${view.stale.message}</p>
      ${view.stale.state ?? ''}
      <p><a href="${view.back.href}">${view.back.label}</a></p>
    </section>`;
  return html`<section class="confirmation card" id="confirmation" aria-labelledby="confirmation-title">
    <h2 id="confirmation-title">What will happen</h2>
    <ul id="consequences">
      ${view.consequences.map((line) => html`<li>${line}</li>`)}
    </ul>
    <form method="post" action="${view.action}" class="confirm-actions">
      ${hiddenFields({ ...view.hidden, [CONFIRM_FIELD]: CONFIRMED })} ${view.fields ?? ''}
      <button type="submit" class="danger" id="confirm-button">${view.confirmLabel}</button>
      <a href="${view.back.href}" id="cancel-link">Cancel: ${view.back.label}</a>
    </form>
  </section>`;
}

/**
 * The button that starts a destructive action: a link to its confirmation step (a GET of the action's path), styled
 * as a secondary danger button, so that one click only ever opens the question.
 */
export function confirmLink(href: string, label: string, options: { ariaLabel?: string; id?: string } = {}): Html {
  return html`<a${attributes({ href, class: 'button-link danger', 'aria-label': options.ariaLabel, id: options.id })}>${label}</a>`;
}

/** What a usage chart draws: the keys of /portal/assets/usage-chart.js `SERIES` (spend, calls, billed minutes, deliveries). */
export type ChartSeries = 'cost' | 'calls' | 'minutes' | 'deliveries';

export interface ChartCanvasOptions {
  id: string;
  /** What the chart shows, for screen readers (the canvas is an image). */
  label: string;
  /** The days drawn, as JSON in `data-usage`. */
  days: readonly unknown[];
  series: ChartSeries;
  /** One of several charts side by side (the overview's). */
  small?: boolean;
}

/**
 * A usage chart: a canvas that /portal/assets/usage-chart.js draws from its data attributes (the CSP forbids inline
 * script). A page with charts adds `CHART_SCRIPTS` once.
 */
export function chartCanvas(chart: ChartCanvasOptions): Html {
  return html`<div class="chart${chart.small ? ' chart-small' : ''}">
    <canvas
      id="${chart.id}"
      role="img"
      aria-label="${chart.label}"
      data-usage="${JSON.stringify(chart.days)}"
      data-series="${chart.series}"
    ></canvas>
  </div>`;
}

/** The local chart.js and the script that draws every `chartCanvas` of the page. */
export const CHART_SCRIPTS = html`<script src="/portal/assets/chart.umd.js" defer></script>
  <script src="/portal/assets/usage-chart.js" defer></script>`;
