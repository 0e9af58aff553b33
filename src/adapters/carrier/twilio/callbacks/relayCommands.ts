import type { Db } from '../../../../platform/db/knex';

/** The channel the API instances LISTEN on; the payload is the CallSid that has new commands. */
export const TWILIO_RELAY_CHANNEL = 'twilio_relay_commands';

/** What the worker asks of a call's ConversationRelay session (the voice already mapped to Twilio's). */
export type TwilioRelayCommand =
  | { kind: 'speak'; speakId: string; text: string; voice?: { voice: string; language: string; multilingual?: boolean } }
  | { kind: 'digits'; digits: string }
  | { kind: 'stop' };

/**
 * The way from the worker (which runs the call's commands) to the API instance that holds the
 * call's ConversationRelay WebSocket, whichever it is: a row per command, in order, and a NOTIFY
 * naming the call. The owner takes the rows when notified and when the socket opens, so a command
 * written before Twilio connected (the greeting, right after the answer) is not lost.
 */
export interface TwilioRelayCommands {
  send(callSid: string, command: TwilioRelayCommand): Promise<void>;
}

const TABLE = 'twilio_relay_commands';

export function postgresRelayCommands(db: Db): TwilioRelayCommands {
  return {
    send: (callSid, command) =>
      db.transaction(async (trx) => {
        await trx(TABLE).insert({ call_sid: callSid, command: JSON.stringify(command) });
        // Delivered on commit, after the row is visible.
        await trx.raw('select pg_notify(?, ?)', [TWILIO_RELAY_CHANNEL, callSid]);
      }),
  };
}

/** The call's waiting commands, oldest first, taken (deleted) in one statement. */
export async function takeRelayCommands(db: Db, callSid: string): Promise<TwilioRelayCommand[]> {
  const rows = (await db
    .raw(`delete from ${TABLE} where call_sid = ? returning seq, command`, [callSid])
    .then((result: { rows: Array<{ seq: string; command: TwilioRelayCommand }> }) => result.rows)) as Array<{
    seq: string;
    command: TwilioRelayCommand;
  }>;
  return rows.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq))).map((row) => row.command);
}

/** The call is over: what nobody took will never be said. */
export async function dropRelayCommands(db: Db, callSid: string): Promise<void> {
  await db(TABLE).where({ call_sid: callSid }).del();
}

/** Commands older than a day: for calls that ended without their final status reaching us (the hourly maintenance). */
export const RELAY_COMMAND_RETENTION_MS = 24 * 3600 * 1000;

export async function purgeStaleRelayCommands(db: Db, at: Date): Promise<number> {
  return db(TABLE)
    .where('created_at', '<', new Date(at.getTime() - RELAY_COMMAND_RETENTION_MS))
    .del();
}
