import crypto from 'node:crypto';
import type { Db } from '../../../../platform/db/knex';
import { queryPrepared } from '../../../../platform/db/prepared';
import { CARRIER_CALLBACK_TOLERANCE_SECONDS } from '../../callbacks/signature';

/**
 * Replay protection of Twilio callbacks. Twilio signs no timestamp, so a callback is keyed on its
 * signature (which covers the URL and every parameter), the resource (`CallSid`/`MessageSid`) and
 * its status, and accepted once. The keys share the table of the carrier callbacks
 * (../../callbacks/replay.ts), prefixed `twilio:`, and are kept a day (their `signed_at` is set
 * so the hourly purge, which keeps rows for the tolerance window, drops them a day later).
 */
const TABLE = 'carrier_callback_signatures';
export const TWILIO_REPLAY_RETENTION_SECONDS = 24 * 3600;

export function twilioReplayKey(signature: string, params: Record<string, string>): string {
  const resource = params.CallSid ?? params.MessageSid ?? '';
  const status = params.CallStatus ?? params.MessageStatus ?? params.SmsStatus ?? '';
  return `twilio:${crypto.createHash('sha256').update(`${signature}\n${resource}\n${status}`).digest('hex')}`;
}

/** Records an accepted callback; false when it had been accepted before (a replay). */
export async function acceptTwilioCallbackOnce(db: Db, key: string, at: Date): Promise<boolean> {
  const keepUntil = new Date(at.getTime() + (TWILIO_REPLAY_RETENTION_SECONDS - CARRIER_CALLBACK_TOLERANCE_SECONDS) * 1000);
  const inserted = await queryPrepared(
    db,
    'twilio_callback_accept',
    `insert into ${TABLE} (signature, signed_at, received_at) values ($1, $2, $3) on conflict (signature) do nothing returning signature`,
    [key, keepUntil, at],
  );
  return inserted.length === 1;
}

/** Forgets a callback whose handling failed, so Twilio's retry (the same signature) is taken. */
export async function forgetTwilioCallback(db: Db, key: string): Promise<void> {
  await db(TABLE).where({ signature: key }).del();
}
