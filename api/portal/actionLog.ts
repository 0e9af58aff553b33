import type Koa from 'koa';
import type { AppContext, AppDeps, AppState } from '../context';
import { normalizeEmail } from '../../src/domain/accounts/rules';
import { toE164 } from '../../src/platform/phone';
import {
  personByEmail,
  personById,
  recordPortalAction,
  type ActingPerson,
  type PortalActionOutcome,
} from '../../src/domain/compliance/portalActions';
import { FIELD_MAX_LENGTH, PORTAL_ACTIONS, unlistedAction, type PortalActionKind } from './actionCatalog';
import type { NotedAction } from './notedAction';

/**
 * The portal's action log (issue 30, item 2; docs/decisions/portal.md "Every portal action has an author"): one
 * middleware around every portal form post records who acted, from which address and browser, what they did and
 * how it ended. Routes only add what a form cannot say (`noteAction`): the person a sign-in just identified, the
 * object a creation made, or what an edit changed. A post whose form is not the portal's own (no valid CSRF token)
 * is not recorded: anyone could otherwise write into a workspace's log from another site.
 */

export function noteAction(ctx: { state: AppState }, noted: NotedAction): void {
  const current = ctx.state.portalAction ?? {};
  ctx.state.portalAction = { ...current, ...noted, details: { ...current.details, ...noted.details } };
}

function kindOf(ctx: AppContext): PortalActionKind | undefined {
  const matched = (ctx as unknown as { matched?: Array<{ methods: string[]; path: string }> }).matched ?? [];
  const route = matched.filter((layer) => layer.methods.includes('POST')).at(-1);
  if (!route) return undefined;
  return PORTAL_ACTIONS[route.path] ?? unlistedAction(route.path);
}

/** Phone number fields: recorded in E.164 when they parse, so the log reads (and is searched) one way. */
const PHONE_FIELDS = new Set(['phone_number', 'to_number']);

/**
 * The form fields the catalogue names for this action, as typed (phone numbers in E.164 when they parse); checkbox
 * groups as the list of those checked.
 */
export function describedFields(kind: PortalActionKind, form: Record<string, string>): Record<string, string> {
  const described: Record<string, string> = {};
  for (const field of kind.fields ?? []) {
    const value = field.endsWith('.')
      ? Object.keys(form)
          .filter((name) => name.startsWith(field) && form[name] !== '')
          .map((name) => name.slice(field.length))
          .join(', ')
      : (form[field] ?? '').trim();
    const shown = PHONE_FIELDS.has(field) ? (toE164(value) ?? value) : value;
    if (shown !== '') described[field.endsWith('.') ? field.slice(0, -1) : field] = shown.slice(0, FIELD_MAX_LENGTH);
  }
  return described;
}

async function personOf(deps: AppDeps, noted: NotedAction): Promise<ActingPerson | undefined> {
  if (noted.userId) return personById(deps.db, noted.userId);
  if (noted.operator) return noted.operator;
  // A refused sign-in names no session: the account its email signs in to (an unknown email is no workspace's).
  const email = noted.form?.email?.trim();
  return email ? personByEmail(deps.db, normalizeEmail(email)) : undefined;
}

function outcomeOf(status: number): PortalActionOutcome {
  return status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'succeeded';
}

/** The action log's middleware: put it outside the portal's error answering, so refusals are recorded with their code. */
export function portalActionLog(deps: AppDeps): Koa.Middleware<AppState> {
  return async (rawCtx, next) => {
    const ctx = rawCtx as AppContext;
    if (ctx.method !== 'POST') return next();
    let thrown = false;
    try {
      await next();
    } catch (err) {
      thrown = true;
      throw err;
    } finally {
      await record(ctx, deps, thrown).catch((err: unknown) =>
        // The action itself is done (or refused) already: a failed record is logged, never turned into an error page.
        ctx.state.log.error({ err: (err as Error).message, path: ctx.path }, 'portal action not recorded in the audit log'),
      );
    }
  };
}

async function record(ctx: AppContext, deps: AppDeps, thrown: boolean): Promise<void> {
  const noted = ctx.state.portalAction;
  const kind = kindOf(ctx);
  if (!kind || !noted?.formTrusted || noted.confirmationOnly) return;
  const person = await personOf(deps, noted);
  if (!person) {
    ctx.state.log.info({ action: kind.action, client_address: ctx.ip }, 'portal action by no known account: not in any audit log');
    return;
  }
  const status = thrown ? 500 : ctx.status;
  const environment = noted.form?.env === 'live' ? 'live' : 'test';
  const params = (ctx as unknown as { params?: Record<string, string> }).params ?? {};
  await recordPortalAction(deps.db, {
    workspaceId: person.workspaceId,
    environment: kind.scope === 'workspace' ? null : environment,
    userId: person.userId,
    email: person.email,
    action: kind.action,
    outcome: outcomeOf(status),
    refusalCode: status >= 400 ? (noted.refusalCode ?? (thrown ? 'internal_error' : null)) : null,
    targetId: noted.targetId ?? params.id ?? null,
    details: { ...describedFields(kind, noted.form ?? {}), ...noted.details },
    clientAddress: ctx.ip || null,
    userAgent: ctx.get('user-agent') || null,
    at: deps.now(),
  });
}
