import type { Knex } from 'knex';
import { complianceEventsOf } from './events';

/** What the compliance audit is filtered by (spec "Compliance audit"), for the API and the portal alike. */
export interface AuditFilters {
  lineId?: string;
  /** Lines a restricted key may see; without `lineId`, only their events are read. */
  allowedLineIds?: readonly string[];
  phoneNumber?: string;
  eventType?: string;
  /** The key that acted; null: an operator in the CLI or the portal (no key). */
  actorKeyId?: string | null;
  /** The portal user a change names (`metadata.user_id`, issue 27 L21). */
  userId?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
}

/** The compliance events of a tenant that pass the filters (unordered: the caller pages them). */
export function auditEvents(db: Knex, tenant: { workspaceId: string; environment: 'test' | 'live' }, filters: AuditFilters) {
  const query = complianceEventsOf(db, tenant);
  if (filters.lineId) query.andWhere({ line_id: filters.lineId });
  else if (filters.allowedLineIds) query.whereIn('line_id', [...filters.allowedLineIds]);
  if (filters.phoneNumber) query.andWhere({ phone_number: filters.phoneNumber });
  if (filters.eventType) query.andWhere({ event_type: filters.eventType });
  if (filters.actorKeyId === null) query.whereNull('actor_key_id');
  else if (filters.actorKeyId) query.andWhere({ actor_key_id: filters.actorKeyId });
  if (filters.userId) query.andWhereRaw("metadata->>'user_id' = ?", [filters.userId]);
  if (filters.from) query.andWhere('created_at', '>=', filters.from);
  if (filters.to) query.andWhere('created_at', '<', filters.to);
  return query;
}
