import { attributionMetadata, recordComplianceEvent, type PortalAttribution } from '../compliance/events';
import { findCallById } from '../calls/store';
import type { BillingTenant } from '../billing/ledger';
import type { UseCaseDeps } from '../useCaseDeps';
import { insertLegalHold, releaseLegalHoldRow, type LegalHoldRow } from './store';

/*
 * Legal holds (issue 32; docs/decisions/recordings.md "Retention and legal hold"): a hold on a call, or on a phone
 * number (every call from or to it), keeps the stored objects past the environment's retention until released.
 * Who may place or release one is the caller's rule (an unrestricted owner or admin key; an owner or admin in the
 * portal). Each is a compliance event, with the key that acted, or (`by`, no key) the portal user.
 */

/** Who places or releases a hold: the tenant and the key, or the portal's signed-in user (`by`, `keyId` null). */
export type HoldActor = BillingTenant & { keyId: string | null; by?: PortalAttribution };

export const LEGAL_HOLD_REASON_MAX_LENGTH = 1000;

export const toLegalHoldRecord = (row: LegalHoldRow) => ({
  id: row.id,
  call_id: row.call_id,
  phone_number: row.phone_number,
  reason: row.reason,
  active: row.released_at === null,
  created_at: row.created_at.toISOString(),
  released_at: row.released_at ? row.released_at.toISOString() : null,
});

export type HoldSubject = { callId: string; phoneNumber?: undefined } | { phoneNumber: string; callId?: undefined };

export type PlaceHoldOutcome = { ok: true; hold: LegalHoldRow } | { ok: false; refused: 'call_not_found' };

export async function placeLegalHold(
  deps: Pick<UseCaseDeps, 'db' | 'now'>,
  actor: HoldActor,
  subject: HoldSubject,
  reason: string,
): Promise<PlaceHoldOutcome> {
  if (subject.callId) {
    const call = await findCallById(deps.db, subject.callId);
    // Another tenant's call (or environment's) is as unknown as one that exists nowhere.
    if (!call || call.workspace_id !== actor.workspaceId || call.environment !== actor.environment) {
      return { ok: false, refused: 'call_not_found' };
    }
  }
  const at = deps.now();
  const hold = await deps.db.transaction(async (trx) => {
    const row = await insertLegalHold(trx, {
      workspace_id: actor.workspaceId,
      environment: actor.environment,
      call_id: subject.callId ?? null,
      phone_number: subject.phoneNumber ?? null,
      reason,
      created_by_key_id: actor.keyId,
      created_at: at,
    });
    await recordComplianceEvent(trx, {
      workspaceId: actor.workspaceId,
      environment: actor.environment,
      eventType: 'legal_hold_placed',
      actorKeyId: actor.keyId,
      callId: row.call_id,
      phoneNumber: row.phone_number,
      metadata: { legal_hold_id: row.id, reason, ...attributionMetadata(actor.by) },
      at,
    });
    return row;
  });
  return { ok: true, hold };
}

/** Releases an active hold of the tenant's; undefined when there is none by that id (another tenant's included). */
export async function releaseLegalHold(
  deps: Pick<UseCaseDeps, 'db' | 'now'>,
  actor: HoldActor,
  id: string,
): Promise<LegalHoldRow | undefined> {
  const at = deps.now();
  return deps.db.transaction(async (trx) => {
    const row = await releaseLegalHoldRow(trx, actor, id, { keyId: actor.keyId, at });
    if (!row) return undefined;
    await recordComplianceEvent(trx, {
      workspaceId: actor.workspaceId,
      environment: actor.environment,
      eventType: 'legal_hold_released',
      actorKeyId: actor.keyId,
      callId: row.call_id,
      phoneNumber: row.phone_number,
      metadata: { legal_hold_id: row.id, ...attributionMetadata(actor.by) },
      at,
    });
    return row;
  });
}
