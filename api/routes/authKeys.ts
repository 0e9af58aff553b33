import { principalOf, type AppContext, type AppDeps } from '../context';
import { errors } from '../errors';
import { arrayOf, errorResponse, fields, jsonResponse, ref, jsonRequestBody } from '../openapi/schemas';
import type { RouteDef } from './types';
import { isBindableLine, mintAgentKey, toKeyRecord, type AgentKeyFields } from '../../src/keys/agentKeys';
import { DEFAULT_TIER, isSettableTier } from '../../src/keys/tiers';
import { monthlySpendByKey } from '../../src/billing/holds';
import { findUser } from '../../src/workspaces/service';

/**
 * The older `/api/v1/auth/keys`: owners and admins create and list the workspace's regular
 * keys. Same storage and record as the keys plane.
 */
const auth = { kind: 'standard' as const, scope: 'keys:admin' as const, verb: 'admin' as const };

async function requireAdminUser(ctx: AppContext, deps: AppDeps) {
  const principal = principalOf(ctx);
  const user = await findUser(deps.db, principal.userId);
  if (!user || (user.role !== 'owner' && user.role !== 'admin')) throw errors.forbidden('Only owners and admins manage keys here', [{ field: 'role', message: user?.role ?? 'unknown' }]);
  return user;
}

async function create(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const user = await requireAdminUser(ctx, deps);
  const body = ctx.state.body as Partial<AgentKeyFields> & { name: string };
  if (body.permissions !== undefined && !isSettableTier(body.permissions)) {
    throw errors.validation([{ field: 'permissions', message: `${body.permissions} cannot be set through the API` }]);
  }
  const owner = { workspaceId: principal.workspaceId, userId: user.id, role: user.role, environment: principal.environment };
  if (body.line_id && !(await isBindableLine(deps.db, owner, body.line_id))) throw errors.notFound('Line');
  const now = deps.now();
  const record = await deps.db.transaction(async (trx) => {
    const minted = await mintAgentKey(trx, {
      owner,
      fields: { name: body.name, agent_label: body.agent_label ?? null, line_id: body.line_id ?? null, permissions: body.permissions ?? DEFAULT_TIER, monthly_cap_cents: body.monthly_cap_cents ?? null },
      actorKeyId: principal.key.id,
      createdByServiceKeyId: null,
      now,
    });
    const key = toKeyRecord(minted.row);
    await ctx.state.idempotency?.completeInTransaction(trx, 201, { key });
    return { ...key, plaintext_key: minted.plaintext };
  });
  ctx.status = 201;
  ctx.body = { key: record };
}

async function list(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  await requireAdminUser(ctx, deps);
  const rows = await deps
    .db('api_keys')
    .where({ workspace_id: principal.workspaceId, environment: principal.environment, kind: 'standard' })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  const spend = await monthlySpendByKey(deps.db, rows.map((row) => row.id), deps.now());
  ctx.body = { keys: rows.map((row) => ({ ...toKeyRecord(row, spend.get(row.id) ?? 0), scopes: row.scopes })) };
}

export function authKeyRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/auth/keys',
      operationId: 'createAuthKey',
      auth,
      idempotency: { required: false },
      doc: {
        summary: 'Create a regular key (owners and admins)',
        tags: ['keys'],
        requestBody: jsonRequestBody(ref('AuthKeyCreateRequest')),
        responses: {
          '201': jsonResponse('`{key}` with `plaintext_key` (once)', fields({ key: ref('AgentKey') })),
          '404': errorResponse('`not_found`: the line cannot be bound'),
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
        summary: "List the workspace's regular keys in this environment (owners and admins)",
        tags: ['keys'],
        responses: { '200': jsonResponse('`{keys}`', fields({ keys: arrayOf(ref('RegularKey')) })) },
      },
      handler: list,
    },
  ];
}
