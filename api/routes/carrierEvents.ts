import crypto from 'node:crypto';
import type { AppContext, AppDeps } from '../context';
import { ApiError } from '../errors';
import { errorResponse } from '../openapi/schemas';
import type { RouteDef } from './types';
import { carrierEventSignal, type CarrierCallEvent } from '../../workflows/calls';

/**
 * Where the carrier reports call progress (the simulator, or a Twilio/Telnyx adapter's webhook
 * translator). Authenticated with the shared carrier secret, compared in constant time; each
 * event becomes a signal to the call's workflow (workflow id = call id).
 */
async function receive(ctx: AppContext, deps: AppDeps): Promise<void> {
  const expected = Buffer.from(`Bearer ${deps.config.carrierEventsSecret}`);
  const presented = Buffer.from(ctx.get('authorization'));
  if (presented.length !== expected.length || !crypto.timingSafeEqual(presented, expected)) throw new ApiError(401, 'unauthorized', 'Invalid carrier credentials');
  const event = ctx.state.body as CarrierCallEvent & { call_id: string };
  try {
    await deps.temporal.workflow.getHandle(event.call_id).signal(carrierEventSignal, { type: event.type, at: event.at, ended_by: event.ended_by, answered: event.answered });
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') throw new ApiError(404, 'call_not_found', 'No call with this id');
    throw err;
  }
  ctx.body = { received: true };
}

export function carrierEventRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/carrier/events',
      operationId: 'carrierEvent',
      auth: { kind: 'public' },
      doc: {
        summary: 'Internal: call progress from the carrier adapter (shared-secret bearer)',
        tags: ['internal'],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['type', 'call_id', 'at'],
                properties: {
                  type: { type: 'string', enum: ['call.ringing', 'call.answered', 'call.completed', 'call.busy', 'call.no_answer', 'call.failed'] },
                  call_id: { type: 'string', format: 'uuid' },
                  carrier_call_id: { type: 'string' },
                  at: { type: 'integer', minimum: 0 },
                  ended_by: { type: 'string', enum: ['caller', 'switchboard'] },
                  answered: { type: 'boolean' },
                },
              },
            },
          },
        },
        responses: { '200': { description: '`{received: true}`' }, '401': errorResponse('`unauthorized`'), '404': errorResponse('`call_not_found`') },
      },
      handler: receive,
    },
  ];
}
