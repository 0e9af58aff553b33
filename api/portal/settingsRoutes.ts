import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { errors } from '../errors';
import { changeTimeZone } from '../../src/domain/workspaces/timeZone';
import { gatedFormPost, navOf } from './operatorPages';
import { sendPage } from './http';
import { settingsPage } from './pages/settings';
import { renderInTimeZone } from './timeZoneScope';

/** The workspace's time zone (issue 30, item 5): what PATCH /api/v1/settings's scope allows (keys:admin: owners and admins). */
export function settingsRoutes(router: Router<AppState>, deps: AppDeps): void {
  gatedFormPost(router, deps, {
    path: '/portal/settings/time-zone',
    scope: 'keys:admin',
    refusal: 'Your role cannot change the workspace’s time zone',
    rateLimit: 'settings.update',
    act: async (ctx, operator, form) => {
      const outcome = await changeTimeZone(deps.db, operator.user.workspace_id, (form.time_zone ?? '').trim());
      if (!outcome.ok) throw errors.validation([{ field: 'time_zone', message: outcome.message }]);
      ctx.state.log.info({ user_id: operator.user.id, time_zone: outcome.timeZone }, 'portal workspace time zone changed');
      // This answer is rendered in the new zone already.
      renderInTimeZone(outcome.timeZone);
      sendPage(ctx, 200, settingsPage(navOf(operator, '/portal/settings'), { notice: `Times are now shown in ${outcome.timeZone}.` }));
    },
    pageAgain: async (operator, form) => (shown) =>
      settingsPage(navOf(operator, '/portal/settings'), { error: shown, typedTimeZone: form.time_zone }),
  });
}
