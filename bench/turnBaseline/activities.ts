import crypto from 'node:crypto';

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

/** The baseline turns' local activities. */
export function createTurnBaselineActivities() {
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

    /**
     * The engine floor's turn: the `message` POST signed as Switchboard signs it (HMAC-SHA256 over
     * timestamp and body), its answer read, then the reply handed to the carrier's `speak` API.
     */
    async postTurnAndSpeak(messageUrl: string, speakUrl: string, callId: string, turn: number, text: string): Promise<number> {
      const body = JSON.stringify({ event: 'message', event_id: crypto.randomUUID(), call_id: callId, text, timestamp: Date.now() });
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = crypto.createHmac('sha256', FLOOR_SIGNING_SECRET).update(`${timestamp}.${body}`).digest('hex');
      const response = await fetch(messageUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': `t=${timestamp},v1=${signature}` },
        body,
      });
      const reply = replyTextOf(await response.text());
      if (reply === undefined) return response.status;
      const spoken = await fetch(speakUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ speak_id: `${callId}:speak-${turn}`, text: reply }),
      });
      await spoken.text();
      return spoken.status;
    },
  };
}

export type TurnBaselineActivities = ReturnType<typeof createTurnBaselineActivities>;
