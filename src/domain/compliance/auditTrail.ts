import type { Db } from '../../platform/db/knex';
import { auditEvents, type AuditFilters } from './auditLog';
import { portalActionsOf, type PortalActionFilters, type PortalActionRow } from './portalActions';

/**
 * The audit trail an operator reads (issue 30, item 2): the compliance events of an environment and the portal's
 * operator actions seen from it, merged newest first. Each source is read only when the filters can match it
 * (`undefined`: left out), at most `limit` rows each, so the merge holds the `limit` newest of both.
 */

export interface ComplianceEventRow {
  id: string;
  event_type: string;
  phone_number: string | null;
  line_id: string | null;
  actor_key_id: string | null;
  metadata: Record<string, unknown> | null;
  created_at: Date;
}

export type AuditEntry = { source: 'compliance'; row: ComplianceEventRow } | { source: 'portal'; row: PortalActionRow };

export async function auditTrail(
  db: Db,
  tenant: { workspaceId: string; environment: 'test' | 'live' },
  sources: { compliance?: AuditFilters; portal?: PortalActionFilters },
  limit: number,
): Promise<AuditEntry[]> {
  const [events, actions] = await Promise.all([
    sources.compliance
      ? (auditEvents(db, tenant, sources.compliance)
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(limit) as Promise<ComplianceEventRow[]>)
      : [],
    sources.portal ? portalActionsOf(db, tenant, sources.portal, limit) : [],
  ]);
  const entries: AuditEntry[] = [
    ...events.map((row) => ({ source: 'compliance' as const, row })),
    ...actions.map((row) => ({ source: 'portal' as const, row })),
  ];
  return entries.sort((a, b) => b.row.created_at.getTime() - a.row.created_at.getTime()).slice(0, limit);
}
