import crypto from 'node:crypto';
import type { OutboundActor } from '../outbound/preflight';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import type { ContactListCsv } from './contactListCsv';
import { insertContactList, type ContactListRow } from './contactListStore';
import { countUploadSkips, prepareContacts } from './contacts';
import { CONTACT_LIST_TTL_DAYS } from './rules';

/**
 * Records a contact list read from a CSV upload (`POST /api/v1/campaigns/contact-lists`): its rows in file order,
 * each number normalized or marked to be skipped (`invalid_number`, `duplicate_number`) as a JSON list's contacts
 * are, in one transaction, so a failure leaves nothing behind.
 */
export async function uploadContactList(
  deps: Pick<LoggedUseCaseDeps, 'db' | 'now' | 'log'>,
  actor: OutboundActor,
  list: ContactListCsv,
): Promise<ContactListRow> {
  const now = deps.now();
  const contacts = prepareContacts(list.contacts);
  const skips = countUploadSkips(contacts);
  const row: ContactListRow = {
    id: crypto.randomUUID(),
    workspace_id: actor.workspaceId,
    environment: actor.environment,
    actor_key_id: actor.key.id,
    row_count: list.contacts.length,
    columns: list.columns,
    invalid_number_rows: skips.invalidNumber,
    duplicate_number_rows: skips.duplicateNumber,
    created_at: now,
    expires_at: new Date(now.getTime() + CONTACT_LIST_TTL_DAYS * 24 * 3600 * 1000),
  };
  const started = Date.now();
  await deps.db.transaction((trx) => insertContactList(trx, row, contacts));
  deps.log.info(
    { contact_list_id: row.id, rows: row.row_count, skipped: skips.invalidNumber + skips.duplicateNumber, insert_ms: Date.now() - started },
    'contact list uploaded',
  );
  return row;
}
