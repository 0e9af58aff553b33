import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { errors } from '../errors';
import { toCallRecord } from '../../src/domain/calls/store';
import { search } from '../../src/domain/search/find';
import { MAX_SEARCH_LENGTH } from '../../src/domain/search/rules';
import { refuse } from './answer';
import { sendPage } from './http';
import { getOperatorPage, navOf, tenantOf } from './operatorPages';
import { searchPage } from './pages/search';

/**
 * Find anything (issue 30, item 5): an id opens its call, delivery (an event's: its first attempt's page,
 * which shows every attempt), line or conversation; a phone number lists its calls and messages and the
 * lines holding it; words list the lines named so and the calls whose transcript says them. Every role searches; nothing of another workspace or
 * environment is ever found (src/domain/search/find.ts).
 */
export function searchRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/search', deps, async (ctx, operator) => {
    const nav = navOf(operator, '/portal/search');
    const query = typeof ctx.query.q === 'string' ? ctx.query.q.trim() : '';
    if (query.length > MAX_SEARCH_LENGTH) {
      const tooLong = errors.validation([{ field: 'q', message: `At most ${MAX_SEARCH_LENGTH} characters` }], 'The search is too long');
      return refuse(ctx, tooLong, (error) => searchPage(nav, { query: query.slice(0, MAX_SEARCH_LENGTH), error }));
    }
    const result = await search(deps.db, tenantOf(operator), query);
    const env = `env=${operator.environment}`;
    switch (result.found) {
      case 'call':
        return ctx.redirect(`/portal/calls/${result.callId}?${env}`);
      case 'delivery':
        return ctx.redirect(`/portal/deliveries/${result.deliveryId}?${env}`);
      case 'line':
        return ctx.redirect(`/portal/lines/${result.lineId}?${env}`);
      case 'message':
        return ctx.redirect(`/portal/conversations/${result.lineId}/${encodeURIComponent(result.remoteNumber)}?${env}`);
      case 'nothing':
        return sendPage(ctx, 200, searchPage(nav, { query, nothing: query !== '' }));
      case 'list':
        return sendPage(
          ctx,
          200,
          searchPage(nav, { query, found: { ...result, calls: result.calls.map((row) => toCallRecord(row, deps.config.publicBaseUrl)) } }),
        );
    }
  });
}
