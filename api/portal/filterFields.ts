import { option } from './components';
import { html, type Html } from './html';
import { labelOf, type Vocabulary } from './labels';
import type { PageNav } from './layout';
import type { LineChoice } from './lineChoices';

/**
 * The fields the lists' filter forms share (calls, deliveries): the line select and the UTC time range.
 * A value the list refused is shown again as typed, next to the page's error.
 */

/** A select of the workspace's lines, "all" first. */
export function lineSelect(lines: readonly LineChoice[], current: string): Html {
  const known = lines.some((line) => line.id === current);
  return html`<label for="line_id">Line</label>
    <select id="line_id" name="line_id">
      ${option('', current, 'all')} ${lines.map((line) => option(line.id, current, `${line.name} ${line.phoneNumber ?? ''}`.trim()))}
      ${current && !known ? option(current, current, `unknown line ${current}`) : ''}
    </select>`;
}

/** A select of a vocabulary's values (api/portal/labels.ts), each shown by its words, "all" first. */
export function choiceSelect<Value extends string>(
  name: string,
  label: string,
  values: readonly Value[],
  words: Vocabulary<Value, string | { label: string }>,
  current: string,
): Html {
  return html`<label for="${name}">${label}</label>
    <select id="${name}" name="${name}">
      ${option('', current, 'all')} ${values.map((value) => option(value, current, labelOf(words, value)))}
    </select>`;
}

/**
 * From and to, UTC in the URL: a browser's date-and-time picker posts `2026-11-28T09:30` (read as UTC; a
 * bound covers its whole minute or day), and a typed date or RFC 3339 time is read too (listFilters.ts).
 */
export function timeRangeFields(values: { from: string; to: string }): Html {
  return html`<label for="from">From (UTC)</label>
    <input id="from" name="from" type="datetime-local" step="1" value="${values.from}" />
    <label for="to">To (UTC)</label>
    <input id="to" name="to" type="datetime-local" step="1" value="${values.to}" />`;
}

/** The search box of the lists: a call, delivery, event or line id, a line's name, a phone number, or words said in a call (api/portal/searchRoutes.ts). */
export function searchBox(nav: Pick<PageNav, 'environment'>, query = ''): Html {
  return html`<form method="get" action="/portal/search" class="search" role="search" aria-label="Search">
    <input type="hidden" name="env" value="${nav.environment}" />
    <label for="q">Search by phone number, call id, event id, line or words said in a call</label>
    <input id="q" name="q" type="search" value="${query}" maxlength="200" />
    <button type="submit">Search</button>
  </form>`;
}

/** The query string of a list (or its CSV) with its filters, in `environment`; '' values left out. */
export function listQuery(environment: string, filters: object, cursor?: string): string {
  const query = new URLSearchParams({ env: environment });
  for (const [name, value] of Object.entries(filters)) if (typeof value === 'string' && value) query.set(name, value);
  if (cursor) query.set('cursor', cursor);
  return query.toString();
}
