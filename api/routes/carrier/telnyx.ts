import type { AppContext, AppDeps } from '../../context';
import { errorResponse } from '../../openapi/schemas';
import { providerCallbackRoute } from '../providerCallback';
import type { RouteDef } from '../../routeTable';
import type { TelnyxWebhookBody } from '../../../src/adapters/carrier/callbacks/telnyx';
import type { TelnyxInboxDeps } from '../../../src/domain/telnyxInbox/apply';
import { processTelnyxEvents } from '../../../src/domain/telnyxInbox/process';
import { receiveTelnyxEvent } from '../../../src/domain/telnyxInbox/receive';

/*
 * Where Telnyx posts call and message webhooks (an environment on Telnyx), verified by its Ed25519 signature
 * (api/carrierAuth.ts). Telnyx delivers a voice webhook once (then to the failover URL, if the Call Control
 * application has one) and sometimes twice, and wants messaging webhooks answered 2xx within 2 s: so the event
 * is stored in the inbox, keyed by its id, and answered 200 at once (a duplicate too, storing nothing); it is
 * processed after the answer (src/domain/telnyxInbox/process.ts), and by the sweeper if this process does not
 * finish it. Every event is kept, the ones Switchboard does not act on included (logged).
 */

function inboxDeps(ctx: AppContext, deps: AppDeps): TelnyxInboxDeps {
  if (!deps.telnyxInbox) throw new Error('Telnyx webhooks need the Telnyx inbox ports (src/main/telnyxInbox.ts)');
  return { ...deps, log: ctx.state.log, telnyx: deps.telnyxInbox };
}

async function receive(ctx: AppContext, deps: AppDeps, body: TelnyxWebhookBody): Promise<void> {
  const inbox = inboxDeps(ctx, deps);
  const { orderKey } = await receiveTelnyxEvent(inbox, body, ctx.state.rawBody ?? Buffer.alloc(0));
  ctx.body = { received: true };
  // After the answer; a duplicate too (its first delivery's processing may have died with another instance).
  void processTelnyxEvents(inbox, orderKey).catch((err: unknown) =>
    ctx.state.log.warn({ err: (err as Error).message, order_key: orderKey }, 'telnyx event processing failed; the sweeper retries it'),
  );
}

export function telnyxEventRoutes(): RouteDef[] {
  return [
    providerCallbackRoute({
      path: '/carrier/telnyx/events',
      operationId: 'telnyxEvent',
      bodyLimitBytes: 256 * 1024,
      auth: { kind: 'carrier', scheme: 'telnyx' },
      summary: 'Internal: Telnyx call and message webhooks (Ed25519-signed with the account key), stored and processed after the answer',
      body: {
        type: 'object',
        required: ['data'],
        properties: {
          data: {
            type: 'object',
            properties: {
              event_type: { type: 'string', maxLength: 100 },
              id: { type: 'string', maxLength: 200 },
              occurred_at: { type: 'string', maxLength: 64 },
              payload: { type: 'object' },
            },
          },
        },
      },
      received: '`{received: true}`: stored (a repeated event id stores nothing)',
      refusals: { '422': errorResponse('`validation_error`: not a Telnyx event envelope') },
      receive,
    }),
  ];
}
