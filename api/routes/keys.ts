/**
 * The service-key plane: agent (child) keys managed with a service key. Served at `/v1/keys`
 * (the spec) and `/api/v1/keys` (the public client), same handlers, same idempotency records.
 */
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { answeringKeyRefusals, mintAnsweringRefusals } from '../keyErrors';
import { arrayOf, errorResponse, fields, jsonResponse, offsetPaginationParams, ref, jsonRequestBody, total } from '../openapi/schemas';
import { offsetPage } from '../pagination';
import type { RouteDef } from '../routeTable';
import {
  agentKeyFieldsOf,
  agentKeysOf,
  revokeAgentKey,
  rotateAgentKey,
  toKeyRecord,
  updateAgentKey,
  type AgentKeyFields,
  type AgentKeyOwner,
} from '../../src/domain/keys/agentKeys';
import { isSettableTier } from '../../src/domain/keys/tiers';
import { monthlySpendByKey } from '../../src/domain/billing/holds';
import type { ApiKeyRow } from '../../src/domain/keys/store';
import { findUser } from '../../src/domain/workspaces/service';

const keyIdParam = { name: 'id', in: 'path' as const, required: true, schema: { type: 'string', format: 'uuid' } };
const keyResponse = (description: string) => jsonResponse(description, fields({ key: ref('AgentKey') }));

async function ownerOf(ctx: AppContext, deps: AppDeps): Promise<AgentKeyOwner> {
  const principal = principalOf(ctx);
  const user = await findUser(deps.db, principal.userId);
  if (!user) throw errors.invalidApiKey();
  return { workspaceId: principal.workspaceId, userId: principal.userId, role: user.role, environment: principal.environment };
}

/** Key records with this month's spend read from the ledger. */
async function withSpend(deps: AppDeps, rows: ApiKeyRow[]) {
  const spend = await monthlySpendByKey(
    deps.db,
    rows.map((row) => row.id),
    deps.now(),
  );
  return rows.map((row) => toKeyRecord(row, spend.get(row.id) ?? 0));
}

function refuseLegacyTier(permissions: string | undefined): void {
  if (permissions !== undefined && !isSettableTier(permissions)) {
    throw errors.validation([
      { field: 'permissions', message: `${permissions} cannot be set through the API; use full, call_only, sms_only or read_only` },
    ]);
  }
}

function keyRevoked(): ApiError {
  return new ApiError(409, 'key_revoked', 'This key is revoked; it cannot be changed or rotated');
}

async function mint(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const owner = await ownerOf(ctx, deps);
  const body = ctx.state.body as Partial<AgentKeyFields> & { name: string; environment?: string };
  if (body.environment !== undefined && body.environment !== principal.environment) {
    throw errors.validation([{ field: 'environment', message: `Must be ${principal.environment}, the environment of this service key` }]);
  }
  refuseLegacyTier(body.permissions);
  // Rule 7's binding 404 (missing, foreign, other-environment or released line) is raised inside
  // the transaction, so nothing is written and nothing is cached.
  const record = await mintAnsweringRefusals(ctx, deps, { owner, fields: agentKeyFieldsOf(body) }, toKeyRecord);
  ctx.state.log.info({ minted_key_id: record.id }, 'agent key minted');
  ctx.status = 201;
  ctx.body = { key: record };
}

async function list(ctx: AppContext, deps: AppDeps): Promise<void> {
  const owner = await ownerOf(ctx, deps);
  const { limit, offset } = ctx.state.query as { limit: number; offset: number };
  const base = () => agentKeysOf(deps.db, owner).whereNull('revoked_at');
  const { rows, total } = await offsetPage(base, { limit, offset });
  ctx.body = { keys: await withSpend(deps, rows), total };
}

async function findOwned(ctx: AppContext, deps: AppDeps, owner: AgentKeyOwner) {
  const row = await agentKeysOf(deps.db, owner).andWhere({ id: ctx.params.id }).first();
  if (!row) throw errors.notFound('Key');
  return row;
}

async function get(ctx: AppContext, deps: AppDeps): Promise<void> {
  const row = await findOwned(ctx, deps, await ownerOf(ctx, deps));
  ctx.body = { key: (await withSpend(deps, [row]))[0] };
}

async function update(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const owner = await ownerOf(ctx, deps);
  const changes = ctx.state.body as Partial<AgentKeyFields>;
  refuseLegacyTier(changes.permissions);
  const row = await findOwned(ctx, deps, owner);
  if (row.revoked_at) throw keyRevoked();
  const updated = await answeringKeyRefusals(() =>
    deps.db.transaction((trx) => updateAgentKey(trx, { key: row, changes, owner, minter: principal.key, now: deps.now() })),
  );
  ctx.body = { key: (await withSpend(deps, [updated]))[0] };
}

async function revoke(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const row = await findOwned(ctx, deps, await ownerOf(ctx, deps));
  const revoked = await deps.db.transaction((trx) => revokeAgentKey(trx, { key: row, actorKeyId: principal.key.id, now: deps.now() }));
  ctx.body = { key: (await withSpend(deps, [revoked]))[0] };
}

async function rotate(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const owner = await ownerOf(ctx, deps);
  const now = deps.now();
  const result = await answeringKeyRefusals(() =>
    deps.db.transaction(async (trx) => {
      const rotated = await rotateAgentKey(trx, { keyId: ctx.params.id, owner, minter: principal.key, now });
      if (rotated.outcome === 'rotated') await ctx.state.idempotency?.completeInTransaction(trx, 201, { key: toKeyRecord(rotated.row) });
      return rotated;
    }),
  );
  if (result.outcome === 'not_found') throw errors.notFound('Key');
  if (result.outcome === 'revoked') throw keyRevoked();
  ctx.state.log.info({ old_key_id: result.old.id, new_key_id: result.row.id }, 'agent key rotated');
  ctx.status = 201;
  ctx.body = { key: { ...toKeyRecord(result.row), plaintext_key: result.plaintext } };
}

export function keyPlaneRoutes(): RouteDef[] {
  const common = { auth: { kind: 'service' as const } };
  return [
    {
      ...common,
      method: 'post',
      path: '/v1/keys',
      aliases: ['/api/v1/keys'],
      operationId: 'mintAgentKey',
      rateLimit: 'keys.mint',
      idempotency: { required: true },
      doc: {
        summary: 'Mint an agent key',
        description:
          'Authenticated with a service key. The plaintext is in this response only; replays (same Idempotency-Key, 12 h) return the row without it.',
        tags: ['keys'],
        requestBody: jsonRequestBody(ref('AgentKeyMintRequest')),
        responses: {
          '201': keyResponse('The new key with `plaintext_key`'),
          '404': errorResponse('`not_found`: the line cannot be bound (not cached)'),
        },
      },
      handler: mint,
    },
    {
      ...common,
      method: 'get',
      path: '/v1/keys',
      aliases: ['/api/v1/keys'],
      operationId: 'listAgentKeys',
      rateLimit: 'keys.list',
      doc: {
        summary: "List this user's agent keys in the service key's environment (revoked keys excluded)",
        tags: ['keys'],
        parameters: offsetPaginationParams(100_000),
        responses: {
          '200': jsonResponse('`{keys, total}`; total counts every matching key', fields({ keys: arrayOf(ref('AgentKey')), total })),
        },
      },
      handler: list,
    },
    {
      ...common,
      method: 'get',
      path: '/v1/keys/{id}',
      aliases: ['/api/v1/keys/{id}'],
      operationId: 'getAgentKey',
      doc: {
        summary: 'Fetch one agent key, revoked ones included',
        tags: ['keys'],
        parameters: [keyIdParam],
        responses: { '200': keyResponse('`{key}`'), '404': errorResponse('`not_found`') },
      },
      handler: get,
    },
    {
      ...common,
      method: 'patch',
      path: '/v1/keys/{id}',
      aliases: ['/api/v1/keys/{id}'],
      operationId: 'updateAgentKey',
      rateLimit: 'keys.update',
      doc: {
        summary: 'Update name, label, line binding (null = account-wide), permissions or monthly cap',
        tags: ['keys'],
        parameters: [keyIdParam],
        requestBody: jsonRequestBody(ref('AgentKeyUpdateRequest')),
        responses: {
          '200': keyResponse('`{key}`'),
          '404': errorResponse('`not_found` (key, or a line that cannot be bound)'),
          '409': errorResponse('`key_revoked`'),
        },
      },
      handler: update,
    },
    {
      ...common,
      method: 'delete',
      path: '/v1/keys/{id}',
      aliases: ['/api/v1/keys/{id}'],
      operationId: 'revokeAgentKey',
      rateLimit: 'keys.revoke',
      doc: {
        summary: 'Soft-revoke, with every key minted below it: effective on the next request; the row stays readable',
        tags: ['keys'],
        parameters: [keyIdParam],
        responses: { '200': keyResponse('The revoked key, `revoked_at` set'), '404': errorResponse('`not_found`') },
      },
      handler: revoke,
    },
    {
      ...common,
      method: 'post',
      path: '/v1/keys/{id}/rotate',
      aliases: ['/api/v1/keys/{id}/rotate'],
      operationId: 'rotateAgentKey',
      rateLimit: 'keys.rotate',
      idempotency: { required: true },
      doc: {
        summary: 'Rotate: revoke the key and mint its replacement, in one transaction',
        description:
          'No body. The new key keeps name, agent_label, line_id, permissions and monthly_cap_cents, with `rotated_from` set, and the old key’s spend counts against its cap. ' +
          'Keys minted below the old key are revoked with it. A key bound to a line released since is the binding 404 (not cached: PATCH the binding, then retry). A 429 carries `Retry-After: 120`.',
        tags: ['keys'],
        parameters: [keyIdParam],
        responses: {
          '201': keyResponse('The new key with `plaintext_key`'),
          '404': errorResponse('`not_found` (the key, or its line can no longer be bound)'),
          '409': errorResponse('`key_revoked`, `idempotency_key_reused`, `idempotency_in_progress`'),
        },
      },
      handler: rotate,
    },
  ];
}
