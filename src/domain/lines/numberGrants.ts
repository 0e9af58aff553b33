/**
 * Which of the carrier account's own numbers a workspace may import (issue 26 item 7). On a shared
 * deployment the account also holds numbers the operator keeps for itself and numbers other
 * workspaces use, so nothing is importable until the operator grants it (CLI `number grant`),
 * per environment (each has its carrier account), to one workspace at most.
 */
import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import { chooseNumber } from './numberChoice';
import { deleteNumberGrant, insertNumberGrant, isNumberInUse, numberGrantsOf, type NumberGrantRow, type Tenant } from './store';

export type GrantOutcome =
  | { ok: true; grant: NumberGrantRow }
  | { ok: false; refused: 'invalid_number'; message: string }
  | { ok: false; refused: 'granted_elsewhere' };

/** Lets the tenant import `phoneNumber` (E.164). Granting it again to the same workspace is a no-op. */
export async function grantNumber(db: Db, tenant: Tenant, phoneNumber: string, now: Date): Promise<GrantOutcome> {
  const number = chooseNumber({ phone_number: phoneNumber });
  if (!number.ok || number.choice.source !== 'imported') {
    return { ok: false, refused: 'invalid_number', message: number.ok ? 'not a number' : number.problems[0].message };
  }
  const grant = await insertNumberGrant(db, tenant, number.choice.phoneNumber, now);
  return grant ? { ok: true, grant } : { ok: false, refused: 'granted_elsewhere' };
}

/**
 * Takes the grant back; a line that already imported the number keeps it until released, and
 * the workspace cannot import it again. False when the tenant had no such grant.
 */
export function revokeNumberGrant(db: Db, tenant: Tenant, phoneNumber: string): Promise<boolean> {
  return deleteNumberGrant(db, tenant, phoneNumber);
}

export function numberGrantsOfTenant(db: Db, tenant: Tenant): Promise<NumberGrantRow[]> {
  return numberGrantsOf(db, tenant).orderBy('phone_number');
}

/**
 * Whether the tenant may import `phoneNumber` now: granted to it, and no unreleased line holds or
 * is importing it. Serialised per number (in the caller's transaction), so two concurrent imports
 * cannot both pass. Whether the carrier account owns it is the carrier's to say, at import.
 */
export async function mayImportNumber(trx: Knex.Transaction, tenant: Tenant, phoneNumber: string): Promise<boolean> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`numbers:import:${phoneNumber}`]);
  const granted = await numberGrantsOf(trx, tenant).where({ phone_number: phoneNumber }).first('id');
  return granted !== undefined && !(await isNumberInUse(trx, phoneNumber));
}
