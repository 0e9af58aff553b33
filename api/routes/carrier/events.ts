import type { AppContext, AppDeps } from '../../context';
import { ApiError, errors } from '../../errors';
import { errorResponse } from '../../openapi/schemas';
import { providerCallbackRoute } from '../providerCallback';
import type { RouteDef } from '../../routeTable';
import {
  carrierEventTimeProblem,
  ANSWERED_BY,
  CALL_ENDED_BY,
  CARRIER_CALL_EVENT_TYPES,
  MACHINE_KINDS,
  type CarrierCallEvent,
  type CarrierIncomingCallEvent,
} from '../../../src/adapters/carrier/callbacks';
import { answerInboundCall, InboundCallRefusedError, type InboundCallRefusal } from '../../../src/domain/calls/answerInbound';
import { StartCompensatedError } from '../../../src/platform/temporal/starts';
import { CallNotFoundError, deliverCarrierCallEvent } from '../../../src/domain/calls/carrierEvent';
import type { SignalledCallEvent } from '../../../workflows/definitions/calls';
import { carrierReachOf } from '../../carrierAuth';

/*
 * Where the carrier reports call progress (the simulator, or a Twilio/Telnyx adapter's webhook
 * translator). Signed by the carrier (route auth `carrier`, api/carrierAuth.ts), checked before
 * the body is validated; `call.incoming` is src/domain/calls/answerInbound.ts, every other event
 * src/domain/calls/carrierEvent.ts (shared with the Twilio routes, api/routes/carrier/twilio.ts).
 */

const INBOUND_REFUSALS: Record<InboundCallRefusal, () => ApiError> = {
  no_line_for_number: () => errors.notFound('Line for this number'),
  call_in_progress: () => new ApiError(409, 'call_in_progress', 'The line is on another call'),
  call_not_active: () => new ApiError(409, 'call_not_active', 'This call has ended'),
};

/**
 * A call to one of our numbers (src/domain/calls/answerInbound.ts): 404 when no active line has
 * the number, 409 when the line is busy or the call has ended, 503 when its workflow could not
 * start; the carrier declines the call on any of them.
 */
async function incoming(ctx: AppContext, deps: AppDeps, event: CarrierIncomingCallEvent): Promise<void> {
  try {
    await answerInboundCall(
      { ...deps, log: ctx.state.log },
      { carrierCallId: event.carrier_call_id, from: event.from, to: event.to, reach: carrierReachOf(ctx) },
    );
  } catch (err) {
    if (err instanceof InboundCallRefusedError) throw INBOUND_REFUSALS[err.refusal]();
    if (err instanceof StartCompensatedError) {
      throw new ApiError(503, 'service_unavailable', 'The call cannot be taken right now', undefined, { 'Retry-After': '1' });
    }
    throw err;
  }
  // The internal call id stays internal: the carrier learns it only when the call is answered.
  ctx.body = { received: true };
}

/** Any other event goes to the call's workflow as it came, without its call ids (field names as on the wire). */
async function progress(ctx: AppContext, deps: AppDeps, event: SignalledCallEvent & { call_id?: string }): Promise<void> {
  if (!event.call_id) throw errors.validation([{ field: 'call_id', message: 'Required for this event type' }]);
  try {
    await deliverCarrierCallEvent({ ...deps, log: ctx.state.log }, event.call_id, event, carrierReachOf(ctx));
  } catch (err) {
    if (err instanceof CallNotFoundError) throw new ApiError(404, 'call_not_found', 'No call with this id');
    throw err;
  }
  ctx.body = { received: true };
}

/** One call event, verified: also what a provider's webhook translator hands over (./telnyx.ts). */
export async function handleCarrierCallEvent(ctx: AppContext, deps: AppDeps, event: CarrierCallEvent): Promise<void> {
  const atProblem = carrierEventTimeProblem(event.at, Date.now());
  if (atProblem) throw errors.validation([{ field: 'at', message: atProblem }]);
  // The schema admits any event type with any of the fields; `call.incoming` is the one without a call id.
  if (event.type === 'call.incoming') return incoming(ctx, deps, event);
  return progress(ctx, deps, event as SignalledCallEvent & { call_id?: string });
}

export function carrierEventRoutes(): RouteDef[] {
  return [
    providerCallbackRoute({
      path: '/carrier/events',
      operationId: 'carrierEvent',
      // Utterances and played text of up to 30000 characters.
      bodyLimitBytes: 256 * 1024,
      auth: { kind: 'carrier' },
      summary: 'Internal: call progress from the carrier adapter (signed with CARRIER_WEBHOOK_SECRET)',
      body: {
        type: 'object',
        required: ['type', 'at'],
        properties: {
          type: { type: 'string', enum: [...CARRIER_CALL_EVENT_TYPES] },
          text: { type: 'string', maxLength: 10000 },
          language: { type: 'string', maxLength: 16 },
          speak_id: { type: 'string', maxLength: 200 },
          played_text: { type: 'string', maxLength: 20000 },
          done: { type: 'boolean' },
          stopped: { type: 'boolean' },
          recording_url: { type: 'string', format: 'uri', maxLength: 2048 },
          from: { type: 'string', maxLength: 64 },
          to: { type: 'string', maxLength: 64 },
          call_id: { type: 'string', format: 'uuid' },
          carrier_call_id: { type: 'string' },
          at: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          ended_by: { type: 'string', enum: [...CALL_ENDED_BY] },
          answered: { type: 'boolean' },
          answered_by: { type: 'string', enum: [...ANSWERED_BY] },
          machine_kind: { type: 'string', enum: [...MACHINE_KINDS] },
        },
      },
      received: '`{received: true}`',
      refusals: {
        '404': errorResponse('`call_not_found`'),
        '422': errorResponse('`validation_error`, including an `at` more than an hour in the past or five minutes in the future'),
        '409': errorResponse(
          '`call_in_progress` (the line is on a call) or `call_not_active` (a repeated `call.incoming` for a call that has ended)',
        ),
        '503': errorResponse('`service_unavailable`: the call could not be taken (the carrier declines it)'),
      },
      receive: handleCarrierCallEvent,
    }),
  ];
}
