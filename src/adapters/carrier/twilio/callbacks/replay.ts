import crypto from 'node:crypto';
import type { Db } from '../../../../platform/db/knex';
import { queryPrepared } from '../../../../platform/db/prepared';
import { CARRIER_CALLBACK_TOLERANCE_SECONDS } from '../../callbacks/signature';

/**
 * Twilio's callbacks taken once. Twilio signs no timestamp or nonce, and a request it sends again is
 * byte-identical (same URL, same parameters, same signature): TwiML fetches repeat by design (a
 * `<Redirect>` back to the same URL, a `<Pause>` loop, a repeated Calls update `Url`), and any callback
 * may be retried. So a signature is never a replay key. Instead:
 *
 * - TwiML requests (`voice`, `connect`, `dialed`) are answered every time: what they answer and do is
 *   a function of the call's state (api/routes/carrier/twilioCalls.ts), so a repeat changes nothing.
 * - Events are keyed on what they report, once: a call's status callback on `CallSid` + `CallStatus` +
 *   `SequenceNumber` (Twilio's status callback parameters: "SequenceNumber: the order in which the events
 *   were fired, starting from 0"), a message's on `MessageSid` + `MessageStatus`, an inbound message on
 *   its `MessageSid`, a recording's on `RecordingSid` + `RecordingStatus`, a transfer's outcome on its
 *   transfer id. A repeat is acknowledged and dropped.
 *
 * The keys share the table of the carrier callbacks (../../callbacks/replay.ts), prefixed `twilio:`,
 * and are kept a day (their `signed_at` is set so the hourly purge, which keeps rows for the
 * tolerance window, drops them a day later).
 */
const TABLE = 'carrier_callback_signatures';
export const TWILIO_REPLAY_RETENTION_SECONDS = 24 * 3600;

type Params = Record<string, string>;

/** The event a call status callback reports (the `<Number>` callbacks of a transfer are call status callbacks of the dialled leg). */
export const callStatusEvent = (params: Params) => `call-status\n${params.CallSid}\n${params.CallStatus}\n${params.SequenceNumber ?? ''}`;
export const messageStatusEvent = (params: Params) => `message-status\n${params.MessageSid}\n${params.MessageStatus}`;
export const inboundMessageEvent = (params: Params) => `message\n${params.MessageSid}`;
export const recordingStatusEvent = (params: Params) => `recording-status\n${params.RecordingSid}\n${params.RecordingStatus}`;
/** A call has one machine detection verdict (its `AsyncAmdStatusCallback`). */
export const amdStatusEvent = (params: Params) => `amd-status\n${params.CallSid}`;
/** A transfer has one outcome (its destination answered, or the Dial ended unanswered), whichever callback reports it. */
export const transferOutcomeEvent = (transferId: string) => `transfer-outcome\n${transferId}`;

export function twilioEventKey(event: string): string {
  return `twilio:${crypto.createHash('sha256').update(event).digest('hex')}`;
}

/** Records an event taken; false when it had been taken before (a repeat). */
export async function acceptTwilioEventOnce(db: Db, event: string, at: Date): Promise<boolean> {
  const keepUntil = new Date(at.getTime() + (TWILIO_REPLAY_RETENTION_SECONDS - CARRIER_CALLBACK_TOLERANCE_SECONDS) * 1000);
  const inserted = await queryPrepared(
    db,
    'twilio_callback_accept',
    `insert into ${TABLE} (signature, signed_at, received_at) values ($1, $2, $3) on conflict (signature) do nothing returning signature`,
    [twilioEventKey(event), keepUntil, at],
  );
  return inserted.length === 1;
}

/** Forgets an event whose handling failed, so Twilio's retry of it is taken. */
export async function forgetTwilioEvent(db: Db, event: string): Promise<void> {
  await db(TABLE)
    .where({ signature: twilioEventKey(event) })
    .del();
}
