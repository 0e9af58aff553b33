import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError } from '../errors';
import { twoFactorStanding, unusedRecoveryCodes } from '../../src/domain/accounts/store';
import { removeTwoFactor, renewRecoveryCodes } from '../../src/domain/accounts/twoFactorPolicy';
import { RECOVERY_CODE_COUNT } from '../../src/domain/accounts/twoFactorRules';
import { rateLimited } from './accountRoutes';
import { changed } from './answer';
import { envFields, type ConfirmationView } from './components';
import { confirmedAction } from './confirm';
import { html } from './html';
import { sendPage, wantsJson } from './http';
import { navOf } from './operatorPages';
import { securityPage } from './pages/security';
import { securityViewOf } from './twoFactorRoutes';
import type { Operator } from './visitor';

const SECURITY = '/portal/security';
const back = { href: SECURITY, label: 'back to security' };

/** The password a change to one's second factor asks again, on the confirmation itself. */
const passwordField = html`<div class="confirm-field">
  <label for="password">Your password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required />
</div>`;

const securityAgain = (deps: AppDeps) => async (operator: Operator) => {
  const view = await securityViewOf(deps, operator);
  return (shown: Parameters<typeof securityPage>[1]['error']) => securityPage(navOf(operator, SECURITY), { ...view, error: shown });
};

const notEnabled = (message: string) => ({
  code: 'two_factor_not_enabled',
  message,
  state: html`<p id="current-state">Two-factor sign-in is off: signing in needs only your password.</p>`,
});

const requiredByWorkspace = () => new ApiError(409, 'two_factor_required', 'Your workspace requires two-factor sign-in');

/** A password refusal of either action, as the login form words it. */
function passwordError(outcome: { refused: string; retryAfterSeconds?: number }): ApiError {
  if (outcome.refused === 'rate_limited') return rateLimited(outcome.retryAfterSeconds ?? 60);
  if (outcome.refused === 'required_by_workspace') return requiredByWorkspace();
  if (outcome.refused === 'two_factor_not_enabled') return new ApiError(409, 'two_factor_not_enabled', 'Two-factor sign-in is off');
  return new ApiError(401, 'invalid_credentials', 'The password is wrong');
}

/** A second-factor step: its question, and what it says while two-factor sign-in is on (`unused` recovery codes left). */
interface SecondFactorStep {
  title: string;
  path: string;
  confirmLabel: string;
  /** What the step says when two-factor sign-in is already off. */
  offMessage: string;
  consequences: (unused: number) => string[];
}

async function secondFactorView(deps: AppDeps, operator: Operator, step: SecondFactorStep): Promise<ConfirmationView> {
  const base = {
    title: step.title,
    action: step.path,
    hidden: envFields(navOf(operator, SECURITY)),
    confirmLabel: step.confirmLabel,
    back,
    fields: passwordField,
  };
  if (!(await twoFactorStanding(deps.db, operator.user.id)).enabled)
    return { ...base, consequences: [], stale: notEnabled(step.offMessage) };
  return { ...base, consequences: step.consequences(await unusedRecoveryCodes(deps.db, operator.user.id)) };
}

const REMOVAL: SecondFactorStep = {
  title: 'Turn off two-factor sign-in?',
  path: `${SECURITY}/two-factor/remove`,
  confirmLabel: 'Turn off two-factor sign-in',
  offMessage: 'Two-factor sign-in is already off.',
  consequences: (unused) => [
    'Signing in needs only your password from now on: anyone who learns it can sign in as you.',
    `Your authenticator app's codes stop working here, and so do your ${unused} unused recovery codes: they are deleted.`,
    'Turning it on again takes a new key in your app, and gives new recovery codes.',
  ],
};

const RENEWAL: SecondFactorStep = {
  title: 'Make new recovery codes?',
  path: `${SECURITY}/recovery-codes`,
  confirmLabel: 'Make new recovery codes',
  offMessage: 'Two-factor sign-in is off: there are no recovery codes.',
  consequences: (unused) => [
    `Your old recovery codes stop working at once, wherever you kept them (${unused} of them are unused now).`,
    `${RECOVERY_CODE_COUNT} new codes are shown once, on the next page: keep them somewhere safe.`,
    'Your authenticator app keeps working as before.',
  ],
};

async function removalView(deps: AppDeps, operator: Operator): Promise<ConfirmationView> {
  if ((await twoFactorStanding(deps.db, operator.user.id)).required) throw requiredByWorkspace();
  return secondFactorView(deps, operator, REMOVAL);
}

/**
 * A person's own second-factor changes that cannot be undone, each behind its confirmation step (./confirm.ts) with
 * the password asked again on it: turning two-factor sign-in off, and replacing the recovery codes.
 */
export function securityActions(router: Router<AppState>, deps: AppDeps): void {
  confirmedAction(router, deps, {
    path: REMOVAL.path,
    navPath: SECURITY,
    staleCode: 'two_factor_not_enabled',
    describe: (_ctx, operator) => removalView(deps, operator),
    pageAgain: securityAgain(deps),
    act: async (ctx: AppContext, operator, form) => {
      const outcome = await removeTwoFactor(deps, { userId: operator.user.id, password: form.password ?? '', clientAddress: ctx.ip });
      if (!outcome.ok) throw passwordError(outcome);
      ctx.state.log.info({ user_id: operator.user.id }, 'portal two-factor sign-in turned off');
      changed(ctx, SECURITY, 200, { two_factor: false });
    },
  });

  confirmedAction(router, deps, {
    path: RENEWAL.path,
    navPath: SECURITY,
    staleCode: 'two_factor_not_enabled',
    describe: (_ctx, operator) => secondFactorView(deps, operator, RENEWAL),
    pageAgain: securityAgain(deps),
    act: async (ctx: AppContext, operator, form) => {
      const outcome = await renewRecoveryCodes(deps, { userId: operator.user.id, password: form.password ?? '', clientAddress: ctx.ip });
      if (!outcome.ok) throw passwordError(outcome);
      ctx.state.log.info({ user_id: operator.user.id }, 'portal recovery codes renewed');
      if (wantsJson(ctx)) {
        ctx.body = { recovery_codes: outcome.recoveryCodes };
        return;
      }
      // The codes are shown on this answer alone: no redirect, nothing in a URL.
      const view = await securityViewOf(deps, operator);
      const notice = 'New recovery codes are ready; the old ones no longer work.';
      sendPage(ctx, 200, securityPage(navOf(operator, SECURITY), { ...view, recoveryCodes: outcome.recoveryCodes, notice }));
    },
  });
}
