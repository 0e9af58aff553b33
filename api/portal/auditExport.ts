import type { AuditEntry } from '../../src/domain/compliance/auditTrail';
import type { CsvColumn } from './csv';
import { OPERATOR_ACTOR, portalUserIdOf } from './pages/audit';

/**
 * The audit log as CSV (issue 30, item 2): the page's filters, every page of it (./csv.ts: RFC 4180, safe to open in
 * a spreadsheet, at most CSV_MAX_ROWS), one record per entry with the names its ids stand for. Times are UTC.
 */

/** Entries read (and named) at a time. */
export const EXPORT_BATCH = 1_000;

/** An entry with the names of the key and the portal user it refers to. */
export interface NamedEntry {
  entry: AuditEntry;
  actors: ReadonlyMap<string, string>;
  users: ReadonlyMap<string, string>;
}

/** `entries` with their names, looked up `EXPORT_BATCH` entries at a time. */
export async function* withNames(
  entries: AsyncIterable<AuditEntry>,
  namesOf: (batch: AuditEntry[]) => Promise<{ actors: ReadonlyMap<string, string>; users: ReadonlyMap<string, string> }>,
): AsyncGenerator<NamedEntry> {
  let batch: AuditEntry[] = [];
  const flush = async function* () {
    const names = await namesOf(batch);
    for (const entry of batch) yield { entry, ...names };
    batch = [];
  };
  for await (const entry of entries) {
    batch.push(entry);
    if (batch.length >= EXPORT_BATCH) yield* flush();
  }
  if (batch.length > 0) yield* flush();
}

const portal = (named: NamedEntry) => (named.entry.source === 'portal' ? named.entry.row : undefined);
const compliance = (named: NamedEntry) => (named.entry.source === 'compliance' ? named.entry.row : undefined);

function userIdOf(named: NamedEntry): string | null {
  const row = portal(named);
  if (row) return row.user_id;
  return portalUserIdOf(compliance(named)!) ?? null;
}

export const AUDIT_COLUMNS: Array<CsvColumn<NamedEntry>> = [
  { header: 'id', cell: (n) => n.entry.row.id },
  { header: 'created_at', cell: (n) => n.entry.row.created_at.toISOString() },
  { header: 'source', cell: (n) => (n.entry.source === 'portal' ? 'portal_action' : 'compliance_event') },
  { header: 'action', cell: (n) => portal(n)?.action ?? compliance(n)!.event_type },
  { header: 'outcome', cell: (n) => portal(n)?.outcome ?? null },
  { header: 'refusal_code', cell: (n) => portal(n)?.refusal_code ?? null },
  {
    header: 'person',
    cell: (n) => {
      const userId = userIdOf(n);
      return portal(n)?.email ?? (userId ? (n.users.get(userId) ?? null) : null);
    },
  },
  { header: 'user_id', cell: userIdOf },
  {
    header: 'actor',
    cell: (n) => {
      const keyId = compliance(n)?.actor_key_id;
      return keyId ? (n.actors.get(keyId) ?? keyId) : OPERATOR_ACTOR;
    },
  },
  { header: 'client_address', cell: (n) => portal(n)?.client_address ?? null },
  { header: 'user_agent', cell: (n) => portal(n)?.user_agent ?? null },
  { header: 'phone_number', cell: (n) => compliance(n)?.phone_number ?? null },
  { header: 'line_id', cell: (n) => compliance(n)?.line_id ?? null },
  { header: 'target_id', cell: (n) => portal(n)?.target_id ?? null },
  { header: 'details', cell: (n) => JSON.stringify(portal(n)?.details ?? compliance(n)!.metadata ?? {}) },
];
