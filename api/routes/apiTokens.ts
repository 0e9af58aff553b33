import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { arrayOf, errorResponse, fields, jsonResponse, offsetPaginationParams, ref, jsonRequestBody, total } from '../openapi/schemas';
import type { RouteDef } from './types';
import { grantExcess, type Grant } from '../../src/keys/grants';
import type { Scope } from '../../src/keys/scopes';
import { grantOf, mintScopedToken, revokeScopedToken, scopedTokensOf, toScopedTokenRecord } from '../../src/keys/scopedTokens';

/** Scoped-key delegation at `/api-tokens` (spec: "Scoped key delegation"); needs `keys:admin`. */
interface MintBody {
  name: string;
  grant: { scopes: Scope[]; resources?: { numbers?: string[] }; spendLimit?: { amountCents: number; resetPeriod?: 'monthly' | null } | null };
}

const auth = { kind: 'standard' as const, scope: 'keys:admin' as const, verb: 'admin' as const };
const tokenResponse = (description: string) =>
  jsonResponse(description, {
    type: 'object',
    required: ['api_token'],
    properties: { api_token: ref('ScopedKey'), key: { type: 'string', description: 'The plaintext key: in the first response to a mint only' } },
  });

async function mint(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const body = ctx.state.body as MintBody;
  const grant: Grant = {
    scopes: body.grant.scopes,
    numbers: body.grant.resources?.numbers ?? null,
    spendLimit: body.grant.spendLimit ? { amountCents: body.grant.spendLimit.amountCents, resetPeriod: body.grant.spendLimit.resetPeriod ?? null } : null,
  };
  if (grant.numbers) {
    const known = await deps.db('lines').where({ workspace_id: principal.workspaceId, environment: principal.environment }).whereIn('id', [...grant.numbers]).pluck('id');
    const unknown = grant.numbers.filter((id) => !known.includes(id));
    if (unknown.length) throw errors.validation([{ field: 'grant.resources.numbers', message: `Unknown lines: ${unknown.join(', ')}` }]);
  }
  const now = deps.now();
  const result = await deps.db.transaction(async (trx) => {
    const minted = await mintScopedToken(trx, { parent: principal.key, name: body.name, grant, now });
    if (minted.ok) await ctx.state.idempotency?.completeInTransaction(trx, 201, { api_token: toScopedTokenRecord(minted.row) });
    return minted;
  });
  if (!result.ok) throw new ApiError(403, 'forbidden', "The requested grant exceeds the minting key's own", result.excess);
  ctx.status = 201;
  ctx.body = { api_token: toScopedTokenRecord(result.row), key: result.plaintext };
}

async function list(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const { limit, offset } = ctx.state.query as { limit: number; offset: number };
  const [rows, [{ total }]] = await Promise.all([
    scopedTokensOf(deps.db, principal).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).offset(offset),
    scopedTokensOf(deps.db, principal).count<{ total: string }[]>('id as total'),
  ]);
  ctx.body = { api_tokens: rows.map(toScopedTokenRecord), total: Number(total) };
}

async function revoke(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const target = await scopedTokensOf(deps.db, principal).andWhere({ id: ctx.params.id }).first();
  if (!target) throw errors.notFound('API token');
  // Revoking is as powerful as minting: only keys within the caller's own grant.
  const excess = grantExcess(grantOf(principal.key), grantOf(target));
  if (excess.length > 0) throw new ApiError(403, 'forbidden', "This key's grant exceeds yours; you cannot revoke it", excess);
  const revoked = await deps.db.transaction((trx) => revokeScopedToken(trx, { target, actor: principal.key, now: deps.now() }));
  ctx.body = { api_token: toScopedTokenRecord(revoked) };
}

export function apiTokenRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api-tokens',
      operationId: 'mintApiToken',
      auth,
      idempotency: { required: false },
      doc: {
        summary: 'Mint a child key within this key’s grant',
        description: 'The child inherits workspace, user and environment. `key` (the plaintext) is in this response only. Scopes, number allow-list and spend limit may not exceed the minting key’s (403 with details naming the part).',
        tags: ['keys'],
        requestBody: jsonRequestBody(ref('ScopedKeyMintRequest')),
        responses: { '201': tokenResponse('`{api_token, key}`') },
      },
      handler: mint,
    },
    {
      method: 'get',
      path: '/api-tokens',
      operationId: 'listApiTokens',
      auth,
      doc: {
        summary: "List the workspace's keys in this environment (agent keys are listed on /v1/keys), newest first",
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
        summary: 'Revoke a key (effective on its next request)',
        tags: ['keys'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: { '200': tokenResponse('`{api_token}` with `revoked_at` set'), '404': errorResponse('`not_found`') },
      },
      handler: revoke,
    },
  ];
}
