/**
 * The engine floor's carrier-event receiver: a bare Koa app that takes a signed carrier event
 * (`POST /carrier/events`, src/adapters/carrier/callbacks/signature.ts, the scheme the API
 * verifies), checks its HMAC and that the signature is new (in memory: one process), and signals the
 * call's workflow (workflow id = `call_id`) with the utterance. No database, no schema, no
 * deferred playback reports: only the hops every Switchboard turn makes. With `records` (the durable
 * floor) the replay check and the playback reports go to Postgres.
 */
import type { Client } from '@temporalio/client';
import http from 'node:http';
import Koa from 'koa';
import { verifyCarrierCallback } from '../../src/adapters/carrier/callbacks/signature';
import { closeServer, listen } from '../support/http';
import type { DurableRecords } from './durableRecords';
import { baselineTurnSignal } from './workflows';

export async function startFloorCarrierReceiver(options: {
  client: Client;
  secret: string;
  /**
   * The durable floor: replay protection in Postgres (as the API's, which every instance must see) instead of memory,
   * and the carrier's `call.playback` reports recorded there (as the API defers them) instead of being refused.
   */
  records?: DurableRecords;
}): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  // Replay protection, as the API's (which keeps it in Postgres so that every instance sees it).
  const accepted = new Set<string>();
  const acceptOnce = async (signature: string): Promise<boolean> => {
    if (options.records) return options.records.acceptSignature(signature);
    if (accepted.has(signature)) return false;
    accepted.add(signature);
    return true;
  };
  app.use(async (ctx) => {
    if (ctx.method !== 'POST' || ctx.path !== '/carrier/events') {
      ctx.status = 404;
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) chunks.push(chunk);
    const rawBody = Buffer.concat(chunks);
    const verdict = verifyCarrierCallback({ secret: options.secret, headers: ctx.req.headers, rawBody });
    if (!verdict.valid || !(await acceptOnce(verdict.signature))) {
      ctx.status = 401;
      ctx.body = { error: verdict.valid ? 'replayed' : verdict.reason };
      return;
    }
    const event = JSON.parse(rawBody.toString('utf8')) as { type: string; call_id: string; text: string; speak_id?: string };
    if (options.records && event.type === 'call.playback' && event.speak_id) {
      await options.records.recordPlayback(event.call_id, event.speak_id);
      ctx.body = { received: true };
      return;
    }
    await options.client.workflow.getHandle(event.call_id).signal(baselineTurnSignal, { text: event.text });
    ctx.body = { received: true };
  });
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  const origin = await listen(server);
  return { url: `${origin}/carrier/events`, close: () => closeServer(server) };
}
