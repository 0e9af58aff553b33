import type { AppContext, AppDeps } from '../../context';
import { ApiError } from '../../errors';
import { errorResponse, jsonRequestBody } from '../../openapi/schemas';
import type { RouteDef } from '../types';
import { handleCarrierCallEvent } from './events';
import { handleCarrierMessageEvent } from './messages';
import {
  translateTelnyxEvent,
  type TelnyxCallControl,
  type TelnyxWebhookBody,
} from '../../../src/adapters/carrier/callbacks/telnyx/webhook';
import { findCallByCarrierId, recordLateRecording } from '../../../src/domain/calls/store';
import { findMessageIdByCarrierId } from '../../../src/domain/messages/store';
import { withinCarrierReach } from '../../../src/domain/carriers/reach';
import { carrierReachOf } from '../../carrierAuth';

/*
 * Where Telnyx posts call and message webhooks (CARRIER_PROVIDER_LIVE=telnyx), verified by its Ed25519
 * signature (api/carrierAuth.ts). Each event is translated into the carrier callback the simulator
 * sends (src/adapters/carrier/callbacks/telnyx/webhook.ts) and handled by the same code as `/carrier/events`
 * and `/carrier/messages`. Events Switchboard does not act on are acknowledged and dropped.
 */

/** The Telnyx call state the API shares with the worker (src/main/carrierDecliner.ts builds it on a Telnyx deployment). */
function requireTelnyxCalls(deps: AppDeps): TelnyxCallControl {
  if (!deps.telnyxCalls) throw new Error('Telnyx webhooks need the Telnyx call control (src/main/carrierDecliner.ts telnyxCallControl)');
  return deps.telnyxCalls;
}

async function receive(ctx: AppContext, deps: AppDeps): Promise<void> {
  const reach = carrierReachOf(ctx);
  const translation = await translateTelnyxEvent(ctx.state.body as TelnyxWebhookBody, {
    // A call of an environment Telnyx does not serve (the test one) is no call of Telnyx's.
    callByCarrierId: async (carrierCallId) => {
      const call = await findCallByCarrierId(deps.db, carrierCallId);
      return call && withinCarrierReach(ctx.state.log, reach, call, { carrier_call_id: carrierCallId })
        ? { id: call.id, direction: call.direction }
        : undefined;
    },
    messageByCarrierId: (carrierMessageId) => findMessageIdByCarrierId(deps.db, carrierMessageId),
    calls: requireTelnyxCalls(deps),
  });
  if (translation.kind === 'ignored') {
    ctx.state.log.debug({ reason: translation.reason }, 'telnyx event ignored');
    ctx.body = { received: true };
    return;
  }
  // A receipt ahead of its send's record: Telnyx retries a non-2xx answer.
  if (translation.kind === 'unknown') throw new ApiError(404, 'not_found', translation.reason);
  if (translation.kind === 'message') return handleCarrierMessageEvent(ctx, deps, translation.event);
  if (translation.kind === 'recording') {
    const { callId, carrierCallId, recordingUrl } = translation;
    const kept = await recordLateRecording(deps.db, { id: callId, carrierCallId }, recordingUrl);
    ctx.state.log.info({ call_id: callId, kept }, 'telnyx recording saved');
    ctx.body = { received: true };
    return;
  }
  if (translation.kind === 'calls') {
    // In order: a barge-in's stopped speech reaches the call before the sentence that cut it.
    for (const event of translation.events) await handleCarrierCallEvent(ctx, deps, event);
    return;
  }
  const event = translation.event;
  if (event.type !== 'call.incoming') return handleCarrierCallEvent(ctx, deps, event);
  try {
    await handleCarrierCallEvent(ctx, deps, event);
  } catch (err) {
    // Telnyx would retry a refusal, not decline the call: Switchboard declines it (no line, busy, unavailable).
    if (!(err instanceof ApiError) || !deps.declineCall) throw err;
    await deps.declineCall(event.carrier_call_id);
    ctx.state.log.info({ code: err.code, carrierCallId: event.carrier_call_id }, 'inbound telnyx call declined');
    ctx.body = { received: true, declined: err.code };
  }
}

export function telnyxEventRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/carrier/telnyx/events',
      operationId: 'telnyxEvent',
      bodyLimitBytes: 256 * 1024,
      auth: { kind: 'carrier', scheme: 'telnyx' },
      doc: {
        summary: 'Internal: Telnyx call and message webhooks (Ed25519-signed with the account key)',
        tags: ['internal'],
        requestBody: jsonRequestBody({
          type: 'object',
          required: ['data'],
          properties: {
            data: {
              type: 'object',
              required: ['event_type', 'occurred_at', 'payload'],
              properties: {
                event_type: { type: 'string', maxLength: 100 },
                occurred_at: { type: 'string', maxLength: 64 },
                payload: { type: 'object' },
              },
            },
          },
        }),
        responses: {
          '200': { description: '`{received: true}`' },
          '401': errorResponse('`unauthorized`: missing, wrong, stale or replayed signature'),
          '404': errorResponse('the call or message is not known (yet); Telnyx retries'),
          '409': errorResponse('as `/carrier/events`'),
          '422': errorResponse('`validation_error`'),
        },
      },
      handler: receive,
    },
  ];
}
