import { recordComplianceEvent } from '../compliance/events';
import type { OutboundActor } from '../outbound/preflight';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { deleteLiveContactList, type ContactListRow } from './contactListStore';

/**
 * Deletes an uploaded contact list and its rows now (`DELETE /api/v1/campaigns/contact-lists/{id}`): personal data an
 * operator wants gone before the 7-day expiry. Campaigns already created from it keep their own copies of its rows;
 * a campaign created after it cannot name it. Recorded as a `contact_list_deleted` compliance event (the key, the
 * list and its row count: no number) in the same transaction. Undefined when the tenant has no such list that has
 * not expired (another tenant's included: 404, no existence leak).
 */
export async function deleteContactList(
  deps: Pick<LoggedUseCaseDeps, 'db' | 'now' | 'log'>,
  actor: Pick<OutboundActor, 'workspaceId' | 'environment' | 'key'>,
  id: string,
): Promise<ContactListRow | undefined> {
  const at = deps.now();
  const deleted = await deps.db.transaction(async (trx) => {
    const row = await deleteLiveContactList(trx, actor, id, at);
    if (!row) return undefined;
    await recordComplianceEvent(trx, {
      workspaceId: actor.workspaceId,
      environment: actor.environment,
      eventType: 'contact_list_deleted',
      actorKeyId: actor.key.id,
      metadata: { contact_list_id: row.id, rows: row.row_count },
      at,
    });
    return row;
  });
  if (deleted) deps.log.info({ contact_list_id: deleted.id, rows: deleted.row_count }, 'contact list deleted');
  return deleted;
}
