import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { keyName } from '../openapi/fields';
import { MinterRevokedError } from '../../src/domain/keys/ancestry';
import { GrantExceededError, type Grant } from '../../src/domain/keys/grants';
import { hasScope, isScope, ROLE_PRESETS, type Role, type Scope } from '../../src/domain/keys/scopes';
import { findScopedToken, mintScopedToken, revokeScopedTokenAsOperator, scopedTokensOf } from '../../src/domain/keys/scopedTokens';
import type { ApiKeyRow } from '../../src/domain/keys/store';
import { tierAllows } from '../../src/domain/keys/tiers';
import { knownLineIds, linesOf } from '../../src/domain/lines/store';
import { userEmailsOf } from '../../src/domain/accounts/store';
import { findUser } from '../../src/domain/workspaces/service';
import { mintRegularKey, ScopeBeyondRoleError } from '../../src/domain/keys/userKeys';
import { changed } from './answer';
import { confirmedAction } from './confirm';
import { keyRevocationView } from './keyRevocation';
import { sendPage } from './http';
import { gatedFormPost, navOf, operatorOrLogin, roleAllows, tenantOf, type GatedFormPost } from './operatorPages';
import { apiKeysPage, type ApiKeysPageInput } from './pages/apiKeys';
import type { Operator } from './visitor';

const KEYS_SHOWN = 200;
const PAGE = '/portal/api-keys';

async function pageInput(deps: AppDeps, operator: Operator, extra: Partial<ApiKeysPageInput> = {}): Promise<ApiKeysPageInput> {
  const tenant = tenantOf(operator);
  const keys = await scopedTokensOf(deps.db, tenant).orderBy('created_at', 'desc').limit(KEYS_SHOWN);
  const lines = await linesOf(deps.db, tenant).whereNull('released_at').orderBy('created_at').select('id', 'name', 'phone_number');
  const minterIds = [...new Set(keys.flatMap((key) => [key.user_id, ...(key.minted_by_user_id ? [key.minted_by_user_id] : [])]))];
  return {
    keys,
    parents: keys.filter((key) => mayParent(operator, key)),
    users: await userEmailsOf(deps.db, operator.user.workspace_id, minterIds),
    lines,
    scopes: ROLE_PRESETS[operator.user.role],
    mayManage: roleAllows(operator, 'keys:admin'),
    now: deps.now(),
    ...extra,
  };
}

/** Whether the operator may mint below `parent`: their own key, or any key for an owner. */
function mayParent(operator: Operator, parent: Pick<ApiKeyRow, 'user_id'>): boolean {
  return parent.user_id === operator.user.id || operator.user.role === 'owner';
}

/** The checked `scope.<name>` boxes of a form (a form field per scope: one name cannot carry several values here). */
function checked(form: Record<string, string>, prefix: string): string[] {
  return Object.keys(form)
    .filter((name) => name.startsWith(prefix) && form[name] !== '')
    .map((name) => name.slice(prefix.length));
}

function nameOf(form: Record<string, string>): string {
  const name = (form.name ?? '').trim();
  // The limits of the API's key name (`keyName`): the same key minted either way.
  if (name.length < keyName.minLength || name.length > keyName.maxLength || !new RegExp(keyName.pattern).test(name))
    throw errors.validation([{ field: 'name', message: `is required, at most ${keyName.maxLength} characters` }]);
  return name;
}

function scopesOf(form: Record<string, string>, field: string): Scope[] {
  const scopes = checked(form, 'scope.');
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw errors.validation([{ field, message: `Unknown scopes: ${unknown.join(', ')}` }]);
  if (scopes.length === 0) throw errors.validation([{ field, message: 'Choose at least one scope' }]);
  return scopes as Scope[];
}

/** The grant of a delegated token as `/api-tokens` takes it: scopes, an optional line allow-list, an optional spend limit. */
async function grantOf(deps: AppDeps, operator: Operator, form: Record<string, string>): Promise<Grant> {
  const scopes = scopesOf(form, 'grant.scopes');
  const numbers = checked(form, 'line.');
  if (numbers.length > 0) {
    const known = await knownLineIds(deps.db, tenantOf(operator), numbers);
    const unknown = numbers.filter((id) => !known.includes(id));
    if (unknown.length) throw errors.validation([{ field: 'grant.resources.numbers', message: `Unknown lines: ${unknown.join(', ')}` }]);
  }
  const amount = (form.spend_limit_cents ?? '').trim();
  if (amount !== '' && !/^[0-9]{1,12}$/.test(amount))
    throw errors.validation([{ field: 'grant.spendLimit', message: 'Must be a whole number of cents' }]);
  return {
    scopes,
    numbers: numbers.length > 0 ? numbers : null,
    spendLimit:
      amount === '' ? null : { amountCents: Number(amount), resetPeriod: form.spend_reset_period === 'monthly' ? 'monthly' : null },
  };
}

/** What a delegated token is minted from: its parent, the parent's user's role, its name and grant. */
export interface Delegation {
  parent: ApiKeyRow;
  role: Role;
  name: string;
  grant: Grant;
}

/**
 * Checks a delegation form as its parent key would be checked on `POST /api-tokens`: the parent must
 * hold `keys:admin` with an admin tier, and the child stays within the parent's grant as its user's
 * role clamps it (checked when minting). The parent is one of the operator's own keys; only an owner
 * may mint below another member's (issue 27, M13). The OAuth consent page (./oauthRoutes.ts) uses it too.
 */
export async function delegationOf(deps: AppDeps, operator: Operator, form: Record<string, string>): Promise<Delegation> {
  const name = nameOf(form);
  const parent = await findScopedToken(deps.db, tenantOf(operator), form.parent_key_id ?? '');
  if (!parent) throw errors.validation([{ field: 'parent_key_id', message: 'Choose a key of this environment' }]);
  if (!mayParent(operator, parent))
    throw errors.forbidden("Only an owner can mint below another member's key: choose one of your own keys", [
      { field: 'parent_key_id', message: parent.key_prefix },
    ]);
  if (!hasScope(parent.scopes, 'keys:admin') || !tierAllows(parent.permissions, 'admin'))
    throw errors.forbidden('The parent key cannot delegate: it lacks keys:admin', [{ field: 'parent_key_id', message: parent.key_prefix }]);
  const grant = await grantOf(deps, operator, form);
  const parentUser = await findUser(deps.db, parent.user_id);
  if (!parentUser) throw errors.validation([{ field: 'parent_key_id', message: 'Its user is no longer a member' }]);
  return { parent, role: parentUser.role, name, grant };
}

/** Runs a mint of `delegation`, answering its refusals (beyond the parent's grant, a revoked parent) as the API does. */
export async function mintingAnswered<T>(mint: () => Promise<T>): Promise<T> {
  try {
    return await mint();
  } catch (err) {
    if (err instanceof GrantExceededError) throw new ApiError(403, 'forbidden', err.message, err.excess);
    if (err instanceof MinterRevokedError)
      throw errors.validation([{ field: 'parent_key_id', message: 'The parent key (or a key above it) is revoked or expired' }]);
    throw err;
  }
}

/** The keys the operator may mint below (live, holding `keys:admin`) and the lines a grant may name. */
export async function delegationChoices(deps: AppDeps, operator: Operator) {
  const input = await pageInput(deps, operator);
  const parents = input.parents.filter(
    (key) =>
      !(key.revoked_at && key.revoked_at <= input.now) &&
      !(key.expires_at && key.expires_at <= input.now) &&
      hasScope(key.scopes, 'keys:admin'),
  );
  return { parents, lines: input.lines, scopes: input.scopes };
}

/** Mints a delegated token in the portal; the token records the operator as its minter, so their removal or demotion reaches it. */
async function mintDelegated(deps: AppDeps, operator: Operator, form: Record<string, string>) {
  const delegation = await delegationOf(deps, operator, form);
  const now = deps.now();
  return mintingAnswered(() =>
    deps.db.transaction((trx) => mintScopedToken(trx, { ...delegation, now, mintedBy: { userId: operator.user.id, via: 'portal' } })),
  );
}

/**
 * Regular API keys and the delegated tokens below them (spec "Scoped key delegation"): list,
 * mint (the plaintext shown once) and revoke, for owners and admins as `keys:admin` gates the API.
 */
export function apiKeyRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get(PAGE, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
    sendPage(ctx, 200, apiKeysPage(navOf(operator, PAGE), await pageInput(deps, operator)));
  });

  /** A signed-in keys:admin form post, its refusals shown on the page again with what was typed. */
  const keyChange = (path: string, act: GatedFormPost['act']) =>
    gatedFormPost(router, deps, {
      path,
      scope: 'keys:admin',
      refusal: 'Your role cannot manage API keys',
      act,
      pageAgain: async (operator, form) => {
        const input = await pageInput(deps, operator, { form });
        return (shown) => apiKeysPage(navOf(operator, PAGE), { ...input, error: shown });
      },
    });

  keyChange(PAGE, async (ctx, operator, form) => {
    const name = nameOf(form);
    const scopes = scopesOf(form, 'scopes');
    let minted;
    try {
      minted = await mintRegularKey(deps.db, {
        user: operator.user,
        environment: operator.environment,
        name,
        scopes,
        via: 'portal',
        now: deps.now(),
      });
    } catch (err) {
      if (err instanceof ScopeBeyondRoleError) throw errors.forbidden(err.message, [{ field: 'scopes', message: err.message }]);
      throw err;
    }
    ctx.state.log.info({ key_id: minted.row.id, user_id: operator.user.id }, 'regular key minted in the portal');
    // The plaintext is on this answer alone: no redirect, nothing in a URL, never logged.
    const input = await pageInput(deps, operator, { minted: { kind: 'API key', name, plaintext: minted.plaintext } });
    sendPage(ctx, 201, apiKeysPage(navOf(operator, PAGE), input));
  });

  keyChange(`${PAGE}/delegated`, async (ctx, operator, form) => {
    const minted = await mintDelegated(deps, operator, form);
    ctx.state.log.info(
      { key_id: minted.row.id, parent_key_id: minted.row.parent_key_id, user_id: operator.user.id },
      'delegated token minted in the portal',
    );
    const input = await pageInput(deps, operator, {
      minted: { kind: 'Delegated token', name: minted.row.name, plaintext: minted.plaintext },
    });
    sendPage(ctx, 201, apiKeysPage(navOf(operator, PAGE), input));
  });

  confirmedAction(router, deps, {
    path: `${PAGE}/:id/revoke`,
    navPath: PAGE,
    scope: 'keys:admin',
    refusal: 'Your role cannot manage API keys',
    staleCode: 'key_revoked',
    describe: async (ctx, operator) => {
      const key = await findScopedToken(deps.db, tenantOf(operator), ctx.params.id);
      if (!key) throw errors.notFound('API key');
      return keyRevocationView(key, navOf(operator, PAGE), {
        path: PAGE,
        kind: key.parent_key_id ? 'delegated token' : 'API key',
        below: 'Every token delegated below it is revoked with it.',
      });
    },
    pageAgain: async (operator) => {
      const input = await pageInput(deps, operator);
      return (shown) => apiKeysPage(navOf(operator, PAGE), { ...input, error: shown });
    },
    act: async (ctx, operator) => {
      const outcome = await revokeScopedTokenAsOperator(deps.db, {
        tenant: tenantOf(operator),
        keyId: ctx.params.id,
        via: 'portal',
        userId: operator.user.id,
        now: deps.now(),
      });
      if (!outcome.ok) throw errors.notFound('API key');
      ctx.state.log.info(
        { key_id: outcome.row.id, revoked_below: outcome.descendants.length, user_id: operator.user.id },
        'API key revoked in the portal',
      );
      changed(ctx, `${PAGE}?env=${operator.environment}`, 200, { id: outcome.row.id, revoked_below: outcome.descendants.length });
    },
  });
}
