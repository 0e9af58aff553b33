import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import type { Tenant } from '../lines/store';
import type { PreparedContact } from './contacts';

/** Uploaded contact lists in Postgres (the campaigns area's second store: store.ts holds the campaigns' own rows). */

type Conn = Db | Knex.Transaction;

export interface ContactListRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  actor_key_id: string | null;
  row_count: number;
  columns: string[];
  /** Rows to be skipped at a campaign's creation, counted at the upload (`prepareContacts`). */
  invalid_number_rows: number;
  duplicate_number_rows: number;
  created_at: Date;
  expires_at: Date;
}

/** Rows a statement: one JSON parameter each (about 1 MB), so Postgres, not the API, takes the rows apart. */
const ROWS_PER_INSERT = 10_000;

/** The list and its rows, in batches inside the caller's transaction: all or nothing. */
export async function insertContactList(trx: Knex.Transaction, list: ContactListRow, contacts: readonly PreparedContact[]): Promise<void> {
  await trx('campaign_contact_lists').insert(list);
  for (let start = 0; start < contacts.length; start += ROWS_PER_INSERT) {
    const batch = contacts.slice(start, start + ROWS_PER_INSERT).map((contact) => ({
      row_number: contact.row,
      to_number: contact.toNumber,
      variables: contact.variables,
      metadata: contact.metadata,
      skip_reason: contact.skip,
    }));
    await trx.raw(
      `insert into campaign_contact_list_rows (list_id, row_number, to_number, variables, metadata, skip_reason)
       select ?, r.row_number, r.to_number, r.variables, r.metadata, r.skip_reason
         from jsonb_to_recordset(?::jsonb) as r(row_number integer, to_number text, variables jsonb, metadata jsonb, skip_reason text)`,
      [list.id, JSON.stringify(batch)],
    );
  }
}

/** The tenant's list while it has not expired (another tenant's, or an expired one, is not found). */
export async function findLiveContactList(db: Conn, tenant: Tenant, id: string, now: Date): Promise<ContactListRow | undefined> {
  return db<ContactListRow>('campaign_contact_lists')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment, id })
    .andWhere('expires_at', '>', now)
    .first();
}

/**
 * As `findLiveContactList`, locked (`for share`) until the transaction ends: a campaign's creation copies the rows of
 * a list that a concurrent `DELETE` cannot remove in between (the delete waits; a list deleted first is not found).
 */
export async function lockLiveContactList(
  trx: Knex.Transaction,
  tenant: Tenant,
  id: string,
  now: Date,
): Promise<ContactListRow | undefined> {
  return trx<ContactListRow>('campaign_contact_lists')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment, id })
    .andWhere('expires_at', '>', now)
    .forShare()
    .first();
}

/** The tenant's lists that have not expired, for a cursor page (newest first by `created_at`, `id`). */
export function liveContactLists(db: Conn, tenant: Tenant, now: Date): Knex.QueryBuilder {
  return db('campaign_contact_lists')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment })
    .andWhere('expires_at', '>', now);
}

/**
 * Deletes the tenant's list that has not expired, with its rows (`on delete cascade`); answers it as it was, or
 * undefined when the tenant has no such list. Campaigns created from it keep their own copies of its rows.
 */
export async function deleteLiveContactList(
  trx: Knex.Transaction,
  tenant: Tenant,
  id: string,
  now: Date,
): Promise<ContactListRow | undefined> {
  const [deleted] = await trx<ContactListRow>('campaign_contact_lists')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment, id })
    .andWhere('expires_at', '>', now)
    .delete()
    .returning('*');
  return deleted;
}

/**
 * The list's rows as the campaign's contacts, copied inside Postgres (a 100,000-row list never travels back
 * through the API): each due at `dueAt` unless skipped at upload, as a JSON list's contacts are recorded.
 */
export async function copyListContacts(trx: Knex.Transaction, listId: string, campaignId: string, dueAt: Date, now: Date): Promise<void> {
  await trx.raw(
    `insert into campaign_contacts (id, campaign_id, row_number, to_number, variables, metadata, status, outcome, skip_reason, next_attempt_at, updated_at)
     select gen_random_uuid(), ?, row_number, to_number, variables, metadata,
            case when skip_reason is null then 'pending' else 'done' end,
            case when skip_reason is null then null else 'skipped' end,
            skip_reason,
            case when skip_reason is null then ?::timestamptz else null end,
            ?
       from campaign_contact_list_rows where list_id = ? order by row_number`,
    [campaignId, dueAt, now, listId],
  );
}

/** Lists past their `expires_at`, with their rows (the maintenance schedule's hourly purge). */
export async function purgeExpiredContactLists(db: Db, at: Date): Promise<number> {
  return db('campaign_contact_lists').where('expires_at', '<=', at).delete();
}
