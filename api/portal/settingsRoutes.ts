import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { errors } from '../errors';
import { updateSettings } from '../../src/domain/billing/updateSettings';
import { workspaceCallingWindow } from '../../src/domain/callingHours/refusal';
import { changeTimeZone } from '../../src/domain/workspaces/timeZone';
import { legalHoldsOf, recordingSettings } from '../../src/domain/recordings/store';
import { gatedFormPost, navOf, tenantOf } from './operatorPages';
import type { Operator } from './visitor';
import { sendPage } from './http';
import { callingWindowOfForm, callingWindowText } from './pages/callingHours';
import { settingsPage, type SettingsPageInput } from './pages/settings';
import { renderInTimeZone } from './timeZoneScope';

/** What the settings page reads: this environment's calling window, its recordings retention and active legal holds. */
export async function settingsInput(deps: AppDeps, operator: Operator): Promise<SettingsPageInput> {
  const tenant = tenantOf(operator);
  const [callingWindow, recordings, holds] = await Promise.all([
    workspaceCallingWindow(deps.db, tenant),
    recordingSettings(deps.db, tenant),
    legalHoldsOf(deps.db, tenant).whereNull('released_at').orderBy('created_at', 'desc').limit(LEGAL_HOLDS_SHOWN),
  ]);
  return { callingWindow, retentionDays: recordings.retention_days, legalHolds: holds };
}

/** Active holds the settings page lists (the API lists them all). */
const LEGAL_HOLDS_SHOWN = 50;

/**
 * The workspace's time zone (issue 30, item 5) and the environment's calling hours (issue 31, item 1):
 * what PATCH /api/v1/settings's scope allows (keys:admin: owners and admins).
 */
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
      const input = await settingsInput(deps, operator);
      sendPage(
        ctx,
        200,
        settingsPage(navOf(operator, '/portal/settings'), { ...input, notice: `Times are now shown in ${outcome.timeZone}.` }),
      );
    },
    pageAgain: async (operator, form) => {
      const input = await settingsInput(deps, operator);
      return (shown) => settingsPage(navOf(operator, '/portal/settings'), { ...input, error: shown, typedTimeZone: form.time_zone });
    },
  });

  gatedFormPost(router, deps, {
    path: '/portal/settings/calling-window',
    scope: 'keys:admin',
    refusal: 'Your role cannot change the calling hours',
    rateLimit: 'settings.update',
    act: async (ctx, operator, form) => {
      const outcome = await updateSettings(
        deps,
        { ...tenantOf(operator), keyId: null, via: 'portal', userId: operator.user.id },
        { calling_window: callingWindowOfForm(form) },
      );
      // The form's own field names (start, end, days), as the page shows them.
      if (!outcome.ok) throw errors.validation(outcome.problems.map((p) => ({ ...p, field: p.field.replace(/^calling_window\./, '') })));
      ctx.state.log.info({ user_id: operator.user.id, environment: operator.environment }, 'portal calling hours changed');
      const input = await settingsInput(deps, operator);
      const notice = `Calls in the ${operator.environment} environment are placed ${callingWindowText(input.callingWindow)}.`;
      sendPage(ctx, 200, settingsPage(navOf(operator, '/portal/settings'), { ...input, notice }));
    },
    pageAgain: async (operator, form) => {
      const input = await settingsInput(deps, operator);
      return (shown) => settingsPage(navOf(operator, '/portal/settings'), { ...input, error: shown, callingForm: form });
    },
  });
}
