/**
 * The agent self-audit feed (spec "Agent self-audit feed", rules 1-8): what a key did, newest
 * first, read in one query from the `agent_activity` view (calls, SMS, compliance events and
 * billing transactions, each with its actor key). Every successful read is itself audited.
 */
import type { Db } from '../../platform/db/knex';
import { isDescendantOf, isRootKey } from '../keys/ancestry';
import { findRegularKeyOfUser, type ApiKeyRow } from '../keys/store';
import { recordComplianceEvent } from './events';

export const AUDIT_EVENT_TYPES = ['call', 'sms', 'compliance_event', 'billing_transaction'] as const;
export const AUDIT_LIMIT = { min: 1, max: 500, default: 100 };

export interface AgentActivityRow {
  type: string;
  id: string;
  created_at: Date;
  data: unknown;
}

/** Whose activity: the reader's own, or another key's (`keyId` null when the value named no key at all, e.g. not a UUID). */
export type AuditTarget = { self: true } | { self: false; keyId: string | null };

export type AgentActivityOutcome =
  | { ok: true; targetId: string; limit: number; rows: AgentActivityRow[] }
  | { ok: false; refused: 'line_scoped' | 'not_found' }
  | { ok: false; refused: 'unknown_event_types'; unknown: string[] };

export async function readAgentActivity(
  deps: { db: Db; now: () => Date },
  reader: ApiKeyRow,
  request: { target: AuditTarget; eventTypes?: string; limit?: number },
): Promise<AgentActivityOutcome> {
  let targetId = reader.id;
  if (!request.target.self) {
    // Rule 2 before rule 1: a line-scoped key may read only itself, whoever the target is.
    if (reader.line_id) return { ok: false, refused: 'line_scoped' };
    // Rules 1 and 3: a key of the same user and environment, never a service key; a root (operator-made)
    // key reads any of them, every other key only its own descendants. Anything else, and anything
    // that is not a key id, is not found like an unknown key: never a refusal that tells them apart.
    const { keyId } = request.target;
    const owner = { userId: reader.user_id, environment: reader.environment };
    const target = keyId === null ? undefined : await findRegularKeyOfUser(deps.db, owner, keyId);
    if (!target || !(isRootKey(reader) || isDescendantOf(target, reader.id))) return { ok: false, refused: 'not_found' };
    targetId = target.id;
  }

  const types = request.eventTypes
    ? request.eventTypes
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
    : [...AUDIT_EVENT_TYPES];
  const unknown = types.filter((t) => !(AUDIT_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) return { ok: false, refused: 'unknown_event_types', unknown };
  const limit = Math.min(AUDIT_LIMIT.max, Math.max(AUDIT_LIMIT.min, request.limit ?? AUDIT_LIMIT.default));

  const rows: AgentActivityRow[] = await deps
    .db('agent_activity')
    .where({ actor_key_id: targetId })
    .whereIn('type', types)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .select('type', 'id', 'created_at', 'data');
  await recordComplianceEvent(deps.db, {
    workspaceId: reader.workspace_id,
    environment: reader.environment,
    eventType: 'audit_read',
    actorKeyId: reader.id,
    lineId: reader.line_id,
    metadata: { target_key_id: targetId, limit, event_types: types, returned: rows.length },
    at: deps.now(),
  });
  return { ok: true, targetId, limit, rows };
}
