import crypto from 'node:crypto';
import type Koa from 'koa';
import type Router from '@koa/router';
import { createLogger, maskPhone, type Logger } from '../src/platform/logger';
import { deliveryOptions, postEvent, sleep, type CallbackSender, type DeliveryOptions } from './delivery';
import { badRequest, E164, readJson } from './http';
import type { CarrierMessageEvent } from '../src/adapters/carrier/callbacks/wire';

/**
 * The SMS side of the carrier simulator: accepts outbound messages (carrier API), reports their
 * delivery receipts, and delivers inbound messages someone "texts" to a number (control API).
 * In memory, like the rest of the simulator. See docs/simulator.md.
 */

/** Longest text the simulated carrier takes in one request (concatenated SMS of 10 segments and then some). */
const MAX_TEXT = 2_000;
/** Receipts follow acceptance after these delays, like a carrier's DLRs (sent, then the final one). */
const SENT_AFTER_MS = 30;
const FINAL_AFTER_MS = 60;

/**
 * What happens to an outbound message to a destination, set per number through the control API:
 * `deliver` (sent, delivered), `undelivered` (sent, then undelivered: the handset never got it),
 * `fail` (accepted, then failed before leaving the carrier), `reject` (refused at once with 400).
 */
export type MessageOutcome = 'deliver' | 'undelivered' | 'fail' | 'reject';
const OUTCOMES: readonly MessageOutcome[] = ['deliver', 'undelivered', 'fail', 'reject'];

export interface SimulatedMessage {
  carrier_message_id: string;
  /** Outbound: Switchboard's id (the idempotency key of the send). Inbound: null. */
  message_id: string | null;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
  text: string;
  /** Outbound: queued → sent → delivered | undelivered | failed. Inbound: received. */
  status: 'queued' | 'sent' | 'delivered' | 'undelivered' | 'failed' | 'received';
  /** Outbound: how many send requests carried this message_id. */
  requests: number;
  created_at: string;
}

export class MessageSimulatorState {
  private readonly messages = new Map<string, SimulatedMessage>();
  /** Outbound messages by Switchboard's message_id (the send's idempotency key). */
  private readonly byMessageId = new Map<string, SimulatedMessage>();
  readonly outcomes = new Map<string, MessageOutcome>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private abort = new AbortController();
  private readonly delivery: DeliveryOptions;
  private readonly log: Logger;
  /** Signs and sends events; set by the app (`createSimulatorApp`). Without it events are not delivered. */
  callbacks: CallbackSender | null = null;

  constructor(options: { delivery?: Partial<DeliveryOptions>; log?: Logger } = {}) {
    // Retried like call events (about 15 s in all), so a restarting Switchboard loses no receipt.
    this.delivery = deliveryOptions(options.delivery);
    this.log = options.log ?? createLogger('simulator');
  }

  list(): SimulatedMessage[] {
    return [...this.messages.values()].map((m) => ({ ...m }));
  }

  /**
   * Accepts an outbound message, or answers a repeat of `messageId` with the message it already
   * accepted. `rejected` when the destination's outcome is `reject`; `conflict` when `messageId`
   * was used for a different message.
   */
  send(request: {
    messageId: string;
    from: string;
    to: string;
    text: string;
    statusUrl: string;
  }): SimulatedMessage | 'rejected' | 'conflict' {
    const existing = this.byMessageId.get(request.messageId);
    if (existing) {
      if (existing.from !== request.from || existing.to !== request.to || existing.text !== request.text) return 'conflict';
      existing.requests += 1;
      return { ...existing };
    }
    const outcome = this.outcomes.get(request.to) ?? 'deliver';
    if (outcome === 'reject') return 'rejected';
    const message = newMessage(request, { message_id: request.messageId, direction: 'outbound', status: 'queued', requests: 1 });
    this.messages.set(message.carrier_message_id, message);
    this.byMessageId.set(request.messageId, message);
    // Receipts in order: one chain per message.
    const signal = this.abort.signal;
    const receipt = (status: 'sent' | 'delivered' | 'undelivered' | 'failed', errorCode?: string) => async () => {
      message.status = status;
      const event: CarrierMessageEvent = {
        type: 'sms.status',
        message_id: request.messageId,
        carrier_message_id: message.carrier_message_id,
        status,
        ...(errorCode ? { error_code: errorCode } : {}),
        at: Date.now(),
      };
      await this.deliver(request.statusUrl, event, signal);
    };
    const steps =
      outcome === 'fail'
        ? [receipt('failed', 'carrier_failure')]
        : [receipt('sent'), outcome === 'undelivered' ? receipt('undelivered', 'unreachable_handset') : receipt('delivered')];
    this.later(SENT_AFTER_MS, async () => {
      for (const [index, step] of steps.entries()) {
        if (index > 0) await sleep(FINAL_AFTER_MS - SENT_AFTER_MS, signal);
        if (signal.aborted) return;
        await step();
      }
    });
    return { ...message };
  }

  /**
   * Someone texts `to` (one of our numbers): `sms.received` goes to `eventsUrl`, retried on
   * network errors and 5xx (a 4xx, e.g. 404 for a number nobody has, is final). Resolves once
   * delivered or given up.
   */
  async inbound(request: {
    from: string;
    to: string;
    text: string;
    eventsUrl: string;
  }): Promise<{ message: SimulatedMessage; delivery: 'delivered' | 'refused' | 'failed'; status: number | null }> {
    const message = newMessage(request, { message_id: null, direction: 'inbound', status: 'received', requests: 0 });
    this.messages.set(message.carrier_message_id, message);
    const event: CarrierMessageEvent = {
      type: 'sms.received',
      carrier_message_id: message.carrier_message_id,
      from: request.from,
      to: request.to,
      text: request.text,
      at: Date.now(),
    };
    const result = await this.deliver(request.eventsUrl, event, this.abort.signal);
    return { message: { ...message }, ...result };
  }

  reset(): void {
    this.stop();
    this.messages.clear();
    this.byMessageId.clear();
    this.outcomes.clear();
  }

  /** Clears timers and abandons pending deliveries (the server is closing). */
  stop(): void {
    this.abort.abort();
    this.abort = new AbortController();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private later(ms: number, run: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run();
    }, ms);
    this.timers.add(timer);
  }

  /** POSTs one event, retrying a few times (simulator/delivery.ts); a 4xx answer is final. */
  private async deliver(
    url: string,
    event: CarrierMessageEvent,
    signal: AbortSignal,
  ): Promise<{ delivery: 'delivered' | 'refused' | 'failed'; status: number | null }> {
    return postEvent({
      callbacks: this.callbacks,
      url,
      event,
      signal,
      options: this.delivery,
      isFinal: (status) => status < 500,
      dropped: (error) => {
        const about = event.type === 'sms.received' ? { to: maskPhone(event.to) } : { message_id: event.message_id };
        this.log.warn(
          { type: event.type, carrier_message_id: event.carrier_message_id, ...about, error },
          'message event not delivered; dropped',
        );
      },
    });
  }
}

/** A message the carrier holds from now on, under a fresh carrier id (`SM` + 32 hex, as Twilio's SIDs). */
function newMessage(
  body: { from: string; to: string; text: string },
  state: Pick<SimulatedMessage, 'message_id' | 'direction' | 'status' | 'requests'>,
): SimulatedMessage {
  return {
    carrier_message_id: `SM${crypto.randomBytes(16).toString('hex')}`,
    ...state,
    from: body.from,
    to: body.to,
    text: body.text,
    created_at: new Date().toISOString(),
  };
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.length <= MAX_TEXT;
}

/** The carrier's messaging API (`/carrier/v1/messages`) and its control API (`/control/messages...`). */
export function messageRoutes(
  router: Router,
  messages: MessageSimulatorState,
  requireCarrierAuth: Koa.Middleware,
  callbacks: CallbackSender,
): void {
  router.post('/carrier/v1/messages', requireCarrierAuth, async (ctx) => {
    const { message_id: messageId, from, to, text, status_url: statusUrl } = await readJson(ctx);
    if (typeof messageId !== 'string' || messageId === '' || messageId.length > 200) return badRequest(ctx, 'message_id is required');
    if (typeof from !== 'string' || !E164.test(from)) return badRequest(ctx, 'from must be an E.164 number');
    if (typeof to !== 'string' || !E164.test(to)) return badRequest(ctx, 'to must be an E.164 number');
    if (!isText(text)) return badRequest(ctx, `text must be 1 to ${MAX_TEXT} characters`);
    const target = callbacks.resolve(statusUrl, '/carrier/messages');
    if ('error' in target) return badRequest(ctx, `status_url ${target.error}`);
    const result = messages.send({ messageId, from, to, text, statusUrl: target.url });
    if (result === 'rejected') return badRequest(ctx, 'destination refused the message');
    if (result === 'conflict') {
      ctx.status = 409;
      ctx.body = { error: 'message_id was already used for a different message' };
      return;
    }
    ctx.status = result.requests === 1 ? 201 : 200;
    ctx.body = { carrier_message_id: result.carrier_message_id, status: result.status };
  });

  router.get('/control/messages', async (ctx) => {
    ctx.body = { messages: messages.list() };
  });
  router.post('/control/messages/inbound', async (ctx) => {
    const { from, to, text, events_url: eventsUrl } = await readJson(ctx);
    if (typeof from !== 'string' || !E164.test(from)) return badRequest(ctx, 'from must be an E.164 number');
    if (typeof to !== 'string' || !E164.test(to)) return badRequest(ctx, 'to must be an E.164 number');
    if (!isText(text)) return badRequest(ctx, `text must be 1 to ${MAX_TEXT} characters`);
    const target = callbacks.resolve(eventsUrl, '/carrier/messages');
    if ('error' in target) return badRequest(ctx, `events_url ${target.error}`);
    const { message, delivery, status } = await messages.inbound({ from, to, text, eventsUrl: target.url });
    ctx.status = 201;
    ctx.body = { carrier_message_id: message.carrier_message_id, delivery, status };
  });
  router.post('/control/messages/outcomes', async (ctx) => {
    const { to, outcome } = await readJson(ctx);
    if (typeof to !== 'string' || !E164.test(to)) return badRequest(ctx, 'to must be an E.164 number');
    if (!OUTCOMES.includes(outcome as MessageOutcome)) return badRequest(ctx, `outcome must be one of ${OUTCOMES.join(', ')}`);
    messages.outcomes.set(to, outcome as MessageOutcome);
    ctx.body = { to, outcome };
  });
  router.delete('/control/messages/outcomes', async (ctx) => {
    messages.outcomes.clear();
    ctx.body = { reset: true };
  });
  router.post('/control/messages/reset', async (ctx) => {
    messages.reset();
    ctx.body = { reset: true };
  });
}
