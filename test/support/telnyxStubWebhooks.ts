import crypto from 'node:crypto';
import Telnyx from 'telnyx';
import type {
  CallAnswered,
  CallBridged,
  CallHangup,
  CallInitiated,
  CallMachineDetectionEnded,
  CallMachineGreetingEnded,
  CallRecordingSaved,
  CallSpeakEnded,
  CallSpeakStarted,
  DeliveryUpdateWebhookEvent,
  MessagingInboundMessage,
  OutboundMessage,
  Transcription,
} from 'telnyx/resources/webhooks';

/**
 * How the Telnyx contract stub (./telnyxStub.ts) delivers its webhooks, as Telnyx documents it, and what it may
 * put in them: the official `telnyx` package's (7.24.0) webhook event types, so a field Telnyx does not send is
 * a type error (`npm run typecheck`), also one spread in from a helper.
 *
 * Delivery:
 * - Voice (`call.*`): ONE delivery to the call's webhook URL; on no answer, an error or a non-2xx answer, ONE to the
 *   Call Control application's failover URL if it has one, else "Delivery failed". Never a retry to the primary
 *   (developers.telnyx.com/docs/voice/programmable-voice/voice-api-webhooks, "Webhook delivery").
 * - Messaging (`message.*`): "Return a 2xx status code within 2 seconds"; "Telnyx retries (up to 3 attempts per URL)
 *   and then tries your failover URL if configured" (developers.telnyx.com/docs/messaging/messages/receiving-webhooks).
 *   The spacing of those attempts is not documented: the stub makes them 100 ms apart.
 * - Duplicates: "Identical webhooks may occasionally be delivered" (developers.telnyx.com/docs/voice/programmable-voice/
 *   command-retries): `duplicate(...)` makes the stub deliver the chosen event types a second time, the same event
 *   (same `data.id`) signed again a second later, so the second delivery passes a signature replay check.
 * - One delivery at a time, in order (the stub's choice: Telnyx does not promise an order).
 *
 * Oracle: every body the stub signs is verified by the package's own `client.webhooks.unwrap` (the SDK's
 * verification, beside Switchboard's); a failure is kept in `oracleFailures`, which the suites expect empty.
 */

type TelnyxEvent =
  | CallAnswered
  | CallBridged
  | CallHangup
  | CallInitiated
  | CallMachineDetectionEnded
  | CallMachineGreetingEnded
  | CallRecordingSaved
  | CallSpeakEnded
  | CallSpeakStarted
  | Transcription
  | OutboundMessage
  | MessagingInboundMessage;

/** The event types the stub sends. */
export type TelnyxEventType = NonNullable<TelnyxEvent['event_type']>;

/** The package's event of type `E` (an event type some packages share, such as `message.sent` / `message.finalized`). */
type EventOf<E extends TelnyxEventType> = TelnyxEvent extends infer T
  ? T extends { event_type?: infer U }
    ? E extends U
      ? T
      : never
    : never
  : never;

/** The documented payload of an event of type `E`. */
export type TelnyxPayloadOf<E extends TelnyxEventType> = NonNullable<EventOf<E>['payload']>;

type Primitive = string | number | boolean | bigint | symbol | null | undefined;
/** `U` with every key `T` does not have, at any depth, turned into `never`: a field Telnyx does not send fails to type. */
export type Exactly<T, U> = U extends Primitive
  ? U
  : unknown extends T
    ? U
    : string extends keyof T
      ? U
      : U extends ReadonlyArray<infer I>
        ? ReadonlyArray<Exactly<NonNullable<T extends ReadonlyArray<infer J> ? J : never>, I>>
        : { [K in keyof U]: K extends keyof T ? Exactly<NonNullable<T[K]>, U[K]> : never };

/** Where an event goes: the URL of the call, message or profile, and the failover URL configured for it. */
export interface WebhookTarget {
  url: string;
  failoverUrl?: string;
}

export interface TelnyxDelivery {
  eventId: string;
  eventType: TelnyxEventType;
  /** What it is about: the payload's `call_control_id` (else `call_leg_id`), or the message's id. */
  about: string;
  url: string;
  /** Attempt number at that URL (`meta.attempt` on messaging webhooks). */
  attempt: number;
  failover: boolean;
  /** The second delivery of a duplicated event. */
  duplicate: boolean;
  /** HTTP status, or `error` (no answer within the timeout, or the connection failed). */
  status: number | 'error';
  /** What went over the wire (for replay tests): the raw body and the signature headers. */
  sent: { body: string; headers: Record<string, string> };
}

export interface TelnyxWebhookSender {
  /** Posts one event as Telnyx does (above); resolves once its deliveries are done. */
  send<E extends TelnyxEventType, P extends TelnyxPayloadOf<E>>(
    target: WebhookTarget,
    eventType: E,
    payload: P & Exactly<TelnyxPayloadOf<E>, P>,
  ): Promise<void>;
  /** Signs `body` as Telnyx does: `telnyx-signature-ed25519` over `"<timestamp>|<body>"`. */
  sign(body: string, timestamp?: number): Record<string, string>;
  /** Every delivery attempt, in order. */
  deliveries: TelnyxDelivery[];
  /** Delivers events of these types twice from now on (`'all'`, or `[]` for none). */
  duplicate(eventTypes: readonly TelnyxEventType[] | 'all'): void;
  /** Bodies the package's own verification refused (empty unless the stub signs wrongly). */
  oracleFailures: string[];
}

/** A webhook's body as Telnyx sends it: the event (a fresh id, occurred now) in its `{data: …}` envelope. */
export function telnyxEventBody<P>(
  eventType: string,
  payload: P,
): { data: { record_type: 'event'; id: string; event_type: string; occurred_at: string; payload: P } } {
  return { data: { record_type: 'event', id: crypto.randomUUID(), event_type: eventType, occurred_at: new Date().toISOString(), payload } };
}

const VOICE_TIMEOUT_MS = 10_000;
const MESSAGING_TIMEOUT_MS = 2_000;
const MESSAGING_ATTEMPTS_PER_URL = 3;

export function telnyxWebhookSender(keys: { privateKey: crypto.KeyObject; publicKey: string; apiKey: string }): TelnyxWebhookSender {
  const sdk = new Telnyx({ apiKey: keys.apiKey, publicKey: keys.publicKey, maxRetries: 0 });
  const deliveries: TelnyxDelivery[] = [];
  const oracleFailures: string[] = [];
  let duplicated: readonly string[] | 'all' = [];
  let queue: Promise<void> = Promise.resolve();

  const sign = (body: string, timestamp = Math.floor(Date.now() / 1000)) => ({
    'telnyx-timestamp': String(timestamp),
    'telnyx-signature-ed25519': crypto.sign(null, Buffer.from(`${timestamp}|${body}`), keys.privateKey).toString('base64'),
  });

  async function post(url: string, body: string, timestamp: number | undefined, timeoutMs: number) {
    const headers = sign(body, timestamp);
    const sent = { body, headers };
    await sdk.webhooks.unwrap(body, { headers }).catch((err: Error) => oracleFailures.push(`${err.message}: ${body.slice(0, 200)}`));
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      return { status: response.status as number | 'error', sent };
    } catch {
      return { status: 'error' as const, sent };
    }
  }

  async function deliver(target: WebhookTarget, data: TelnyxEvent & { id: string; event_type: TelnyxEventType }) {
    const eventType = data.event_type;
    const messaging = eventType.startsWith('message.');
    const perUrl = messaging ? MESSAGING_ATTEMPTS_PER_URL : 1;
    const bodyFor = (url: string, attempt: number) =>
      JSON.stringify(
        messaging
          ? ({ data: data as OutboundMessage, meta: { attempt, delivered_to: url } } satisfies DeliveryUpdateWebhookEvent)
          : { data },
      );
    const payload = (data.payload ?? {}) as { call_control_id?: string; call_leg_id?: string; id?: string };
    const about = payload.call_control_id ?? payload.call_leg_id ?? payload.id ?? '';
    const urls = [target.url, ...(target.failoverUrl ? [target.failoverUrl] : [])];
    for (const [index, url] of urls.entries()) {
      for (let attempt = 1; attempt <= perUrl; attempt += 1) {
        // pacing: Telnyx waits between delivery attempts (a shortened backoff)
        if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 100));
        const { status, sent } = await post(url, bodyFor(url, attempt), undefined, messaging ? MESSAGING_TIMEOUT_MS : VOICE_TIMEOUT_MS);
        deliveries.push({ eventId: data.id, eventType, about, url, attempt, failover: index > 0, duplicate: false, status, sent });
        if (typeof status === 'number' && status >= 200 && status < 300) {
          if (duplicated === 'all' || duplicated.includes(eventType)) {
            // The same event again, signed a second later.
            const again = await post(url, bodyFor(url, attempt), Math.floor(Date.now() / 1000) + 1, VOICE_TIMEOUT_MS);
            deliveries.push({ eventId: data.id, eventType, about, url, attempt, failover: index > 0, duplicate: true, ...again });
          }
          return;
        }
      }
    }
  }

  return {
    send(target, eventType, payload) {
      const data = telnyxEventBody(eventType, payload).data as unknown as TelnyxEvent & { id: string; event_type: TelnyxEventType };
      queue = queue.then(() => deliver(target, data));
      return queue;
    },
    sign,
    deliveries,
    duplicate: (eventTypes) => void (duplicated = eventTypes),
    oracleFailures,
  };
}
