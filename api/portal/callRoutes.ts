import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { callHistory } from '../../src/domain/calls/history';
import { CALL_STATUSES } from '../../src/domain/calls/rules';
import { callsOfTenant, toCallRecord, type CallRow } from '../../src/domain/calls/store';
import { sendPage } from './http';
import { navOf, operatorOrLogin, tenantOf } from './operatorPages';
import { callLive, callPage, callsPage } from './pages/calls';
import { signedInOperator, type Operator } from './visitor';

const CALLS_SHOWN = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const callNotFound = () => new ApiError(404, 'call_not_found', 'No call with this id');

async function callOf(deps: AppDeps, operator: Operator, id: string): Promise<CallRow> {
  const row = UUID.test(id) ? await callsOfTenant(deps.db, tenantOf(operator)).where({ id }).first() : undefined;
  if (!row) throw callNotFound();
  return row;
}

/** Calls: the list (filtered by status), a call's page with its live status and transcript, its Temporal history. Every role reads them. */
export function callRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get('/portal/calls', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
    const status =
      typeof ctx.query.status === 'string' && (CALL_STATUSES as readonly string[]).includes(ctx.query.status) ? ctx.query.status : '';
    const query = callsOfTenant(deps.db, tenantOf(operator));
    if (status) query.andWhere({ status });
    const rows = await query
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(CALLS_SHOWN);
    sendPage(ctx, 200, callsPage(navOf(operator, '/portal/calls'), { calls: rows.map(toCallRecord), status }));
  });

  router.get('/portal/calls/:id', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
    sendPage(ctx, 200, callPage(navOf(operator, '/portal/calls'), toCallRecord(await callOf(deps, operator, ctx.params.id))));
  });

  router.get('/portal/calls/:id/live', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await signedInOperator(ctx, deps, typeof ctx.query.env === 'string' ? ctx.query.env : undefined);
    if (!operator) throw errors.unauthorized();
    sendPage(ctx, 200, callLive(toCallRecord(await callOf(deps, operator, ctx.params.id)), operator.environment));
  });

  router.get('/portal/calls/:id/history.json', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
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
