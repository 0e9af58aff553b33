import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import { restrictedLineIds } from '../keys/grants';
import type { OutboundActor } from '../outbound/preflight';
import { progressOf, toCampaignRecord, toContactResult } from './records';
import type { CampaignStatus } from './rules';
import { attemptCalls, attemptOfCall, campaignsOf, contactsAfter, contactTally, findCampaign, type CampaignRow } from './store';

/** Reading campaigns: a key restricted to some lines sees the campaigns whose every pool line is one of them. */

type Reader = Pick<OutboundActor, 'workspaceId' | 'environment' | 'key'>;

function visibleTo(reader: Reader, row: CampaignRow): boolean {
  const allowed = restrictedLineIds(reader.key);
  return !allowed || row.line_ids.every((lineId) => allowed.includes(lineId));
}

/**
 * The pool lines of the tenant's campaign `id`, whatever lines the key is held to; undefined when the tenant has no such
 * campaign. The API refuses a restricted key a campaign on other lines as it refuses their calls (api/lineAccess.ts).
 */
export async function campaignLineIds(db: Db, reader: Reader, id: string): Promise<string[] | undefined> {
  return (await findCampaign(db, reader, id))?.line_ids;
}

/** The campaign with its progress; undefined when the reader has no such campaign (404, no existence leak). */
export async function campaignRecord(db: Db, reader: Reader, id: string) {
  const row = await findCampaign(db, reader, id);
  if (!row || !visibleTo(reader, row)) return undefined;
  return toCampaignRecord(row, progressOf(await contactTally(db, row.id)));
}

/** The campaigns the reader sees (of one status, when given), newest first; the caller pages the query (cursor on created_at, id). */
export function visibleCampaigns(db: Db, reader: Reader, status?: CampaignStatus): Knex.QueryBuilder<CampaignRow, CampaignRow[]> {
  const query = campaignsOf(db, reader);
  if (status) query.andWhere({ status });
  const allowed = restrictedLineIds(reader.key);
  if (allowed) query.whereRaw('line_ids <@ ?::uuid[]', [allowed as string[]]);
  return query as unknown as Knex.QueryBuilder<CampaignRow, CampaignRow[]>;
}

export async function campaignRecords(db: Db, rows: readonly CampaignRow[]) {
  return Promise.all(rows.map(async (row) => toCampaignRecord(row, progressOf(await contactTally(db, row.id)))));
}

/**
 * A page of a campaign's per-contact results in list order after row `afterRow`, readable while it
 * runs; `limit + 1` rows are read so the caller knows whether more follow. Undefined: no such campaign.
 */
export async function resultsPage(db: Db, reader: Reader, id: string, afterRow: number, limit: number) {
  const row = await findCampaign(db, reader, id);
  if (!row || !visibleTo(reader, row)) return undefined;
  const contacts = await contactsAfter(db, row.id, afterRow, limit + 1);
  const page = contacts.slice(0, limit);
  const calls = await attemptCalls(
    db,
    page.map((contact) => contact.id),
  );
  return {
    results: page.map((contact) => toContactResult(contact, calls.get(contact.id) ?? [])),
    has_more: contacts.length > limit,
    next_cursor: contacts.length > limit ? String(page[page.length - 1].row_number) : null,
  };
}

/** The CSV export's rows: every contact's result in list order, read a thousand at a time (no transaction held while the client reads). */
export async function* allResults(db: Db, campaignId: string) {
  for (let afterRow = 0; ;) {
    const batch = await contactsAfter(db, campaignId, afterRow, 1_000);
    const calls = await attemptCalls(
      db,
      batch.map((contact) => contact.id),
    );
    for (const contact of batch) yield toContactResult(contact, calls.get(contact.id) ?? []);
    if (batch.length < 1_000) return;
    afterRow = batch[batch.length - 1].row_number;
  }
}

/** The campaign the reader may read, or undefined (404). */
export async function readableCampaign(db: Db, reader: Reader, id: string): Promise<CampaignRow | undefined> {
  const row = await findCampaign(db, reader, id);
  return row && visibleTo(reader, row) ? row : undefined;
}

/** The campaign (and its contact's row and attempt) that placed the call `callId`, when the reader may read that campaign. */
export async function campaignOfCall(db: Db, reader: Reader, callId: string) {
  const attempt = await attemptOfCall(db, callId);
  const campaign = attempt && (await readableCampaign(db, reader, attempt.campaign_id));
  return campaign ? { id: campaign.id, name: campaign.name, row: attempt.row_number, attempt: attempt.attempt } : undefined;
}
