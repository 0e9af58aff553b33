import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { errors, type ApiError } from '../errors';
import { auditFiltersOf, type FieldProblem } from '../auditFilters';
import { userEmailsOf } from '../../src/domain/accounts/store';
import { auditEvents, type AuditFilters } from '../../src/domain/compliance/auditLog';
import { COMPLIANCE_EVENTS, KEY_LIFECYCLE_EVENTS, OAUTH_EVENTS } from '../../src/domain/compliance/events';
import { findWorkspaceKey, keyPrefixesOf } from '../../src/domain/keys/store';
import { refuse } from './answer';
import { sendPage } from './http';
import { navOf, tenantOf, getOperatorPage } from './operatorPages';
import { auditPage, OPERATOR_ACTOR, portalUserIdOf, type AuditRow } from './pages/audit';

const EVENTS_SHOWN = 100;
const FILTERS = ['event_type', 'actor', 'phone_number', 'from', 'to'] as const;

const EVENT_TYPES = [...COMPLIANCE_EVENTS, ...KEY_LIFECYCLE_EVENTS, ...OAUTH_EVENTS].sort();

/** The page's filters as the audit's, or the fields that do not parse (an actor is a key prefix or id, or `operator`). */
async function filtersOf(
  deps: AppDeps,
  workspaceId: string,
  query: Record<string, string>,
): Promise<{ filters: AuditFilters } | { error: ApiError }> {
  const { filters: parsed, problems: parseProblems } = auditFiltersOf(query);
  const problems: FieldProblem[] = [];
  const filters: AuditFilters = {};
  if (query.event_type) {
    if ((EVENT_TYPES as string[]).includes(query.event_type)) filters.eventType = query.event_type;
    else problems.push({ field: 'event_type', message: 'Unknown event type' });
  }
  const actor = query.actor.trim();
  if (actor === OPERATOR_ACTOR) filters.actorKeyId = null;
  else if (actor) {
    const key = await findWorkspaceKey(deps.db, workspaceId, actor);
    if (key) filters.actorKeyId = key.id;
    else problems.push({ field: 'actor', message: `No key of this workspace has this prefix or id; "${OPERATOR_ACTOR}" for operators` });
  }
  problems.push(...parseProblems);
  Object.assign(filters, parsed);
  return problems.length > 0 ? { error: errors.validation(problems) } : { filters };
}

/** The compliance audit of the environment, with the API's filters (spec "Compliance audit"). Every role may read it. */
export function auditRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/audit', deps, async (ctx, operator) => {
    const query = Object.fromEntries(FILTERS.map((name) => [name, typeof ctx.query[name] === 'string' ? (ctx.query[name] as string) : '']));
    const nav = navOf(operator, '/portal/audit');
    const parsed = await filtersOf(deps, operator.user.workspace_id, query);
    if ('error' in parsed)
      return refuse(ctx, parsed.error, (shown) =>
        auditPage(nav, { rows: [], actors: new Map(), users: new Map(), eventTypes: EVENT_TYPES, filters: query, shown: 0, error: shown }),
      );
    const rows = (await auditEvents(deps.db, tenantOf(operator), parsed.filters)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(EVENTS_SHOWN)) as AuditRow[];
    const actorIds = [...new Set(rows.flatMap((row) => (row.actor_key_id ? [row.actor_key_id] : [])))];
    const actors = await keyPrefixesOf(deps.db, operator.user.workspace_id, actorIds);
    const userIds = [...new Set(rows.flatMap((row) => portalUserIdOf(row) ?? []))];
    const users = await userEmailsOf(deps.db, operator.user.workspace_id, userIds);
    sendPage(ctx, 200, auditPage(nav, { rows, actors, users, eventTypes: EVENT_TYPES, filters: query, shown: rows.length }));
  });
}
