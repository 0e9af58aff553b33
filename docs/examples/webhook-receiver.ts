/**
 * A minimal Switchboard webhook receiver on plain Node `http`.
 *
 * Run it from the repository root:
 *
 *   SWITCHBOARD_WEBHOOK_SECRET=<the line's 64-hex secret> \
 *   SWITCHBOARD_WEBHOOK_SECRET_NEXT=<staged secret, only while rotating> \
 *   PORT=8787 node --import tsx docs/examples/webhook-receiver.ts
 *
 * With several lines, give each its secrets as JSON instead (current first, then staged):
 *
 *   SWITCHBOARD_WEBHOOK_SECRETS='{"line_123": ["<current>", "<next>"], "line_456": ["<current>"]}'
 *
 * Then point the line's webhook URL at http://<host>:8787/webhooks/switchboard.
 * To send yourself a signed test delivery, in another shell (same secret in the environment):
 *
 *   node --import tsx -e '
 *     const { signatureHeaders } = require("./src/domain/webhooks/signature");
 *     const body = JSON.stringify({ event_id: "evt_test", line_id: "line_123", type: "test" });
 *     const headers = signatureHeaders({ secret: process.env.SWITCHBOARD_WEBHOOK_SECRET, deliveryId: crypto.randomUUID(), rawBody: body, attempt: 1, now: new Date() });
 *     fetch("http://127.0.0.1:8787/webhooks/switchboard", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body })
 *       .then(async (r) => console.log(r.status, await r.text()));'
 *
 * In your own project, import from the published client instead of the relative path below.
 * The replay cache and event dedupe here live in memory: with more than one instance, pass
 * `deliveryIds` and `eventDeduper` backed by Redis or Postgres (see sdk/webhooks/replayCache.ts).
 */
import http from 'node:http';
import { nodeWebhookHandler, type WebhookEvent } from '../../sdk/webhooks';

function loadSecrets(): (lineId: string) => string[] {
  const perLine = process.env.SWITCHBOARD_WEBHOOK_SECRETS;
  if (perLine) {
    const table = JSON.parse(perLine) as Record<string, string[]>;
    return (lineId) => (Object.prototype.hasOwnProperty.call(table, lineId) ? table[lineId] : []);
  }
  const current = process.env.SWITCHBOARD_WEBHOOK_SECRET;
  if (!current) throw new Error('Set SWITCHBOARD_WEBHOOK_SECRET (or SWITCHBOARD_WEBHOOK_SECRETS)');
  const secrets = [current, process.env.SWITCHBOARD_WEBHOOK_SECRET_NEXT ?? ''].filter((s) => s !== '');
  // One secret pair for every line: fine for a single line; use the JSON form for several.
  return () => secrets;
}

async function onEvent(event: WebhookEvent): Promise<void> {
  // Called once per event_id, after the signature, timestamp and replay checks passed.
  // Keep this quick (enqueue real work): the response is sent when it returns, and a throw
  // answers 500 so Switchboard retries the event.
  console.log(
    `event ${event.eventId ?? '(no id)'} on ${event.lineId} (delivery ${event.deliveryId}, attempt ${event.attempt ?? '?'}):`,
    event.body,
  );
}

const webhook = nodeWebhookHandler({ secretsForLine: loadSecrets(), limit: '1mb' }, onEvent);

const server = http.createServer((req, res) => {
  if (req.url === '/webhooks/switchboard') return webhook(req, res);
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
});

const port = Number(process.env.PORT ?? 8787);
server.listen(port, () => console.log(`Listening for Switchboard webhooks on http://localhost:${port}/webhooks/switchboard`));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
