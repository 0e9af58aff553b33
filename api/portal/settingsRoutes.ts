import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { isUuid } from '../openapi/formats';
import { callNotFound, holdSubjectOrFail } from '../routes/legalHolds';
import {
  LEGAL_HOLD_REASON_MAX_LENGTH,
  placeLegalHold,
  releaseLegalHold,
  toLegalHoldRecord,
  type HoldActor,
} from '../../src/domain/recordings/legalHolds';
import { updateSettings } from '../../src/domain/billing/updateSettings';
import { workspaceCallingWindow } from '../../src/domain/callingHours/refusal';
import { changeTimeZone } from '../../src/domain/workspaces/timeZone';
import { legalHoldsOf, recordingSettings, type LegalHoldRow } from '../../src/domain/recordings/store';
import { changed } from './answer';
import { envFields, time } from './components';
import { confirmedAction } from './confirm';
import { html } from './html';
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

const SETTINGS = '/portal/settings';

/** The portal's user placing or releasing a hold: no key; the compliance event names the user (`via: portal`). */
const holdActorOf = (operator: Operator): HoldActor => ({
  ...tenantOf(operator),
  keyId: null,
  by: { userId: operator.user.id, via: 'portal' },
});

/** A hold id that is no hold of this environment's (another tenant's, released or not, or no id at all): as the API's 404. */
const holdNotFound = () => new ApiError(404, 'legal_hold_not_found', 'No legal hold with this id');

async function holdOf(deps: AppDeps, operator: Operator, id: string): Promise<LegalHoldRow> {
  const hold = isUuid(id) ? await legalHoldsOf(deps.db, tenantOf(operator)).andWhere({ id }).first() : undefined;
  if (!hold) throw holdNotFound();
  return hold;
}

/** A form field as the API's optional body field: absent when left empty. */
const given = (form: Record<string, string>, name: string) => {
  const value = (form[name] ?? '').trim();
  return value === '' ? undefined : value;
};

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

  // Legal holds (issue 32, item 4): placed and released by the use cases `/api/v1/legal-holds` calls, with the scope its
  // routes need (keys:admin: owners and admins), each a compliance event naming the portal user.
  gatedFormPost(router, deps, {
    path: `${SETTINGS}/legal-holds`,
    scope: 'keys:admin',
    refusal: 'Your role cannot place legal holds',
    rateLimit: 'settings.update',
    act: async (ctx, operator, form) => {
      const subject = holdSubjectOrFail({ call_id: given(form, 'call_id'), phone_number: given(form, 'phone_number') });
      // The API's schema refuses a call id that is no UUID (422 naming it); an id of no call of this environment is 404.
      if (subject.callId !== undefined && !isUuid(subject.callId))
        throw errors.validation([{ field: 'call_id', message: 'Must be a call id (a UUID)' }]);
      const reason = (form.reason ?? '').trim();
      if (reason.length === 0 || reason.length > LEGAL_HOLD_REASON_MAX_LENGTH)
        throw errors.validation([{ field: 'reason', message: `Is required, at most ${LEGAL_HOLD_REASON_MAX_LENGTH} characters` }]);
      const outcome = await placeLegalHold(deps, holdActorOf(operator), subject, reason);
      if (!outcome.ok) throw callNotFound();
      const { hold } = outcome;
      ctx.state.log.info({ user_id: operator.user.id, legal_hold_id: hold.id }, 'portal legal hold placed');
      const input = await settingsInput(deps, operator);
      const what = hold.call_id ? `call ${hold.call_id}` : `every call from or to ${hold.phone_number}`;
      sendPage(ctx, 201, settingsPage(navOf(operator, SETTINGS), { ...input, notice: `Legal hold placed on ${what}.` }));
    },
    pageAgain: async (operator, form) => {
      const input = await settingsInput(deps, operator);
      return (shown) => settingsPage(navOf(operator, SETTINGS), { ...input, error: shown, holdForm: form });
    },
  });

  confirmedAction(router, deps, {
    path: `${SETTINGS}/legal-holds/:id/release`,
    navPath: SETTINGS,
    scope: 'keys:admin',
    refusal: 'Your role cannot release legal holds',
    rateLimit: 'settings.update',
    staleCode: 'legal_hold_released',
    describe: async (ctx, operator) => {
      const hold = await holdOf(deps, operator, ctx.params.id);
      const nav = navOf(operator, SETTINGS);
      const what = hold.call_id
        ? html`the call <span class="mono">${hold.call_id}</span>`
        : html`every call from or to <span class="mono">${hold.phone_number}</span>`;
      const base = {
        title: `Release the legal hold on ${hold.call_id ? 'a call' : hold.phone_number}?`,
        action: `${SETTINGS}/legal-holds/${hold.id}/release`,
        hidden: envFields(nav),
        confirmLabel: 'Release legal hold',
        back: { href: `${SETTINGS}?env=${operator.environment}#legal-holds`, label: 'back to settings' },
      };
      if (hold.released_at)
        return {
          ...base,
          consequences: [],
          stale: {
            message: 'This legal hold is already released.',
            state: html`<p id="current-state">Released ${time(hold.released_at)}.</p>`,
          },
        };
      return {
        ...base,
        consequences: [
          html`The hold on ${what}, placed ${time(hold.created_at)} (“${hold.reason}”), ends now; it is kept, released, for the audit.`,
          'The next daily retention run deletes the recordings and transcripts it kept, if they are past the retention and no other hold keeps them.',
          'The release is recorded in the compliance log with your name.',
        ],
      };
    },
    pageAgain: async (operator) => {
      const input = await settingsInput(deps, operator);
      return (shown) => settingsPage(navOf(operator, SETTINGS), { ...input, error: shown });
    },
    act: async (ctx, operator) => {
      const released = await releaseLegalHold(deps, holdActorOf(operator), ctx.params.id);
      // Released by someone else since the confirmation was shown: nothing more to do.
      if (!released) throw new ApiError(409, 'legal_hold_released', 'This legal hold is already released');
      ctx.state.log.info({ user_id: operator.user.id, legal_hold_id: released.id }, 'portal legal hold released');
      changed(ctx, `${SETTINGS}?env=${operator.environment}#legal-holds`, 200, { legal_hold: toLegalHoldRecord(released) });
    },
  });
}
