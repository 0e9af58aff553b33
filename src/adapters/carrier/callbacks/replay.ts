import type { Db } from '../../../platform/db/knex';
import { CARRIER_CALLBACK_TOLERANCE_SECONDS } from './signature';

/**
 * Replay protection of carrier callbacks, in Postgres so every API instance agrees: a signature is
 * accepted once. Rows are needed only while their timestamp is inside the tolerance window (a
 * replay after that fails the freshness check anyway); the hourly maintenance purges the rest.
 */
const TABLE = 'carrier_callback_signatures';
/** Beyond the window, for clock differences between API instances. */
const PURGE_MARGIN_SECONDS = 60;

/** Records an accepted signature; false when it had been accepted before (a replay). */
export async function acceptCallbackSignatureOnce(db: Db, input: { signature: string; timestamp: number; at: Date }): Promise<boolean> {
  const inserted = await db(TABLE)
    .insert({ signature: input.signature, signed_at: new Date(input.timestamp * 1000), received_at: input.at })
    .onConflict('signature')
    .ignore()
    .returning('signature');
  return inserted.length === 1;
}

export async function purgeExpiredCallbackSignatures(db: Db, at: Date): Promise<number> {
  const cutoff = new Date(at.getTime() - (CARRIER_CALLBACK_TOLERANCE_SECONDS + PURGE_MARGIN_SECONDS) * 1000);
  return db(TABLE).where('signed_at', '<', cutoff).del();
}
