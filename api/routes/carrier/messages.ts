import type { AppContext, AppDeps } from '../../context';
import { errors } from '../../errors';
import { errorResponse } from '../../openapi/schemas';
import { providerCallbackRoute } from '../providerCallback';
import type { RouteDef } from '../../routeTable';
import {
  carrierEventTimeProblem,
  CARRIER_MESSAGE_STATUSES,
  type CarrierInboundMessageEvent,
  type CarrierMessageEvent,
  type CarrierMessageStatusEvent,
} from '../../../src/adapters/carrier/callbacks';
import { takeInboundMessage } from '../../../src/domain/messages/inbound';
import { takeCarrierReceipt } from '../../../src/domain/messages/carrierReceipt';
import { toE164 } from '../../../src/platform/phone';
import { carrierReachOf } from '../../carrierAuth';

/*
 * Where the carrier reports messages (the simulator, or a Twilio/Telnyx adapter's webhook
 * translator): inbound SMS and delivery receipts. Signed like `/carrier/events` (route auth `carrier`).
 * Every step is idempotent, so a carrier retrying after a lost answer changes nothing twice.
 */

/** 404 when no active line has the number (the carrier then drops the message). */
async function inbound(ctx: AppContext, deps: AppDeps, event: CarrierInboundMessageEvent): Promise<void> {
  const from = toE164(event.from);
  // A sender that is not a phone number (an alphanumeric sender id) cannot be answered or opted out: refused, never stored raw.
  if (!from) throw errors.validation([{ field: 'from', message: 'Must be a phone number' }]);
  const message = { carrierMessageId: event.carrier_message_id, from, to: toE164(event.to), text: event.text, reach: carrierReachOf(ctx) };
  const outcome = await takeInboundMessage({ ...deps, log: ctx.state.log }, message);
  if (!outcome) throw errors.notFound('Line for this number');
  ctx.body = { received: true, message_id: outcome.message.id };
}

/** A receipt moves the status forward (never back) and tells the send workflow, which bills on the final one. */
async function receipt(ctx: AppContext, deps: AppDeps, event: CarrierMessageStatusEvent): Promise<void> {
  const receipt = { messageId: event.message_id, status: event.status, errorCode: event.error_code ?? null };
  if (!(await takeCarrierReceipt({ ...deps, log: ctx.state.log }, receipt, carrierReachOf(ctx)))) throw errors.notFound('Message');
  ctx.body = { received: true };
}

/** One message event, verified: also what a provider's webhook translator hands over (./telnyx.ts). */
export async function handleCarrierMessageEvent(ctx: AppContext, deps: AppDeps, event: CarrierMessageEvent): Promise<void> {
  const atProblem = carrierEventTimeProblem(event.at, Date.now());
  if (atProblem) throw errors.validation([{ field: 'at', message: atProblem }]);
  if (event.type === 'sms.received') return inbound(ctx, deps, event);
  return receipt(ctx, deps, event);
}

export function carrierMessageRoutes(): RouteDef[] {
  return [
    providerCallbackRoute({
      path: '/carrier/messages',
      operationId: 'carrierMessageEvent',
      // Message texts of up to 10000 characters.
      bodyLimitBytes: 128 * 1024,
      auth: { kind: 'carrier' },
      summary: 'Internal: inbound SMS and delivery receipts from the carrier adapter (signed with CARRIER_WEBHOOK_SECRET)',
      body: {
        oneOf: [
          {
            type: 'object',
            required: ['type', 'carrier_message_id', 'from', 'to', 'text', 'at'],
            properties: {
              type: { const: 'sms.received' },
              carrier_message_id: { type: 'string', minLength: 1, maxLength: 200 },
              from: { type: 'string', minLength: 1, maxLength: 64 },
              to: { type: 'string', minLength: 1, maxLength: 64 },
              text: { type: 'string', maxLength: 10000 },
              at: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
            },
          },
          {
            type: 'object',
            required: ['type', 'message_id', 'status', 'at'],
            properties: {
              type: { const: 'sms.status' },
              message_id: { type: 'string', format: 'uuid' },
              carrier_message_id: { type: 'string', maxLength: 200 },
              status: { type: 'string', enum: [...CARRIER_MESSAGE_STATUSES] },
              error_code: { type: 'string', maxLength: 100 },
              at: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
            },
          },
        ],
      },
      received: '`{received: true}`',
      refusals: {
        '404': errorResponse('`not_found`: no active line has the number, or no such message'),
        '422': errorResponse('`validation_error`, including a `from` that is not a phone number and an `at` out of bounds'),
      },
      receive: handleCarrierMessageEvent,
    }),
  ];
}
