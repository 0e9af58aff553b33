import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import type { Scope } from '../../src/domain/keys/scopes';
import { refuse } from './answer';
import { CONFIRM_FIELD, CONFIRMED, isConfirmed, type ConfirmationView } from './components';
import type { Html } from './html';
import { sendPage, wantsJson } from './http';
import { spendPortalLimit, type PortalLimit } from './limits';
import type { ShownError } from './layout';
import { navOf, operatorForm, operatorOrLogin, roleAllows } from './operatorPages';
import { confirmPage } from './pages/confirm';
import type { Operator } from './visitor';
import { noteAction } from './actionLog';

/** A destructive or irreversible portal action (revoke, remove, release, hang up, rotate) and its confirmation step. */
export interface ConfirmedAction {
  /** Where its button posts; a GET of the same path shows its confirmation (so a reload never meets a 404). */
  path: string;
  /** The navigation entry it belongs to (`/portal/lines`). */
  navPath: string;
  /**
   * The scope its API counterpart needs, and what a role without it is told (403); without one, every role may (a
   * person's own sign-in settings).
   */
  scope?: Scope;
  refusal?: string;
  /** The row of the limits table its API counterpart spends, spent only when it acts. */
  rateLimit?: PortalLimit;
  /**
   * What the confirmation says of this object as it is now; throws an ApiError when there is none to act on
   * (404 for another workspace's). `fields` are the posted form's (or, on a GET, the query's).
   */
  describe: (ctx: AppContext, operator: Operator, fields: Record<string, string>) => Promise<ConfirmationView>;
  /**
   * The code a script is answered with (409) when the confirmation is stale (`line_released`, `call_not_active`),
   * unless the stale view names its own.
   */
  staleCode: string;
  /** Acts, once confirmed, and answers; an ApiError it throws is shown on the confirmation page. */
  act: (ctx: AppContext, operator: Operator, form: Record<string, string>) => Promise<void>;
  /**
   * The page the action starts from, showing an error that came before any confirmation (unknown object, role);
   * without it such an error is the portal's error page.
   */
  pageAgain?: (operator: Operator) => Promise<(shown: ShownError) => Html>;
}

function queryFields(ctx: AppContext): Record<string, string> {
  return Object.fromEntries(Object.entries(ctx.query).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])));
}

/**
 * Serves `action`: GET shows its confirmation; a POST (CSRF-checked) without `confirm=yes` changes nothing and shows
 * it again (a script gets 422 naming the field); a stale one (the object changed since) is answered 409 with what
 * changed and the current state; a confirmed one acts.
 */
export function confirmedAction(router: Router<AppState>, deps: AppDeps, action: ConfirmedAction): void {
  const viewOf = async (ctx: AppContext, operator: Operator, fields: Record<string, string>) => {
    if (action.scope && !roleAllows(operator, action.scope)) throw errors.forbidden(action.refusal ?? 'Your role cannot do this');
    return action.describe(ctx, operator, fields);
  };
  const onStartPage = async (ctx: AppContext, operator: Operator, err: unknown) => {
    if (!(err instanceof ApiError) || !action.pageAgain) throw err;
    refuse(ctx, err, await action.pageAgain(operator));
  };

  router.get(action.path, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
    let view: ConfirmationView;
    try {
      view = await viewOf(ctx, operator, queryFields(ctx));
    } catch (err) {
      return onStartPage(ctx, operator, err);
    }
    sendPage(ctx, 200, confirmPage(navOf(operator, action.navPath), view));
  });

  router.post(action.path, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const signedIn = await operatorForm(ctx, deps);
    if (!signedIn) return;
    const { form, operator } = signedIn;
    const nav = navOf(operator, action.navPath);
    let view: ConfirmationView;
    try {
      view = await viewOf(ctx, operator, form);
    } catch (err) {
      return onStartPage(ctx, operator, err);
    }
    if (view.stale) {
      ctx.state.log.info({ path: ctx.path, user_id: operator.user.id }, 'portal action on a changed object: nothing done');
      return refuse(ctx, new ApiError(409, view.stale.code ?? action.staleCode, view.stale.message), () => confirmPage(nav, view));
    }
    if (!isConfirmed(form)) {
      // Only the confirmation is shown: nothing was done, so the action log records nothing.
      noteAction(ctx, { confirmationOnly: true });
      if (wantsJson(ctx)) {
        const message = `Confirm the action: send ${CONFIRM_FIELD}=${CONFIRMED}`;
        return refuse(ctx, errors.validation([{ field: CONFIRM_FIELD, message }]), () => confirmPage(nav, view));
      }
      return sendPage(ctx, 200, confirmPage(nav, view));
    }
    try {
      const limited = action.rateLimit && (await spendPortalLimit(ctx, deps, operator, action.rateLimit));
      if (limited) throw limited;
      await action.act(ctx, operator, form);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      refuse(ctx, err, (shown) => confirmPage(nav, view, shown));
    }
  });
}
