import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { isUuid } from '../openapi/formats';
import { arrayOf, errorResponse, fields, jsonResponse, ref } from '../openapi/schemas';
import type { RouteDef } from '../routeTable';
import { AUDIT_EVENT_TYPES, AUDIT_LIMIT, readAgentActivity } from '../../src/domain/compliance/agentActivity';

/** `event_types` as the feed reads it: comma-separated names of AUDIT_EVENT_TYPES, each may be padded with spaces or left empty. */
const EVENT_TYPE_ITEM = ` *(?:${AUDIT_EVENT_TYPES.join('|')})? *`;
const EVENT_TYPES_PATTERN = `^${EVENT_TYPE_ITEM}(?:,${EVENT_TYPE_ITEM})*$`;

/** The agent self-audit feed (spec "Agent self-audit feed"): src/domain/compliance/agentActivity.ts reads it. */
async function readFeed(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { api_key_id?: string; limit?: number; event_types?: string };
  const requested = q.api_key_id ?? 'self';
  const self = requested === 'self' || requested.toLowerCase() === principal.key.id;
  const target = self ? { self: true as const } : { self: false as const, keyId: isUuid(requested) ? requested : null };
  const outcome = await readAgentActivity(deps, principal.key, { target, eventTypes: q.event_types, limit: q.limit });
  if (!outcome.ok) {
    switch (outcome.refused) {
      case 'line_scoped':
        throw new ApiError(403, 'agent_scope_error', 'A line-scoped key can read only its own activity', [
          { field: 'line_id', message: principal.key.line_id! },
        ]);
      case 'not_found':
        throw errors.notFound('Key');
      case 'unknown_event_types':
        throw errors.validation([
          { field: 'event_types', message: `Unknown: ${outcome.unknown.join(', ')}. Allowed: ${AUDIT_EVENT_TYPES.join(', ')}` },
        ]);
    }
  }
  ctx.body = {
    events: outcome.rows.map((row) => {
      const createdAt = row.created_at.toISOString();
      // The spec names it createdAt; the public client reads created_at. Both are sent.
      return { type: row.type, id: row.id, created_at: createdAt, createdAt, data: row.data };
    }),
    limit: outcome.limit,
    api_key_id: outcome.targetId,
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
            description:
              '`self` or the UUID of a key of the same user and environment; any other value is 404, as for a key that does not exist',
          },
          { name: 'limit', in: 'query', schema: { type: 'integer', default: 100 }, description: 'Clamped to 1-500' },
          {
            name: 'event_types',
            in: 'query',
            schema: {
              type: 'string',
              maxLength: 200,
              pattern: EVENT_TYPES_PATTERN,
              'x-pattern-message': `Must be a comma-separated list of: ${AUDIT_EVENT_TYPES.join(', ')}`,
            },
            description: `Comma-separated subset of ${AUDIT_EVENT_TYPES.join(', ')} (spaces around a name and empty items are ignored; none means all)`,
          },
        ],
        responses: {
          '200': jsonResponse(
            '`{events: [{type, id, created_at, createdAt, data}], limit, api_key_id}`',
            fields({
              events: arrayOf(ref('AuditEvent')),
              limit: { type: 'integer', minimum: AUDIT_LIMIT.min, maximum: AUDIT_LIMIT.max },
              api_key_id: { type: 'string', format: 'uuid', description: 'The resolved target key' },
            }),
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
