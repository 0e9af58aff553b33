/**
 * Scoped-key delegation at `/api-tokens` (spec: "Scoped key delegation"); needs `keys:admin`.
 * A root key (made by an operator) manages the workspace's keys in its environment; a delegated
 * key sees and revokes only its own subtree (anything else is 404, existence not leaked).
 */
import { principalOf, type AppContext, type AppDeps, type Principal } from '../context';
import { ApiError, errors } from '../errors';
import { answeringKeyRefusals } from '../keyErrors';
import { arrayOf, errorResponse, fields, jsonResponse, offsetPaginationParams, ref, jsonRequestBody, total } from '../openapi/schemas';
import { offsetPage } from '../pagination';
import type { RouteDef } from '../routeTable';
import type { Grant } from '../../src/domain/keys/grants';
import type { Role, Scope } from '../../src/domain/keys/scopes';
import { mintScopedToken, revokeManagedToken, toScopedTokenRecord, tokensManagedBy } from '../../src/domain/keys/scopedTokens';
import { knownLineIds } from '../../src/domain/lines/store';
import { findUser } from '../../src/domain/workspaces/service';

interface MintBody {
  name: string;
  grant: {
    scopes: Scope[];
    resources?: { numbers?: string[] };
    spendLimit?: { amountCents: number; resetPeriod?: 'monthly' | null } | null;
  };
}

const auth = { kind: 'standard' as const, scope: 'keys:admin' as const, verb: 'admin' as const };
const tokenResponse = (description: string) =>
  jsonResponse(description, {
    type: 'object',
    required: ['api_token'],
    properties: {
      api_token: ref('ScopedKey'),
      key: { type: 'string', description: 'The plaintext key: in the first response to a mint only' },
    },
  });

/** The principal's user's current role: a minter never passes on more than its user may hold. */
async function roleOf(deps: AppDeps, principal: Principal): Promise<Role> {
  const user = await findUser(deps.db, principal.userId);
  if (!user) throw errors.invalidApiKey();
  return user.role;
}

async function mint(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const body = ctx.state.body as MintBody;
  const grant: Grant = {
    scopes: body.grant.scopes,
    numbers: body.grant.resources?.numbers ?? null,
    spendLimit: body.grant.spendLimit
      ? { amountCents: body.grant.spendLimit.amountCents, resetPeriod: body.grant.spendLimit.resetPeriod ?? null }
      : null,
  };
  if (grant.numbers) {
    const known = await knownLineIds(deps.db, principal, grant.numbers);
    const unknown = grant.numbers.filter((id) => !known.includes(id));
    if (unknown.length) throw errors.validation([{ field: 'grant.resources.numbers', message: `Unknown lines: ${unknown.join(', ')}` }]);
  }
  const role = await roleOf(deps, principal);
  const now = deps.now();
  const result = await answeringKeyRefusals(() =>
    deps.db.transaction(async (trx) => {
      const minted = await mintScopedToken(trx, { parent: principal.key, role, name: body.name, grant, now });
      await ctx.state.idempotency?.completeInTransaction(trx, 201, { api_token: toScopedTokenRecord(minted.row) });
      return minted;
    }),
  );
  ctx.status = 201;
  ctx.body = { api_token: toScopedTokenRecord(result.row), key: result.plaintext };
}

async function list(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const { limit, offset } = ctx.state.query as { limit: number; offset: number };
  const { rows, total } = await offsetPage(() => tokensManagedBy(deps.db, principal.key), { limit, offset });
  ctx.body = { api_tokens: rows.map(toScopedTokenRecord), total };
}

async function revoke(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const roleOfManager = () => roleOf(deps, principal);
  const outcome = await revokeManagedToken(deps.db, {
    manager: principal.key,
    roleOf: roleOfManager,
    tokenId: ctx.params.id,
    now: deps.now,
  });
  if (!outcome.ok) {
    if (outcome.refused === 'not_found') throw errors.notFound('API token');
    throw new ApiError(403, 'forbidden', "This key's grant exceeds yours; you cannot revoke it", outcome.excess);
  }
  ctx.body = { api_token: toScopedTokenRecord(outcome.row) };
}

export function apiTokenRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api-tokens',
      operationId: 'mintApiToken',
      auth,
      idempotency: { required: false },
      rateLimit: 'tokens.mint',
      doc: {
        summary: 'Mint a child key within this key’s grant',
        description:
          'The child inherits workspace, user, environment and permission tier; `parent_key_id` is the minting key. `key` (the plaintext) is in this response only. ' +
          'Scopes, number allow-list and spend limit may not exceed the minting key’s (403 with details naming the part). ' +
          'Spend anywhere below a key counts against its limit. Revoking a key revokes every key below it. 60 per hour per workspace and environment (shared with POST /api/v1/auth/keys).',
        tags: ['keys'],
        requestBody: jsonRequestBody(ref('ScopedKeyMintRequest')),
        responses: {
          '201': tokenResponse('`{api_token, key}`'),
          '403': errorResponse('`forbidden`: the grant exceeds the minting key’s'),
          '429': errorResponse('`rate_limited`'),
        },
      },
      handler: mint,
    },
    {
      method: 'get',
      path: '/api-tokens',
      operationId: 'listApiTokens',
      auth,
      doc: {
        summary:
          "List the workspace's keys in this environment (agent keys are listed on /v1/keys), newest first; a delegated key lists only itself and its descendants",
        tags: ['keys'],
        parameters: offsetPaginationParams(100_000),
        responses: {
          '200': jsonResponse('`{api_tokens, total}`', fields({ api_tokens: arrayOf(ref('ScopedKey')), total })),
        },
      },
      handler: list,
    },
    {
      method: 'post',
      path: '/api-tokens/{id}/revoke',
      operationId: 'revokeApiToken',
      auth,
      doc: {
        summary: 'Revoke a key and every key below it (effective on their next request)',
        tags: ['keys'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: { '200': tokenResponse('`{api_token}` with `revoked_at` set'), '404': errorResponse('`not_found`') },
      },
      handler: revoke,
    },
  ];
}
