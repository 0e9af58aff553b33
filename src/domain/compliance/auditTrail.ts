import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import { auditEvents, type AuditFilters } from './auditLog';
import { portalActionsOf, type PortalActionFilters, type PortalActionRow } from './portalActions';

/**
 * The audit trail an operator reads (issue 30, item 2): the compliance events of an environment and the portal's
 * operator actions seen from it, merged newest first. Each source is read only when the filters can match it
 * (`undefined`: left out), at most `limit` rows each, so the merge holds the `limit` newest of both; a page after a
 * cursor reads both sources after it, so paging and exports see every entry once.
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

/** Where a page of the trail ends: the last entry's time (to the millisecond) and id; the next page starts after it. */
export interface AuditCursor {
  at: Date;
  id: string;
}

/**
 * One source's entries after `after`, newest first, at most `limit`. Both sources are ordered by their time to the
 * millisecond (what a cursor carries), then id, so that the merge below and the next page's start agree exactly.
 */
function pageOf<Row>(query: Knex.QueryBuilder, after: AuditCursor | undefined, limit: number): Promise<Row[]> {
  if (after) query.whereRaw(`(date_trunc('milliseconds', created_at), id) < (?, ?)`, [after.at, after.id]);
  return query.orderByRaw(`date_trunc('milliseconds', created_at) desc, id desc`).limit(limit) as unknown as Promise<Row[]>;
}

const newestFirst = (a: AuditEntry, b: AuditEntry) =>
  b.row.created_at.getTime() - a.row.created_at.getTime() || (a.row.id < b.row.id ? 1 : a.row.id > b.row.id ? -1 : 0);

/** The `limit` newest entries of both sources after `after` (the page before it), merged newest first. */
export async function auditTrail(
  db: Db,
  tenant: { workspaceId: string; environment: 'test' | 'live' },
  sources: { compliance?: AuditFilters; portal?: PortalActionFilters },
  limit: number,
  after?: AuditCursor,
): Promise<AuditEntry[]> {
  const [events, actions] = await Promise.all([
    sources.compliance ? pageOf<ComplianceEventRow>(auditEvents(db, tenant, sources.compliance), after, limit) : [],
    sources.portal ? pageOf<PortalActionRow>(portalActionsOf(db, tenant, sources.portal), after, limit) : [],
  ]);
  const entries: AuditEntry[] = [
    ...events.map((row) => ({ source: 'compliance' as const, row })),
    ...actions.map((row) => ({ source: 'portal' as const, row })),
  ];
  return entries.sort(newestFirst).slice(0, limit);
}

/** Every entry after `after`, newest first, read `batch` at a time (for an export), at most `max`. */
export async function* auditTrailInBatches(
  db: Db,
  tenant: { workspaceId: string; environment: 'test' | 'live' },
  sources: { compliance?: AuditFilters; portal?: PortalActionFilters },
  batch: number,
  max: number,
): AsyncGenerator<AuditEntry> {
  let after: AuditCursor | undefined;
  let sent = 0;
  while (sent < max) {
    const entries = await auditTrail(db, tenant, sources, Math.min(batch, max - sent), after);
    yield* entries;
    sent += entries.length;
    const last = entries.at(-1);
    if (!last || entries.length < batch) return;
    after = { at: last.row.created_at, id: last.row.id };
  }
}
