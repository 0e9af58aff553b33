import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { isUuid } from '../openapi/formats';
import { EVENT_TYPES } from '../../src/domain/webhooks/events';
import { deliveriesOfTenant, filteredDeliveriesOf } from '../../src/domain/webhooks/store';
import { redeliverEvent } from '../../src/domain/webhooks/redeliver';
import { beforeCursor, cursorPage, parseCursor } from '../pagination';
import { changed, refuse } from './answer';
import { spendPortalLimit } from './limits';
import { sendPage } from './http';
import { navOf, roleAllows, tenantOf, postOperatorForm, getOperatorPage } from './operatorPages';
import { DELIVERY_STATUSES } from './labels';
import { linesForFilter } from './lineChoices';
import { readFilters, type FilterRule, type ReadFilters } from './listFilters';
import {
  deliveriesPage,
  deliveryAttempts,
  deliveryPage,
  type DeliveryDetailInput,
  type DeliveryListFilters,
  type DeliveryRow,
} from './pages/deliveries';
import { signedInOperator, type Operator } from './visitor';

const DELIVERIES_SHOWN = 100;

/** The attempt `deliveryId` of the operator's tenant and every attempt of its event; 404 for another tenant's. */
async function deliveryInput(deps: AppDeps, operator: Operator, deliveryId: string): Promise<DeliveryDetailInput> {
  const tenant = tenantOf(operator);
  const opened = isUuid(deliveryId) ? await deliveriesOfTenant(deps.db, tenant).where({ id: deliveryId }).first('event_id') : undefined;
  if (!opened) throw errors.notFound('Delivery');
  const attempts = (await deliveriesOfTenant(deps.db, tenant)
    .where({ event_id: opened.event_id })
    .orderBy([
      { column: 'attempt', order: 'asc' },
      { column: 'created_at', order: 'asc' },
    ])) as DeliveryRow[];
  // Redelivering is what POST /webhooks/test needs of a key: webhooks:write (owners and admins).
  return { deliveryId, eventId: opened.event_id, attempts, mayRedeliver: roleAllows(operator, 'webhooks:write') };
}

/** The attempt a redelivery was started as (`?started=N`), when the query names one. */
function startedOf(value: unknown): { started?: number } {
  const started = Number(value);
  return Number.isInteger(started) && started > 0 ? { started } : {};
}

/** The deliveries list's filters, as the query string carries them (api/portal/listFilters.ts). */
export const DELIVERY_FILTERS = {
  status: { oneOf: DELIVERY_STATUSES },
  line_id: 'uuid',
  call_id: 'uuid',
  event_type: { oneOf: EVENT_TYPES },
  event_id: 'uuid',
  from: 'from',
  to: 'to',
} as const satisfies Record<keyof DeliveryListFilters, FilterRule>;

/** The operator's deliveries narrowed by the list's filters (read by `readFilters`), newest first: the list's and the CSV's query. */
export function filteredDeliveries(deps: AppDeps, operator: Operator, read: ReadFilters<keyof DeliveryListFilters>) {
  const { values, range } = read;
  return filteredDeliveriesOf(deps.db, tenantOf(operator), {
    status: values.status || undefined,
    lineId: values.line_id || undefined,
    callId: values.call_id || undefined,
    eventType: values.event_type || undefined,
    eventId: values.event_id || undefined,
    createdFrom: range.from,
    createdBefore: range.before,
  }).orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ]);
}

/** Webhook delivery attempts, newest first, filtered by status, line, call, event type, event and time (the API's `GET /webhooks/deliveries` and more), paged by cursor. Every role reads them. */
export function deliveryRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/deliveries', deps, async (ctx, operator) => {
    const read = readFilters(ctx.query, DELIVERY_FILTERS);
    const lines = await linesForFilter(deps, operator);
    const nav = navOf(operator, '/portal/deliveries');
    const shown = { filters: read.values, lines };
    if (read.error) return refuse(ctx, read.error, (error) => deliveriesPage(nav, { ...shown, rows: [], olderCursor: null, error }));
    const query = filteredDeliveries(deps, operator, read);
    beforeCursor(query, parseCursor(typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined), 'created_at', 'id');
    const rows = (await query.limit(DELIVERIES_SHOWN + 1)) as DeliveryRow[];
    const { page, next_cursor } = cursorPage(rows, DELIVERIES_SHOWN, (row) => ({ at: row.created_at, id: row.id }));
    sendPage(ctx, 200, deliveriesPage(nav, { ...shown, rows: page, olderCursor: next_cursor }));
  });

  getOperatorPage(router, '/portal/deliveries/:id', deps, async (ctx, operator) => {
    const input = await deliveryInput(deps, operator, ctx.params.id);
    sendPage(ctx, 200, deliveryPage(navOf(operator, '/portal/deliveries'), { ...input, ...startedOf(ctx.query.started) }));
  });

  // The attempts part of a delivery's page, reloaded by htmx while a redelivery is under way (pages/deliveries.ts `deliveryAttempts`).
  router.get('/portal/deliveries/:id/live', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await signedInOperator(ctx, deps, typeof ctx.query.env === 'string' ? ctx.query.env : undefined);
    if (!operator) throw errors.unauthorized();
    const input = await deliveryInput(deps, operator, ctx.params.id);
    sendPage(ctx, 200, deliveryAttempts({ ...input, ...startedOf(ctx.query.started) }, operator.environment));
  });

  /** Redeliver ("Resend"): the event again as a new attempt through the delivery workflow (src/domain/webhooks/redeliver.ts). */
  postOperatorForm(router, '/portal/deliveries/:id/redeliver', deps, async (ctx, { operator }) => {
    const input = await deliveryInput(deps, operator, ctx.params.id);
    const nav = navOf(operator, '/portal/deliveries');
    const again = (error: ApiError) => refuse(ctx, error, (shown) => deliveryPage(nav, { ...input, error: shown }));
    if (!input.mayRedeliver) return again(errors.forbidden('Your role cannot redeliver webhooks'));
    const limited = await spendPortalLimit(ctx, deps, operator, 'webhooks.test');
    if (limited) return again(limited);
    const outcome = await redeliverEvent(deps, tenantOf(operator), ctx.params.id);
    if (!outcome.ok) {
      if (outcome.refused === 'not_found') throw errors.notFound('Delivery');
      return again(
        outcome.refused === 'in_progress'
          ? new ApiError(409, 'delivery_in_progress', outcome.message)
          : outcome.refused === 'egress_refused'
            ? errors.validation([{ field: 'url', message: outcome.message }], 'The destination is refused by the egress policy')
            : new ApiError(409, outcome.refused, outcome.message),
      );
    }
    ctx.state.log.info(
      { user_id: operator.user.id, event_id: outcome.eventId, attempt: outcome.attempt },
      'webhook redelivered from the portal',
    );
    changed(ctx, `/portal/deliveries/${ctx.params.id}?env=${operator.environment}&started=${outcome.attempt}`, 202, {
      event_id: outcome.eventId,
      attempt: outcome.attempt,
    });
  });
}
