import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { callTimeline } from '../../src/domain/calls/timeline';
import { callHistory } from '../../src/domain/calls/history';
import { campaignOfCall } from '../../src/domain/campaigns/read';
import { CALL_DIRECTIONS, CALL_STATUSES } from '../../src/domain/calls/rules';
import { sendCallRecording } from '../recordings';
import { callsOfTenant, filteredCallsOf, toCallRecord, type CallRow } from '../../src/domain/calls/store';
import { numberMatchOf } from '../../src/domain/search/rules';
import { holdsCoveringCall } from '../../src/domain/recordings/store';
import { recordingStorageOfCall } from '../../src/domain/recordings/copyState';
import { beforeCursor, cursorPage, parseCursor } from '../pagination';
import { sendPage } from './http';
import { refuse } from './answer';
import { TIMELINE_WORDS } from './labels';
import { linesForFilter } from './lineChoices';
import { readFilters, type FilterRule, type ReadFilters } from './listFilters';
import { actorOf, navOf, roleAllows, tenantOf, getOperatorPage } from './operatorPages';
import { callLive, callPage, callsPage, type CallListFilters } from './pages/calls';
import { signedInOperator, type Operator } from './visitor';
import type { CallView } from './pages/callTimeline';

const CALLS_SHOWN = 50;

/** The calls list's filters, as the query string carries them (api/portal/listFilters.ts). */
export const CALL_FILTERS = {
  line_id: 'uuid',
  status: { oneOf: CALL_STATUSES },
  direction: { oneOf: CALL_DIRECTIONS },
  number: 'number',
  from: 'from',
  to: 'to',
} as const satisfies Record<keyof CallListFilters, FilterRule>;

/** The operator's calls narrowed by the list's filters (read by `readFilters`), newest first: the list's and the CSV's query. */
export function filteredCalls(deps: AppDeps, operator: Operator, read: ReadFilters<keyof CallListFilters>) {
  const { values, range } = read;
  return filteredCallsOf(deps.db, tenantOf(operator), {
    lineId: values.line_id || undefined,
    status: values.status || undefined,
    direction: values.direction || undefined,
    number: values.number ? numberMatchOf(values.number) : undefined,
    createdFrom: range.from,
    createdBefore: range.before,
  });
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const callNotFound = () => new ApiError(404, 'call_not_found', 'No call with this id');

export async function callOf(deps: AppDeps, operator: Operator, id: string): Promise<CallRow> {
  const row = UUID.test(id) ? await callsOfTenant(deps.db, tenantOf(operator)).where({ id }).first() : undefined;
  if (!row) throw callNotFound();
  return row;
}

/** The operator's call with its timeline (src/domain/calls/timeline.ts); 404 `call_not_found` for another tenant's. */
async function callViewOf(deps: AppDeps, operator: Operator, id: string): Promise<CallView> {
  const outcome = await callTimeline(deps.db, tenantOf(operator), id, TIMELINE_WORDS, deps.config.publicBaseUrl);
  if (!outcome.ok) throw callNotFound();
  return { ...outcome, storage: await recordingStorageOfCall(deps, outcome.call) };
}

/** The call's workflow in the Temporal Web UI (its id is the call's), when TEMPORAL_UI_URL is set. */
export function temporalUiLink(config: AppDeps['config'], workflowId: string): string | undefined {
  if (!config.temporalUiUrl) return undefined;
  return `${config.temporalUiUrl}/namespaces/${encodeURIComponent(config.temporalNamespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** Calls: the list (filtered by line, status and direction, paged by cursor), a call's page with its live status and transcript, its recording, its Temporal history (hanging up: ./callActions.ts). Every role reads them. */
export function callRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/calls', deps, async (ctx, operator) => {
    const read = readFilters(ctx.query, CALL_FILTERS);
    const nav = navOf(operator, '/portal/calls');
    const shown = { filters: read.values, lines: await linesForFilter(deps, operator) };
    if (read.error) return refuse(ctx, read.error, (error) => callsPage(nav, { ...shown, calls: [], olderCursor: null, error }));
    const query = filteredCalls(deps, operator, read);
    beforeCursor(query, parseCursor(typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined), 'created_at', 'id');
    const rows = await query
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(CALLS_SHOWN + 1);
    const { page, next_cursor } = cursorPage(rows, CALLS_SHOWN, (row) => ({ at: row.created_at, id: row.id }));
    sendPage(
      ctx,
      200,
      callsPage(nav, { ...shown, calls: page.map((row) => toCallRecord(row, deps.config.publicBaseUrl)), olderCursor: next_cursor }),
    );
  });

  getOperatorPage(router, '/portal/calls/:id', deps, async (ctx, operator) => {
    const view = await callViewOf(deps, operator, ctx.params.id);
    const mayHangUp = roleAllows(operator, 'calls:control');
    const campaign = await campaignOfCall(deps.db, actorOf(operator), view.call.id);
    // Legal holds are for the roles that manage them (keys:admin), as `/api/v1/legal-holds` is.
    const holds = roleAllows(operator, 'keys:admin') ? await holdsCoveringCall(deps.db, view.call.id) : undefined;
    sendPage(
      ctx,
      200,
      callPage(navOf(operator, '/portal/calls'), view, temporalUiLink(deps.config, view.call.id), mayHangUp, campaign, holds),
    );
  });

  router.get('/portal/calls/:id/live', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await signedInOperator(ctx, deps, typeof ctx.query.env === 'string' ? ctx.query.env : undefined);
    if (!operator) throw errors.unauthorized();
    const view = await callViewOf(deps, operator, ctx.params.id);
    const hangUp = roleAllows(operator, 'calls:control') ? { csrfToken: operator.csrfToken } : undefined;
    sendPage(ctx, 200, callLive(view, operator.environment, hangUp));
  });

  // The call's recording: its stored copy (seekable), or the carrier's until it is stored (an operator's browser has
  // no carrier credentials), as the API serves it (api/recordings.ts).
  getOperatorPage(router, '/portal/calls/:id/recording', deps, async (ctx, operator) => {
    await sendCallRecording(ctx, deps, await callOf(deps, operator, ctx.params.id));
  });

  getOperatorPage(router, '/portal/calls/:id/history.json', deps, async (ctx, operator) => {
    const outcome = await callHistory(deps, tenantOf(operator), ctx.params.id);
    if (!outcome.ok) {
      if (outcome.refused === 'not_found') throw callNotFound();
      throw new ApiError(404, 'not_found', 'This call has no workflow history (it never started, or Temporal no longer keeps it)');
    }
    ctx.type = 'application/json';
    ctx.set('Content-Disposition', `attachment; filename="${outcome.history.workflowId}.history.json"`);
    ctx.body = JSON.stringify(outcome.history);
  });
}
