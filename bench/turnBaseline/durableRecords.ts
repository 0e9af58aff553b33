/**
 * The durable floor's writes: what a turn cannot skip once it runs across several processes, on raw pg with named
 * prepared statements (no knex, no application logic). A carrier event's signature is accepted once in Postgres (every
 * API instance must see it), the carrier's playback report is recorded (the next turn may depend on it, and any worker
 * may run it), and the `message` event is recorded before its POST and its outcome after (an event the customer may
 * have seen must exist, whatever process dies). Five statements a turn, where Switchboard's turn makes seven.
 */
import { Pool } from 'pg';

const SCHEMA = 'bench_durable_floor';

const SCHEMA_SQL = `
  CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
  CREATE TABLE IF NOT EXISTS ${SCHEMA}.carrier_signatures (signature text PRIMARY KEY, accepted_at timestamptz NOT NULL);
  CREATE TABLE IF NOT EXISTS ${SCHEMA}.playbacks (call_id text NOT NULL, speak_id text NOT NULL, reported_at timestamptz NOT NULL,
                                                   PRIMARY KEY (call_id, speak_id));
  CREATE TABLE IF NOT EXISTS ${SCHEMA}.message_events (event_id uuid PRIMARY KEY, call_id text NOT NULL, turn integer NOT NULL,
                                                        body jsonb NOT NULL, status text NOT NULL, http_status integer,
                                                        reply text, created_at timestamptz NOT NULL, completed_at timestamptz);
  TRUNCATE ${SCHEMA}.carrier_signatures, ${SCHEMA}.playbacks, ${SCHEMA}.message_events;`;

const STATEMENTS = {
  acceptSignature: `INSERT INTO ${SCHEMA}.carrier_signatures (signature, accepted_at) VALUES ($1, now()) ON CONFLICT DO NOTHING RETURNING 1`,
  recordPlayback: `INSERT INTO ${SCHEMA}.playbacks (call_id, speak_id, reported_at) VALUES ($1, $2, now()) ON CONFLICT DO NOTHING`,
  recordMessage: `INSERT INTO ${SCHEMA}.message_events (event_id, call_id, turn, body, status, created_at)
                  VALUES ($1, $2, $3, $4::jsonb, 'pending', now())`,
  settleMessage: `UPDATE ${SCHEMA}.message_events SET status = $2, http_status = $3, reply = $4, completed_at = now() WHERE event_id = $1`,
} as const;

export interface DurableRecords {
  /** True when the signature is new (the event is accepted), false when it was seen before (a replay). */
  acceptSignature(signature: string): Promise<boolean>;
  recordPlayback(callId: string, speakId: string): Promise<void>;
  recordMessage(eventId: string, callId: string, turn: number, body: string): Promise<void>;
  settleMessage(eventId: string, outcome: { status: 'succeeded' | 'failed'; httpStatus: number; reply: string | null }): Promise<void>;
  close(): Promise<void>;
}

export function openDurableRecords(databaseUrl: string, poolSize = 10): DurableRecords {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize });
  const run = (name: keyof typeof STATEMENTS, values: unknown[]) =>
    pool.query({ name: `durable_floor_${name}`, text: STATEMENTS[name], values });
  return {
    async acceptSignature(signature) {
      return ((await run('acceptSignature', [signature])).rowCount ?? 0) === 1;
    },
    async recordPlayback(callId, speakId) {
      await run('recordPlayback', [callId, speakId]);
    },
    async recordMessage(eventId, callId, turn, body) {
      await run('recordMessage', [eventId, callId, turn, body]);
    },
    async settleMessage(eventId, { status, httpStatus, reply }) {
      const settled = await run('settleMessage', [eventId, status, httpStatus, reply]);
      if (settled.rowCount !== 1) throw new Error(`message event ${eventId} was not recorded before its POST`);
    },
    close: () => pool.end(),
  };
}

/** Creates (or empties) the durable floor's tables; run once by the bench before its workers start. */
export async function resetDurableRecords(databaseUrl: string): Promise<void> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await pool.query(SCHEMA_SQL);
  } finally {
    await pool.end();
  }
}

/** What the durable floor wrote, for the bench to check that every turn's rows are there. */
export async function countDurableRecords(
  databaseUrl: string,
): Promise<{ signatures: number; playbacks: number; messages: number; settled: number }> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const { rows } = await pool.query<{ signatures: string; playbacks: string; messages: string; settled: string }>(
      `SELECT (SELECT count(*) FROM ${SCHEMA}.carrier_signatures) AS signatures, (SELECT count(*) FROM ${SCHEMA}.playbacks) AS playbacks,
              (SELECT count(*) FROM ${SCHEMA}.message_events) AS messages,
              (SELECT count(*) FROM ${SCHEMA}.message_events WHERE status = 'succeeded') AS settled`,
    );
    const [row] = rows;
    return {
      signatures: Number(row.signatures),
      playbacks: Number(row.playbacks),
      messages: Number(row.messages),
      settled: Number(row.settled),
    };
  } finally {
    await pool.end();
  }
}
