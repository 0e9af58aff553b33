/**
 * The older `/api/v1/auth/keys`: owners and admins create and list the workspace's regular
 * keys, with the agent fields (tier, label, line, cap). Same storage and record as the keys
 * plane. The calling key is the minter: the new key is its child and never exceeds it.
 */
import { principalOf, type AppContext, type AppDeps } from '../context';
import { errors } from '../errors';
import { mintAnsweringRefusals } from '../keyErrors';
import { arrayOf, errorResponse, fields, jsonResponse, offsetPaginationParams, ref, jsonRequestBody, total } from '../openapi/schemas';
import { offsetPage } from '../pagination';
import type { RouteDef } from '../routeTable';
import { managedBy } from '../../src/domain/keys/ancestry';
import { agentKeyFieldsOf, toKeyRecord, type AgentKeyFields } from '../../src/domain/keys/agentKeys';
import { isSettableTier } from '../../src/domain/keys/tiers';
import { regularKeysOf, type ApiKeyRow } from '../../src/domain/keys/store';
import { monthlySpendByKey } from '../../src/domain/billing/holds';
import { findUser } from '../../src/domain/workspaces/service';

const auth = { kind: 'standard' as const, scope: 'keys:admin' as const, verb: 'admin' as const };

async function requireAdminUser(ctx: AppContext, deps: AppDeps) {
  const principal = principalOf(ctx);
  const user = await findUser(deps.db, principal.userId);
  if (!user || (user.role !== 'owner' && user.role !== 'admin'))
    throw errors.forbidden('Only owners and admins manage keys here', [{ field: 'role', message: user?.role ?? 'unknown' }]);
  return user;
}

/** The key record of this path: the agent fields, plus the scopes the key holds and the key that minted it. */
const authKeyRecord = (row: ApiKeyRow, monthlySpendCents?: number) => ({
  ...toKeyRecord(row, monthlySpendCents),
  scopes: row.scopes,
  parent_key_id: row.parent_key_id,
});

async function create(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const user = await requireAdminUser(ctx, deps);
  const body = ctx.state.body as Partial<AgentKeyFields> & { name: string };
  if (body.permissions !== undefined && !isSettableTier(body.permissions)) {
    throw errors.validation([{ field: 'permissions', message: `${body.permissions} cannot be set through the API` }]);
  }
  const owner = { workspaceId: principal.workspaceId, userId: user.id, role: user.role, environment: principal.environment };
  const record = await mintAnsweringRefusals(ctx, deps, { owner, fields: agentKeyFieldsOf(body) }, authKeyRecord);
  ctx.status = 201;
  ctx.body = { key: record };
}

async function list(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  await requireAdminUser(ctx, deps);
  const { limit, offset } = ctx.state.query as { limit: number; offset: number };
  const visible = () => managedBy(regularKeysOf(deps.db, principal), principal.key);
  const { rows, total } = await offsetPage(visible, { limit, offset });
  const spend = await monthlySpendByKey(
    deps.db,
    rows.map((row) => row.id),
    deps.now(),
  );
  ctx.body = { keys: rows.map((row) => authKeyRecord(row, spend.get(row.id) ?? 0)), total };
}

export function authKeyRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/auth/keys',
      operationId: 'createAuthKey',
      auth,
      idempotency: { required: false },
      rateLimit: 'tokens.mint',
      doc: {
        summary: 'Create a regular key (owners and admins), a child of the calling key',
        description:
          'The new key inherits the calling key’s number allow-list and spend limit; its tier’s scopes, its `line_id` and its `monthly_cap_cents` may not exceed the calling key’s ' +
          '(403 `forbidden`, details naming `permissions`, `line_id` or `monthly_cap_cents`). `parent_key_id` is the calling key. 60 per hour per workspace and environment (shared with POST /api-tokens).',
        tags: ['keys'],
        requestBody: jsonRequestBody(ref('AuthKeyCreateRequest')),
        responses: {
          '201': jsonResponse('`{key}` with `plaintext_key` (once)', fields({ key: ref('RegularKey') })),
          '403': errorResponse('`forbidden`: not an owner or admin, or beyond the calling key’s grant'),
          '404': errorResponse('`not_found`: the line cannot be bound'),
          '429': errorResponse('`rate_limited`'),
        },
      },
      handler: create,
    },
    {
      method: 'get',
      path: '/api/v1/auth/keys',
      operationId: 'listAuthKeys',
      auth,
      doc: {
        summary:
          "List the workspace's regular keys in this environment (owners and admins), newest first; a delegated key lists only itself and its descendants",
        tags: ['keys'],
        parameters: offsetPaginationParams(100_000),
        responses: {
          '200': jsonResponse('`{keys, total}`; total counts every matching key', fields({ keys: arrayOf(ref('RegularKey')), total })),
        },
      },
      handler: list,
    },
  ];
}
