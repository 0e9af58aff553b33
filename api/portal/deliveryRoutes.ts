import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { deliveriesOfTenant } from '../../src/domain/webhooks/store';
import { sendPage } from './http';
import { navOf, operatorOrLogin, tenantOf } from './operatorPages';
import { deliveriesPage, DELIVERY_STATUSES, type DeliveryRow } from './pages/deliveries';

const DELIVERIES_SHOWN = 100;

/** Webhook delivery attempts, newest first, filtered by status (the API's `GET /webhooks/deliveries`). Every role reads them. */
export function deliveryRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get('/portal/deliveries', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
    const status =
      typeof ctx.query.status === 'string' && (DELIVERY_STATUSES as readonly string[]).includes(ctx.query.status) ? ctx.query.status : '';
    const query = deliveriesOfTenant(deps.db, tenantOf(operator));
    if (status) query.andWhere({ status });
    const rows = (await query
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(DELIVERIES_SHOWN)) as DeliveryRow[];
    sendPage(ctx, 200, deliveriesPage(navOf(operator, '/portal/deliveries'), { rows, status }));
  });
}
