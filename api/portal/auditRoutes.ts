import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { auditFiltersOf, type FieldProblem } from '../auditFilters';
import { isUuid } from '../openapi/formats';
import { membersOf, userEmailsOf } from '../../src/domain/accounts/store';
import type { AuditFilters } from '../../src/domain/compliance/auditLog';
import { auditTrail, auditTrailInBatches, type AuditCursor, type AuditEntry } from '../../src/domain/compliance/auditTrail';
import { COMPLIANCE_EVENTS, KEY_LIFECYCLE_EVENTS, OAUTH_EVENTS } from '../../src/domain/compliance/events';
import type { PortalActionFilters } from '../../src/domain/compliance/portalActions';
import { findWorkspaceKey, keyPrefixesOf } from '../../src/domain/keys/store';
import { PORTAL_ACTION_NAMES } from './actionCatalog';
import { refuse } from './answer';
import { sendPage } from './http';
import { navOf, tenantOf, getOperatorPage } from './operatorPages';
import { auditPage, OPERATOR_ACTOR, portalUserIdOf, type AuditPageInput } from './pages/audit';
import { AUDIT_COLUMNS, EXPORT_BATCH, withNames } from './auditExport';
import { CSV_MAX_ROWS, sendCsv } from './csv';
import { cursorPage, parseCursor } from '../pagination';
import type { Operator } from './visitor';

const ENTRIES_SHOWN = 100;
const FILTERS = ['person', 'event_type', 'actor', 'phone_number', 'from', 'to'] as const;

const EVENT_TYPES = [...COMPLIANCE_EVENTS, ...KEY_LIFECYCLE_EVENTS, ...OAUTH_EVENTS].sort();

/** Which sources the filters can match, and how each is filtered. */
type Sources = { compliance?: AuditFilters; portal?: PortalActionFilters };

/**
 * The page's filters as each source's, or the fields that do not parse. A person is a user of this workspace (by
 * id); an action is a portal action or a compliance event type (it picks its source); an actor (a key prefix or id,
 * or `operator`) and a phone number are the compliance events' own filters, so they leave the portal's actions out.
 */
async function sourcesOf(
  deps: AppDeps,
  workspaceId: string,
  query: Record<string, string>,
): Promise<{ sources: Sources } | { error: ApiError }> {
  const { filters: parsed, problems: parseProblems } = auditFiltersOf(query);
  const problems: FieldProblem[] = [];
  const compliance: AuditFilters = { ...parsed };
  const portal: PortalActionFilters = { from: parsed.from, to: parsed.to };
  let source: 'both' | 'compliance' | 'portal' = 'both';
  if (query.person) {
    const known = isUuid(query.person) && (await userEmailsOf(deps.db, workspaceId, [query.person])).has(query.person);
    if (known) compliance.userId = portal.userId = query.person;
    else problems.push({ field: 'person', message: 'Not a member of this workspace' });
  }
  if (query.event_type) {
    if ((EVENT_TYPES as string[]).includes(query.event_type)) {
      compliance.eventType = query.event_type;
      source = 'compliance';
    } else if (PORTAL_ACTION_NAMES.includes(query.event_type)) {
      portal.action = query.event_type;
      source = 'portal';
    } else problems.push({ field: 'event_type', message: 'Unknown action or event type' });
  }
  const actor = query.actor.trim();
  if (actor === OPERATOR_ACTOR) compliance.actorKeyId = null;
  else if (actor) {
    const key = await findWorkspaceKey(deps.db, workspaceId, actor);
    if (key) compliance.actorKeyId = key.id;
    else problems.push({ field: 'actor', message: `No key of this workspace has this prefix or id; "${OPERATOR_ACTOR}" for operators` });
  }
  problems.push(...parseProblems);
  if (problems.length > 0) return { error: errors.validation(problems) };
  const complianceOnly = actor !== '' || compliance.phoneNumber !== undefined;
  return {
    sources: {
      ...(source !== 'portal' ? { compliance } : {}),
      ...(source !== 'compliance' && !complianceOnly ? { portal } : {}),
    },
  };
}

/** A page's or an export's reading of the query: its filters as typed, and the sources they pick (or the fields at fault). */
async function readAudit(deps: AppDeps, operator: Operator, rawQuery: AppContext['query']) {
  const query = Object.fromEntries(FILTERS.map((name) => [name, typeof rawQuery[name] === 'string' ? (rawQuery[name] as string) : '']));
  return { query, parsed: await sourcesOf(deps, operator.user.workspace_id, query) };
}

/** The names an entry's ids stand for: acting keys' prefixes and portal users' emails. */
async function namesOf(deps: AppDeps, workspaceId: string, entries: AuditEntry[], alsoUser?: string) {
  const events = entries.flatMap((entry) => (entry.source === 'compliance' ? [entry.row] : []));
  const actorIds = [...new Set(events.flatMap((row) => (row.actor_key_id ? [row.actor_key_id] : [])))];
  const userIds = [...new Set([...events.flatMap((row) => portalUserIdOf(row) ?? []), alsoUser ?? ''].filter(Boolean))];
  const [actors, users] = await Promise.all([keyPrefixesOf(deps.db, workspaceId, actorIds), userEmailsOf(deps.db, workspaceId, userIds)]);
  return { actors, users };
}

/**
 * The audit log (issue 30, item 2): the portal's operator actions and the environment's compliance events (spec
 * "Compliance audit"), filtered by person, action, key, phone number and time, paged by cursor, and exported as CSV
 * with the same filters (./auditExport.ts). Every role may read it.
 */
export function auditRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/audit', deps, async (ctx, operator) => {
    const { query, parsed } = await readAudit(deps, operator, ctx.query);
    const nav = navOf(operator, '/portal/audit');
    const workspaceId = operator.user.workspace_id;
    const members = await membersOf(deps.db, workspaceId);
    const base: Omit<AuditPageInput, 'entries' | 'actors' | 'users' | 'olderCursor'> = {
      people: members.map(({ id, email }) => ({ id, email })),
      portalActions: PORTAL_ACTION_NAMES,
      eventTypes: EVENT_TYPES,
      filters: query,
    };
    const empty = { entries: [], actors: new Map(), users: new Map(), olderCursor: null };
    let after: AuditCursor | undefined;
    try {
      after = cursorOf(ctx.query.cursor);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return refuse(ctx, err, (shown) => auditPage(nav, { ...base, ...empty, error: shown }));
    }
    if ('error' in parsed) return refuse(ctx, parsed.error, (shown) => auditPage(nav, { ...base, ...empty, error: shown }));
    const fetched = await auditTrail(deps.db, tenantOf(operator), parsed.sources, ENTRIES_SHOWN + 1, after);
    const { page: entries, next_cursor } = cursorPage(fetched, ENTRIES_SHOWN, (entry) => ({ at: entry.row.created_at, id: entry.row.id }));
    const { actors, users } = await namesOf(deps, workspaceId, entries, query.person);
    // A removed member stays a person to filter by once named.
    const people = [
      ...base.people,
      ...[...users].filter(([id]) => !members.some((m) => m.id === id)).map(([id, email]) => ({ id, email })),
    ];
    sendPage(ctx, 200, auditPage(nav, { ...base, people, entries, actors, users, olderCursor: next_cursor }));
  });

  getOperatorPage(router, '/portal/audit.csv', deps, async (ctx, operator) => {
    const { parsed } = await readAudit(deps, operator, ctx.query);
    if ('error' in parsed) throw parsed.error;
    const entries = auditTrailInBatches(deps.db, tenantOf(operator), parsed.sources, EXPORT_BATCH, CSV_MAX_ROWS);
    const named = withNames(entries, (batch) => namesOf(deps, operator.user.workspace_id, batch));
    sendCsv(ctx, 'audit', operator.environment, AUDIT_COLUMNS, named);
  });
}

/** A cursor of this list (`<time>|<id>`, as its "Older entries" link writes it), or none. */
function cursorOf(value: unknown): AuditCursor | undefined {
  const cursor = parseCursor(typeof value === 'string' ? value : undefined);
  if (cursor && !cursor.id) throw errors.validation([{ field: 'cursor', message: 'Not a cursor from this page' }]);
  return cursor && { at: cursor.at, id: cursor.id! };
}
