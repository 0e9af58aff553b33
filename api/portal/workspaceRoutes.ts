import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { lineCreationError } from '../lineErrors';
import { changePassword } from '../../src/domain/accounts/changePassword';
import { recentActivity } from '../../src/domain/accounts/activity';
import { gettingStarted } from '../../src/domain/accounts/gettingStarted';
import { mcpResourceOf } from '../../src/domain/oauth/rules';
import { workspaceOverview } from '../../src/domain/accounts/overview';
import { provisionLine, type LineRequest } from '../../src/domain/lines/provision';
import { findSettings } from '../../src/domain/billing/settings';
import { fieldsOfMode } from '../../src/domain/lines/modeFields';
import { PROMOTION_DELAY_MS } from '../../src/domain/lines/rules';
import { signedDeliveriesOf, stagedSecretTimes } from '../../src/domain/lines/secrets';
import { linesOf, toLineRecord, type LineRow } from '../../src/domain/lines/store';
import { refuse } from './answer';
import { spendPortalLimit } from './limits';
import { sendPage } from './http';
import { linesPage, type LineSecretState, type LinesPageInput } from './pages/lines';
import { overviewPage, overviewStats } from './pages/overview';
import { settingsPage } from './pages/settings';
import { settingsInput } from './settingsRoutes';
import { navOf, roleAllows, tenantOf, postOperatorForm, getOperatorPage } from './operatorPages';
import { signedInOperator, type Operator } from './visitor';
import { noteAction } from './actionLog';

const LINES_SHOWN = 200;

export async function linesInput(deps: AppDeps, operator: Operator, extra: Partial<LinesPageInput> = {}): Promise<LinesPageInput> {
  const rows = await linesOf(deps.db, tenantOf(operator)).orderBy('created_at', 'desc').limit(LINES_SHOWN);
  return {
    lines: rows.map(toLineRecord),
    secrets: await secretStatesOf(deps, operator, rows),
    mayManage: roleAllows(operator, 'numbers:provision'),
    mayRotate: roleAllows(operator, 'webhooks:write'),
    ...extra,
  };
}

/** The workspace's default webhook URL in the operator's environment (it receives the events of lines without their own). */
export async function defaultWebhookUrlOf(deps: AppDeps, operator: Operator): Promise<string | null> {
  return (await findSettings(deps.db, tenantOf(operator)))?.default_webhook_url ?? null;
}

/** Each line's signing secrets as the list shows them: what they sign and a staged one, with when it may be promoted. */
async function secretStatesOf(deps: AppDeps, operator: Operator, rows: LineRow[]): Promise<Map<string, LineSecretState>> {
  const [staged, defaultWebhookUrl] = await Promise.all([
    stagedSecretTimes(
      deps.db,
      rows.map((row) => row.id),
    ),
    defaultWebhookUrlOf(deps, operator),
  ]);
  return new Map(
    rows.map((row) => {
      const at = staged.get(row.id);
      const state: LineSecretState = { signs: signedDeliveriesOf(row, defaultWebhookUrl) };
      if (at) state.staged = { at, promotableAt: new Date(at.getTime() + PROMOTION_DELAY_MS) };
      return [row.id, state];
    }),
  );
}

/**
 * The create form's number fields as the API's body: "Buy" sends the criteria typed (blank ones
 * left to their defaults), "Import" the owned number alone.
 */
export function numberFieldsOfForm(
  form: Record<string, string>,
): Pick<LineRequest, 'area_code' | 'country' | 'number_type' | 'phone_number'> {
  const typed = (field: string) => form[field]?.trim() || undefined;
  if (form.number_source === 'imported') return { phone_number: typed('phone_number') ?? '' };
  return { area_code: typed('area_code'), country: typed('country')?.toUpperCase(), number_type: typed('number_type') };
}

/** The create form's mode-dependent fields as the API's body: those the chosen mode uses (`fieldsOfMode`), typed ones only. */
export function modeFieldsOfForm(
  form: Record<string, string>,
): Pick<LineRequest, 'system_prompt' | 'webhook_url' | 'audio_handler_url' | 'begin_message' | 'voice'> {
  const used = fieldsOfMode(form.mode ?? '');
  const typed = (field: 'system_prompt' | 'webhook_url' | 'audio_handler_url' | 'begin_message' | 'voice') =>
    used.includes(field) && form[field]?.trim() ? form[field] : null;
  return {
    system_prompt: typed('system_prompt'),
    webhook_url: typed('webhook_url'),
    audio_handler_url: typed('audio_handler_url'),
    begin_message: typed('begin_message'),
    voice: typed('voice'),
  };
}

/** Pages of a signed-in operator: overview, lines, settings. */
export function workspaceRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal', deps, async (ctx, operator) => {
    const tenant = tenantOf(operator);
    const [overview, steps, activity] = await Promise.all([
      workspaceOverview(deps, tenant),
      gettingStarted(deps, tenant),
      recentActivity(deps, tenant),
    ]);
    const mcpUrl = mcpResourceOf(deps.config.publicBaseUrl);
    sendPage(ctx, 200, overviewPage({ overview, steps, activity, mcpUrl }, navOf(operator, '/portal')));
  });

  router.get('/portal/overview/stats', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await signedInOperator(ctx, deps, String(ctx.query.env ?? ''));
    if (!operator) throw errors.unauthorized();
    sendPage(ctx, 200, overviewStats(await workspaceOverview(deps, tenantOf(operator)), operator.environment));
  });

  getOperatorPage(router, '/portal/lines', deps, async (ctx, operator) => {
    sendPage(ctx, 200, linesPage(navOf(operator, '/portal/lines'), await linesInput(deps, operator)));
  });

  postOperatorForm(router, '/portal/lines', deps, async (ctx, { form, operator }) => {
    const nav = navOf(operator, '/portal/lines');
    const again = async (error: ApiError) => {
      const input = await linesInput(deps, operator, { form });
      refuse(ctx, error, (shown) => linesPage(nav, { ...input, error: shown }));
    };
    if (!roleAllows(operator, 'numbers:provision')) return again(errors.forbidden('Your role cannot create lines'));
    const limited = await spendPortalLimit(ctx, deps, operator, 'lines.create');
    if (limited) return again(limited);
    const outcome = await provisionLine(
      deps,
      ctx.state.log,
      { workspaceId: operator.user.workspace_id, userId: operator.user.id, environment: operator.environment, keyId: null },
      { name: form.name ?? '', mode: form.mode ?? '', ...modeFieldsOfForm(form), ...numberFieldsOfForm(form) },
    );
    if (!outcome.ok) return again(lineCreationError(outcome));
    noteAction(ctx, { targetId: outcome.line.id, details: { phone_number: outcome.line.phone_number ?? '' } });
    const signs = signedDeliveriesOf(outcome.line, await defaultWebhookUrlOf(deps, operator));
    // The secret is shown on this answer alone: no redirect, nothing in a URL.
    ctx.set('Location', `/portal/lines?env=${operator.environment}`);
    sendPage(
      ctx,
      201,
      linesPage(nav, await linesInput(deps, operator, { secret: { lineName: outcome.line.name, secret: outcome.webhookSecret, signs } })),
    );
  });

  getOperatorPage(router, '/portal/settings', deps, async (ctx, operator) => {
    // A call's page links here to place a hold on it: its id comes filled in.
    const holdForm = typeof ctx.query.hold_call_id === 'string' ? { call_id: ctx.query.hold_call_id } : undefined;
    sendPage(ctx, 200, settingsPage(navOf(operator, '/portal/settings'), { ...(await settingsInput(deps, operator)), holdForm }));
  });

  postOperatorForm(router, '/portal/settings/password', deps, async (ctx, { form, operator }) => {
    const nav = navOf(operator, '/portal/settings');
    const outcome = await changePassword(deps, {
      userId: operator.user.id,
      sessionId: operator.session.id,
      currentPassword: form.current_password ?? '',
      newPassword: form.new_password ?? '',
      clientAddress: ctx.ip,
    });
    if (!outcome.ok) {
      const error =
        outcome.refused === 'invalid_fields'
          ? errors.validation(outcome.problems)
          : outcome.refused === 'rate_limited'
            ? new ApiError(429, 'rate_limited', 'Too many attempts; try again later', undefined, {
                'Retry-After': String(outcome.retryAfterSeconds),
              })
            : new ApiError(401, 'invalid_credentials', 'The current password is wrong');
      const input = await settingsInput(deps, operator);
      return refuse(ctx, error, (shown) => settingsPage(nav, { ...input, error: shown }));
    }
    ctx.state.log.info({ user_id: operator.user.id, revoked_sessions: outcome.revokedSessions }, 'portal password changed');
    sendPage(
      ctx,
      200,
      settingsPage(nav, { ...(await settingsInput(deps, operator)), notice: 'Password changed; your other sessions are signed out.' }),
    );
  });
}
