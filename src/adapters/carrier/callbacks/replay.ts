import type { Db } from '../../../platform/db/knex';
import { queryPrepared } from '../../../platform/db/prepared';
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
  // On every carrier callback (two per call turn): a prepared statement.
  const inserted = await queryPrepared(
    db,
    'carrier_callback_signature_accept',
    `insert into ${TABLE} (signature, signed_at, received_at) values ($1, $2, $3) on conflict (signature) do nothing returning signature`,
    [input.signature, new Date(input.timestamp * 1000), input.at],
  );
  return inserted.length === 1;
}

export async function purgeExpiredCallbackSignatures(db: Db, at: Date): Promise<number> {
  const cutoff = new Date(at.getTime() - (CARRIER_CALLBACK_TOLERANCE_SECONDS + PURGE_MARGIN_SECONDS) * 1000);
  return db(TABLE).where('signed_at', '<', cutoff).del();
}
