import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { revokeServiceKey } from '../../src/domain/keys/serviceKeys';
import { serviceKeysOf } from '../../src/domain/keys/store';
import { mintServiceKey } from '../../src/domain/keys/serviceKeys';
import { changed, refuse } from './answer';
import { confirmedAction } from './confirm';
import { keyRevocationView } from './keyRevocation';
import { sendPage } from './http';
import { keysPage, type KeysPageInput } from './pages/keys';
import { navOf, roleAllows, tenantOf, postOperatorForm, getOperatorPage } from './operatorPages';
import type { Operator } from './visitor';

const KEYS_SHOWN = 200;
const NAME_MAX_LENGTH = 100;

async function keysInput(deps: AppDeps, operator: Operator, extra: Partial<KeysPageInput> = {}): Promise<KeysPageInput> {
  const keys = await serviceKeysOf(deps.db, tenantOf(operator)).orderBy('created_at', 'desc').limit(KEYS_SHOWN);
  return { keys, mayManage: roleAllows(operator, 'keys:admin'), ...extra };
}

/** Service keys: list, mint (the plaintext shown once) and revoke; the portal is where they are managed (spec). */
export function keyRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/keys', deps, async (ctx, operator) => {
    sendPage(ctx, 200, keysPage(navOf(operator, '/portal/keys'), await keysInput(deps, operator)));
  });

  postOperatorForm(router, '/portal/keys', deps, async (ctx, { form, operator }) => {
    const nav = navOf(operator, '/portal/keys');
    const again = async (error: ApiError) => {
      const input = await keysInput(deps, operator, { form });
      refuse(ctx, error, (shown) => keysPage(nav, { ...input, error: shown }));
    };
    if (!roleAllows(operator, 'keys:admin')) return again(errors.forbidden('Your role cannot mint service keys'));
    const name = (form.name ?? '').trim();
    if (name.length === 0 || name.length > NAME_MAX_LENGTH)
      return again(errors.validation([{ field: 'name', message: `is required, at most ${NAME_MAX_LENGTH} characters` }]));
    const { id, workspace_id, email, role } = operator.user;
    const minted = await mintServiceKey(deps.db, {
      user: { id, workspace_id, email, role },
      environment: operator.environment,
      name,
      via: 'portal',
      now: deps.now(),
    });
    ctx.state.log.info({ key_id: minted.row.id, user_id: id }, 'service key minted in the portal');
    // The plaintext is shown on this answer alone: no redirect, nothing in a URL.
    sendPage(ctx, 201, keysPage(nav, await keysInput(deps, operator, { minted: { name, plaintext: minted.plaintext } })));
  });

  confirmedAction(router, deps, {
    path: '/portal/keys/:id/revoke',
    navPath: '/portal/keys',
    scope: 'keys:admin',
    refusal: 'Your role cannot revoke service keys',
    staleCode: 'key_revoked',
    describe: async (ctx, operator) => {
      const key = await serviceKeysOf(deps.db, tenantOf(operator)).where({ id: ctx.params.id }).first();
      if (!key) throw errors.notFound('Service key');
      return keyRevocationView(key, navOf(operator, '/portal/keys'), {
        path: '/portal/keys',
        kind: 'service key',
        below: 'Every agent key minted with it (POST /v1/keys) is revoked with it.',
      });
    },
    pageAgain: async (operator) => {
      const input = await keysInput(deps, operator);
      return (shown) => keysPage(navOf(operator, '/portal/keys'), { ...input, error: shown });
    },
    act: async (ctx, operator) => {
      const outcome = await revokeServiceKey(deps.db, {
        workspaceId: operator.user.workspace_id,
        keyId: ctx.params.id,
        via: 'portal',
        userId: operator.user.id,
        now: deps.now(),
      });
      if (!outcome.ok) throw errors.notFound('Service key');
      ctx.state.log.info({ key_id: outcome.row.id, revoked_agent_keys: outcome.descendants.length }, 'service key revoked in the portal');
      changed(ctx, `/portal/keys?env=${operator.environment}`, 200, { id: outcome.row.id, revoked_agent_keys: outcome.descendants.length });
    },
  });
}
