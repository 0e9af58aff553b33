import { html, type Html } from '../html';
import { option, table, time } from '../components';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';
import { listQuery } from '../filterFields';
import { actionLabel } from '../actionCatalog';
import { COMPLIANCE_EVENT_LABELS, FIELD_VOCABULARIES, labelOf, type Words } from '../labels';
import type { AuditEntry, ComplianceEventRow } from '../../../src/domain/compliance/auditTrail';
import type { PortalActionRow } from '../../../src/domain/compliance/portalActions';

/** The actor of changes operators made in the CLI or the portal (no key acted), as shown and as filtered by. */
export const OPERATOR_ACTOR = 'operator';

export interface AuditPageInput {
  entries: AuditEntry[];
  /** The displayed prefix of each acting key. */
  actors: Map<string, string>;
  /** The email of each portal user named by an event (`metadata.user_id`), by id. */
  users: Map<string, string>;
  /** The people the person filter offers (the workspace's members and anyone named above). */
  people: Array<{ id: string; email: string }>;
  /** The portal's action names and the compliance event types, the action filter's two groups. */
  portalActions: readonly string[];
  eventTypes: readonly string[];
  filters: Record<string, string>;
  /** The cursor of the next (older) page, when there is one. */
  olderCursor: string | null;
  error?: ShownError;
}

/** The portal user an event names (issue 27, L21), by email; removed members stay named. */
export function portalUserIdOf(row: Pick<ComplianceEventRow, 'metadata'>): string | undefined {
  const userId = row.metadata?.user_id;
  return typeof userId === 'string' ? userId : undefined;
}

/** Metadata keys shown in their own column (the person) rather than among the details. */
const SHOWN_ELSEWHERE = new Set(['user_id']);

/** Recorded details as a readable list: "name: Front desk", never a JSON blob. */
export function readableDetails(details: Record<string, unknown> | null, extra: Array<[string, string]> = []): Html | string {
  const items = [
    ...extra,
    ...Object.entries(details ?? {})
      .filter(([key, value]) => !SHOWN_ELSEWHERE.has(key) && value !== null && value !== undefined && value !== '')
      .map(([key, value]): [string, string] => [key.replace(/_/g, ' '), shownValue(value, FIELD_VOCABULARIES[key])]),
  ];
  if (items.length === 0) return '—';
  return html`<ul class="audit-details">
    ${items.map(([key, value]) => html`<li><span class="audit-detail-name">${key}:</span> ${value}</li>`)}
  </ul>`;
}

/** A recorded value as words; a field whose values are a vocabulary's shows its words (api/portal/labels.ts). */
function shownValue(value: unknown, vocabulary?: Readonly<Record<string, Words>>): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' && vocabulary && Object.prototype.hasOwnProperty.call(vocabulary, value)) return labelOf(vocabulary, value);
  if (Array.isArray(value)) return value.map((item) => shownValue(item)).join(', ');
  if (value && typeof value === 'object')
    return Object.entries(value)
      .map(([key, inner]) => `${key} ${shownValue(inner)}`)
      .join(', ');
  return String(value);
}

const BROWSERS: Array<[RegExp, string]> = [
  [/Edg\/(\d+)/, 'Edge'],
  [/Firefox\/(\d+)/, 'Firefox'],
  [/HeadlessChrome\/(\d+)/, 'Headless Chrome'],
  [/Chrome\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[^ ]* (Mobile\/\S+ )?Safari/, 'Safari'],
  [/^curl\/(\d+)/, 'curl'],
];
const SYSTEMS: Array<[RegExp, string]> = [
  [/Android/, 'Android'],
  [/iPhone|iPad/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Linux/, 'Linux'],
];

/** A user agent in a few words ("Firefox 133 on Linux"); the whole string stays one click away. */
export function browserOf(userAgent: string | null): string {
  if (!userAgent) return '—';
  const browser = BROWSERS.map(([pattern, name]) => [userAgent.match(pattern), name] as const).find(([match]) => match);
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (!browser) return userAgent.slice(0, 40);
  const [match, name] = browser;
  return `${name} ${match![1]}${system ? ` on ${system}` : ''}`;
}

function agentCell(userAgent: string | null): Html | string {
  if (!userAgent) return '—';
  return html`<details class="user-agent">
    <summary>${browserOf(userAgent)}</summary>
    <span class="mono">${userAgent}</span>
  </details>`;
}

function portalEvent(row: PortalActionRow): Html {
  const outcome =
    row.outcome === 'succeeded'
      ? ''
      : html` <span class="audit-outcome" data-outcome="${row.outcome}"
          >${row.outcome === 'refused' ? 'refused' : 'failed'}${row.refusal_code ? html`: ${row.refusal_code}` : ''}</span
        >`;
  return html`${actionLabel(row.action)}${outcome}`;
}

function portalDetails(row: PortalActionRow): Html | string {
  return readableDetails(row.details, row.target_id ? [['id', row.target_id]] : []);
}

function complianceEvent(row: ComplianceEventRow): string {
  return labelOf(COMPLIANCE_EVENT_LABELS, row.event_type);
}

/** The audit log: the environment's compliance events and the portal's actions, filters posted by GET (a link keeps them). */
export function auditPage(nav: PageNav, input: AuditPageInput): Html {
  const f = input.filters;
  const person = (entry: AuditEntry): string => {
    if (entry.source === 'portal') return entry.row.email;
    const userId = portalUserIdOf(entry.row);
    return userId ? (input.users.get(userId) ?? userId) : '—';
  };
  const actor = (entry: AuditEntry): Html | string => {
    if (entry.source === 'portal' || !entry.row.actor_key_id) return OPERATOR_ACTOR;
    return html`<span class="mono">${input.actors.get(entry.row.actor_key_id) ?? entry.row.actor_key_id}</span>`;
  };
  return layout(
    'Audit log',
    html`${errorBox(input.error)}
      <p>
        Every change made in the portal (with who made it, from which address and browser, and whether it was refused), every sign-in and
        sign-out, and the compliance events of the ${nav.environment} environment. Members, sign-ins and two-factor changes belong to the
        whole workspace and show in both environments.
      </p>
      <form method="get" action="/portal/audit" class="filters" aria-label="Filter the audit log">
        <input type="hidden" name="env" value="${nav.environment}" />
        <label for="person">Person</label>
        <select id="person" name="person">
          <option value="">everyone</option>
          ${input.people.map((p) => option(p.id, f.person, p.email))}
        </select>
        <label for="event_type">Action or event type</label>
        <select id="event_type" name="event_type">
          <option value="">all</option>
          <optgroup label="Portal actions">${input.portalActions.map((name) => option(name, f.event_type, actionLabel(name)))}</optgroup>
          <optgroup label="Compliance events">
            ${input.eventTypes.map((type) => option(type, f.event_type, labelOf(COMPLIANCE_EVENT_LABELS, type)))}
          </optgroup>
        </select>
        <label for="actor">Actor (key prefix or id, or operator)</label>
        <input id="actor" name="actor" type="text" value="${f.actor ?? ''}" aria-describedby="actor-hint" />
        <p id="actor-hint" class="hint">A key or phone number narrows the log to compliance events.</p>
        <label for="phone_number">Phone number</label>
        <input id="phone_number" name="phone_number" type="text" value="${f.phone_number ?? ''}" />
        <label for="from">From (UTC date)</label>
        <input id="from" name="from" type="date" value="${f.from ?? ''}" />
        <label for="to">Before (UTC date)</label>
        <input id="to" name="to" type="date" value="${f.to ?? ''}" />
        <button type="submit">Filter</button>
      </form>
      <p>
        <a id="audit-csv" href="/portal/audit.csv?${listQuery(nav.environment, f)}" download>Download these entries as CSV</a>
      </p>
      ${table({
        id: 'audit',
        caption: `Matching entries seen from the ${nav.environment} environment, newest first`,
        rows: input.entries,
        rowData: (entry): Record<string, string> => ({
          ...(entry.source === 'portal'
            ? { action: entry.row.action, outcome: entry.row.outcome }
            : { 'event-type': entry.row.event_type }),
          'entry-id': entry.row.id,
        }),
        empty: html`<p id="no-events">No events match.</p>`,
        columns: [
          { header: 'Time (UTC)', cell: (entry) => time(entry.row.created_at, 'second') },
          { header: 'Event', cell: (entry) => (entry.source === 'portal' ? portalEvent(entry.row) : complianceEvent(entry.row)) },
          { header: 'Actor', cell: actor },
          { header: 'Portal user', cellMarker: 'portal-user', cell: person },
          {
            header: 'Address',
            cellClass: 'mono',
            cellMarker: 'address',
            cell: (e) => (e.source === 'portal' ? (e.row.client_address ?? '—') : '—'),
          },
          { header: 'Browser', cellMarker: 'user-agent', cell: (e) => (e.source === 'portal' ? agentCell(e.row.user_agent) : '—') },
          { header: 'Phone number', cellClass: 'mono', cell: (e) => (e.source === 'compliance' ? (e.row.phone_number ?? '—') : '—') },
          {
            header: 'Details',
            cellMarker: 'details',
            cell: (e) => (e.source === 'portal' ? portalDetails(e.row) : readableDetails(e.row.metadata)),
          },
        ],
      })}
      ${
        input.olderCursor
          ? html`<p><a id="older" href="/portal/audit?${listQuery(nav.environment, f, input.olderCursor)}">Older entries</a></p>`
          : ''
      }`,
    nav,
  );
}
