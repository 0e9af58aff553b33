import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { isUuid } from '../openapi/formats';
import { arrayOf, errorResponse, fields, jsonResponse, ref } from '../openapi/schemas';
import type { RouteDef } from './types';
import { recordComplianceEvent } from '../../src/domain/compliance/events';
import { isDescendantOf, isRootKey } from '../../src/domain/keys/ancestry';
import type { ApiKeyRow } from '../../src/domain/keys/store';

/**
 * The agent self-audit feed (spec "Agent self-audit feed", rules 1-8): what a key did, newest
 * first, read in one query from the `agent_activity` view (calls, SMS, compliance events and
 * billing transactions, each with its actor key). Every successful read is itself audited.
 */
export const AUDIT_EVENT_TYPES = ['call', 'sms', 'compliance_event', 'billing_transaction'] as const;
export const AUDIT_LIMIT = { min: 1, max: 500, default: 100 };

async function readFeed(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { api_key_id?: string; limit?: number; event_types?: string };
  const requested = q.api_key_id ?? 'self';
  let targetId = principal.key.id;
  if (requested !== 'self' && requested.toLowerCase() !== principal.key.id) {
    // Rule 2 before rule 1: a line-scoped key may read only itself, whoever the target is.
    if (principal.key.line_id) {
      throw new ApiError(403, 'agent_scope_error', 'A line-scoped key can read only its own activity', [{ field: 'line_id', message: principal.key.line_id }]);
    }
    // Rule 1 and 3: a key of the same user and environment, never a service key; a root (operator-made)
    // key reads any of them, every other key only its own descendants. Anything else, and anything
    // that is not a UUID, is 404 like an unknown key: never a 422 that tells them apart.
    const target = isUuid(requested)
      ? await deps
          .db<ApiKeyRow>('api_keys')
          .where({ id: requested, user_id: principal.userId, environment: principal.environment, kind: 'standard' })
          .first('id', 'ancestor_ids')
      : undefined;
    if (!target || !(isRootKey(principal.key) || isDescendantOf(target, principal.key.id))) throw errors.notFound('Key');
    targetId = target.id;
  }

  const types = q.event_types ? q.event_types.split(',').map((t) => t.trim()).filter(Boolean) : [...AUDIT_EVENT_TYPES];
  const unknown = types.filter((t) => !(AUDIT_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) {
    throw errors.validation([{ field: 'event_types', message: `Unknown: ${unknown.join(', ')}. Allowed: ${AUDIT_EVENT_TYPES.join(', ')}` }]);
  }
  const limit = Math.min(AUDIT_LIMIT.max, Math.max(AUDIT_LIMIT.min, q.limit ?? AUDIT_LIMIT.default));

  const rows = await deps
    .db('agent_activity')
    .where({ actor_key_id: targetId })
    .whereIn('type', types)
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit)
    .select('type', 'id', 'created_at', 'data');
  await recordComplianceEvent(deps.db, {
    workspaceId: principal.workspaceId,
    environment: principal.environment,
    eventType: 'audit_read',
    actorKeyId: principal.key.id,
    lineId: principal.key.line_id,
    metadata: { target_key_id: targetId, limit, event_types: types, returned: rows.length },
    at: deps.now(),
  });
  ctx.body = {
    events: rows.map((row: { type: string; id: string; created_at: Date; data: unknown }) => {
      const createdAt = row.created_at.toISOString();
      // The spec names it createdAt; the public client reads created_at. Both are sent.
      return { type: row.type, id: row.id, created_at: createdAt, createdAt, data: row.data };
    }),
    limit,
    api_key_id: targetId,
  };
}

export function auditRoutes(): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/api/v1/audit',
      aliases: ['/v1/audit'],
      operationId: 'agentAuditFeed',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'audit.read',
      doc: {
        summary: "The caller key's own activity (or that of a key below it), newest first",
        description:
          'Calls, SMS, compliance events and billing transactions caused by the key; carrier-initiated traffic has no actor key and is not included. ' +
          'Line-scoped keys read only themselves (403 agent_scope_error). Another target must be a (non-service) key of the same user and environment, and, unless the caller is a root key ' +
          '(made by an operator, not minted by another key), one of the keys minted below the caller; anything else is 404. ' +
          'Each successful read writes an audit_read compliance event. 60 per hour per user. Service keys are refused.',
        tags: ['compliance'],
        parameters: [
          {
            name: 'api_key_id',
            in: 'query',
            schema: { type: 'string', maxLength: 100, default: 'self' },
            description: '`self` or the UUID of a key of the same user and environment; any other value is 404, as for a key that does not exist',
          },
          { name: 'limit', in: 'query', schema: { type: 'integer', default: 100 }, description: 'Clamped to 1-500' },
          { name: 'event_types', in: 'query', schema: { type: 'string', maxLength: 200 }, description: `Comma-separated subset of ${AUDIT_EVENT_TYPES.join(', ')}` },
        ],
        responses: {
          '200': jsonResponse(
            '`{events: [{type, id, created_at, createdAt, data}], limit, api_key_id}`',
            fields({ events: arrayOf(ref('AuditEvent')), limit: { type: 'integer', minimum: AUDIT_LIMIT.min, maximum: AUDIT_LIMIT.max }, api_key_id: { type: 'string', format: 'uuid', description: 'The resolved target key' } }),
          ),
          '403': errorResponse('`agent_scope_error` (line-scoped key reading another key) or `forbidden`'),
          '404': errorResponse('`not_found`: not a key this caller may read'),
          '429': errorResponse('`rate_limited`'),
        },
      },
      handler: readFeed,
    },
  ];
}
