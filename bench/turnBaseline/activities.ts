import crypto from 'node:crypto';
import type { DurableRecords } from './durableRecords';

/** The secret the engine floor signs its `message` POSTs with (the receiver does not check it: signing is the sender's cost). */
const FLOOR_SIGNING_SECRET = crypto.randomBytes(32).toString('hex');

/** The first `{text}` of an answer, JSON or NDJSON (the bench's receiver answers NDJSON, as it does Switchboard). */
function replyTextOf(body: string): string | undefined {
  for (const line of body.split('\n')) {
    try {
      const parsed = JSON.parse(line) as { text?: unknown };
      if (typeof parsed.text === 'string') return parsed.text;
    } catch {
      // not a JSON line
    }
  }
  return undefined;
}

/** A `message` event signed as Switchboard signs it (HMAC-SHA256 over timestamp and body). */
function signedMessage(callId: string, text: string): { eventId: string; body: string; headers: Record<string, string> } {
  const eventId = crypto.randomUUID();
  const body = JSON.stringify({ event: 'message', event_id: eventId, call_id: callId, text, timestamp: Date.now() });
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = crypto.createHmac('sha256', FLOOR_SIGNING_SECRET).update(`${timestamp}.${body}`).digest('hex');
  return { eventId, body, headers: { 'content-type': 'application/json', 'x-signature': `t=${timestamp},v1=${signature}` } };
}

/** Hands a reply to the carrier's `speak` API. */
async function speak(speakUrl: string, callId: string, turn: number, reply: string): Promise<number> {
  const spoken = await fetch(speakUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ speak_id: `${callId}:speak-${turn}`, text: reply }),
  });
  await spoken.text();
  return spoken.status;
}

/** The baseline turns' local activities; `records` (the durable floor's Postgres writes) when the worker has a database. */
export function createTurnBaselineActivities(records?: DurableRecords) {
  return {
    /** The bare turn: POST the text as a `message`-shaped JSON body, read the answer. */
    async postTurn(url: string, text: string): Promise<number> {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event: 'message', text }),
      });
      await response.text();
      return response.status;
    },

    /** The engine floor's turn: the signed `message` POST, its answer read, then the reply handed to the carrier's `speak` API. */
    async postTurnAndSpeak(messageUrl: string, speakUrl: string, callId: string, turn: number, text: string): Promise<number> {
      const message = signedMessage(callId, text);
      const response = await fetch(messageUrl, { method: 'POST', headers: message.headers, body: message.body });
      const reply = replyTextOf(await response.text());
      return reply === undefined ? response.status : speak(speakUrl, callId, turn, reply);
    },

    /** The durable floor's turn: the engine floor's, with the `message` event recorded before its POST and its outcome after. */
    async postRecordedTurnAndSpeak(messageUrl: string, speakUrl: string, callId: string, turn: number, text: string): Promise<number> {
      if (!records) throw new Error('the durable floor needs the worker to have DATABASE_URL');
      const message = signedMessage(callId, text);
      await records.recordMessage(message.eventId, callId, turn, message.body);
      const response = await fetch(messageUrl, { method: 'POST', headers: message.headers, body: message.body });
      const reply = replyTextOf(await response.text());
      await records.settleMessage(message.eventId, {
        status: response.ok ? 'succeeded' : 'failed',
        httpStatus: response.status,
        reply: reply ?? null,
      });
      return reply === undefined ? response.status : speak(speakUrl, callId, turn, reply);
    },
  };
}

export type TurnBaselineActivities = ReturnType<typeof createTurnBaselineActivities>;
