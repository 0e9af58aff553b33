import crypto from 'node:crypto';
import type { AppContext, AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { errorResponse, jsonRequestBody } from '../openapi/schemas';
import type { RouteDef } from './types';
import { oneMinuteReserveCents, zoneOf, type Zone } from '../../src/domain/billing/pricing';
import { carrierEventTimeProblem } from '../../src/adapters/carrier/callbacks/eventTime';
import { ACTIVE_CALL_STATUSES, type CallStatus } from '../../src/domain/calls/rules';
import { callOpening, failUnclaimedCall } from '../../src/domain/calls/store';
import type { LineRow } from '../../src/domain/lines/store';
import { toE164 } from '../../src/platform/phone';
import { startResolvingAmbiguity } from '../../src/platform/temporal/starts';
import { carrierEventSignal, type CallInput, type CarrierCallEvent } from '../../workflows/definitions/calls';

/**
 * Where the carrier reports call progress (the simulator, or a Twilio/Telnyx adapter's webhook
 * translator). Signed by the carrier (route auth `carrier`, api/carrierAuth.ts), checked before
 * the body is validated; each event becomes a signal to the call's workflow (workflow id = call id).
 */
interface IncomingCall {
  type: 'call.incoming';
  carrier_call_id: string;
  from: string;
  to: string;
  at: number;
}

/** What a caller id that is not a phone number (withheld, `anonymous`, garbage) is recorded as. */
export const ANONYMOUS_CALLER = 'anonymous';

/**
 * A call to one of our numbers: becomes a call (direction inbound, no actor key) on the line
 * that owns the number, and its workflow answers it. 404 when no active line has the number;
 * 409 `call_in_progress` when the line is busy. Repeats of the same carrier call are the same call.
 */
async function incoming(ctx: AppContext, deps: AppDeps, event: IncomingCall): Promise<void> {
  const to = toE164(event.to);
  // Withheld or malformed caller ids are kept as `anonymous`, never stored or forwarded raw.
  const from = toE164(event.from) ?? ANONYMOUS_CALLER;
  const line = to ? await deps.db<LineRow>('lines').where({ phone_number: to, status: 'active' }).first() : undefined;
  let call = await deps.db('calls').where({ carrier_call_id: event.carrier_call_id }).first();
  if (!call) {
    if (!line) throw errors.notFound('Line for this number');
    let zone: Zone;
    try {
      zone = zoneOf(from);
    } catch {
      zone = 'C'; // withheld or malformed caller ids are billed at the highest rate
    }
    try {
      [call] = await deps
        .db('calls')
        .insert({
          id: crypto.randomUUID(),
          workspace_id: line.workspace_id,
          environment: line.environment,
          line_id: line.id,
          actor_key_id: null,
          direction: 'inbound',
          from_number: from,
          to_number: to,
          status: 'ringing',
          mode: line.mode,
          zone,
          carrier_call_id: event.carrier_call_id,
          system_prompt: line.system_prompt,
          begin_message: line.begin_message,
          created_at: deps.now(),
        })
        .returning('*');
    } catch (err) {
      if ((err as { constraint?: string }).constraint === 'calls_one_active_per_line') throw new ApiError(409, 'call_in_progress', 'The line is on another call');
      throw err;
    }
  }
  // A repeat of a call that has ended (its start failed, or it is over): the carrier drops it.
  if (!ACTIVE_CALL_STATUSES.includes(call.status as CallStatus)) throw new ApiError(409, 'call_not_active', 'This call has ended');
  const owner = line ?? (await deps.db<LineRow>('lines').where({ id: call.line_id }).first())!;
  const input: CallInput = {
    callId: call.id,
    workspaceId: call.workspace_id,
    environment: call.environment,
    lineId: call.line_id,
    keyId: null,
    direction: 'inbound',
    from: call.from_number,
    to: call.to_number,
    mode: call.mode,
    zone: call.zone,
    reservePerMinuteCents: oneMinuteReserveCents(call.mode, call.zone),
    carrierCallId: event.carrier_call_id,
    ...(await callOpening(deps.db, owner)),
  };
  // Started on every delivery of the event (a second start of the id is refused), so a carrier
  // retry after a lost answer still gets the call answered. A start that did not happen leaves
  // no ringing row behind (it would hold the line): the call is failed and the carrier told so.
  const started = await startResolvingAmbiguity(deps.temporal, 'callWorkflow', { taskQueue: deps.config.taskQueue, workflowId: call.id, args: [input] });
  if (started !== 'started') {
    ctx.state.log.error({ call_id: call.id, start: started }, 'could not start the inbound call workflow');
    if (await failUnclaimedCall(deps.db, { callId: call.id, tenant: { workspaceId: call.workspace_id, environment: call.environment }, endCause: 'service_error', at: deps.now() })) {
      throw new ApiError(503, 'service_unavailable', 'The call cannot be taken right now', undefined, { 'Retry-After': '1' });
    }
  }
  ctx.state.log.info({ call_id: call.id, line_id: call.line_id }, 'inbound call');
  // The internal call id stays internal: the carrier learns it only when the call is answered.
  ctx.body = { received: true };
}

async function receive(ctx: AppContext, deps: AppDeps): Promise<void> {
  const atProblem = carrierEventTimeProblem((ctx.state.body as { at: number }).at, Date.now());
  if (atProblem) throw errors.validation([{ field: 'at', message: atProblem }]);
  if ((ctx.state.body as { type: string }).type === 'call.incoming') return incoming(ctx, deps, ctx.state.body as IncomingCall);
  const event = ctx.state.body as CarrierCallEvent & { call_id?: string };
  if (!event.call_id) throw errors.validation([{ field: 'call_id', message: 'Required for this event type' }]);
  try {
    const { type, at, ended_by, answered, text, language, speak_id, played_text, done, stopped, recording_url } = event;
    await deps.temporal.workflow.getHandle(event.call_id).signal(carrierEventSignal, { type, at, ended_by, answered, text, language, speak_id, played_text, done, stopped, recording_url });
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
      // Utterances and played text of up to 30000 characters.
      bodyLimitBytes: 256 * 1024,
      auth: { kind: 'carrier' },
      doc: {
        summary: 'Internal: call progress from the carrier adapter (signed with CARRIER_WEBHOOK_SECRET)',
        tags: ['internal'],
        requestBody: jsonRequestBody({
          type: 'object',
          required: ['type', 'at'],
          properties: {
            type: { type: 'string', enum: ['call.incoming', 'call.ringing', 'call.answered', 'call.completed', 'call.busy', 'call.no_answer', 'call.failed', 'call.utterance', 'call.playback'] },
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
            ended_by: { type: 'string', enum: ['caller', 'switchboard'] },
            answered: { type: 'boolean' },
          },
        }),
        responses: {
          '200': { description: '`{received: true}`' },
          '401': errorResponse('`unauthorized`: missing, wrong, stale or replayed signature'),
          '404': errorResponse('`call_not_found`'),
          '422': errorResponse('`validation_error`, including an `at` more than an hour in the past or five minutes in the future'),
          '409': errorResponse('`call_in_progress` (the line is on a call) or `call_not_active` (a repeated `call.incoming` for a call that has ended)'),
          '503': errorResponse('`service_unavailable`: the call could not be taken (the carrier declines it)'),
        },
      },
      handler: receive,
    },
  ];
}
