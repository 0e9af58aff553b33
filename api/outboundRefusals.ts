import { refuseHold } from './billingErrors';
import { principalOf, type AppContext, type AppDeps } from './context';
import { ApiError, errors } from './errors';
import { lineNotAllowedError } from './lineAccess';
import { OutboundRefusedError, type OutboundActor, type OutboundChannel, type OutboundRefusal } from '../src/domain/outbound/preflight';
import { StartCompensatedError } from '../src/platform/temporal/starts';

/** The words that differ between a call and a message. */
const WORDS: Record<OutboundChannel, { plural: string; notStarted: string }> = {
  call: { plural: 'calls', notStarted: 'The call could not be placed right now; retry shortly' },
  sms: { plural: 'messages', notStarted: 'The message could not be queued right now; retry shortly' },
};

/**
 * 403, as the other compliance refusals (`consent_required`, `conversation_window_expired`): the
 * request is refused by a rule, not malformed. `details` carry `next_open_at` (UTC ISO 8601), the
 * callee `zone` and the `rule` that closed it, as `agent_cap_exceeded` carries `cycle_reset_at`.
 */
function outsideCallingHoursError(refusal: Extract<OutboundRefusal, { code: 'outside_calling_hours' }>): ApiError {
  return new ApiError(
    403,
    'outside_calling_hours',
    `Outside the calling window at the callee's local time (${refusal.zone}); it next opens at ${refusal.nextOpenAt.toISOString()}`,
    [
      { field: 'next_open_at', message: refusal.nextOpenAt.toISOString() },
      { field: 'zone', message: refusal.zone },
      { field: 'rule', message: refusal.rule },
    ],
  );
}

function refusalError(refusal: OutboundRefusal, channel: OutboundChannel, ctx: AppContext, deps: AppDeps, actor: OutboundActor): ApiError {
  switch (refusal.code) {
    case 'invalid_field':
      return errors.validation([{ field: refusal.field, message: refusal.message }]);
    case 'line_not_allowed':
      return lineNotAllowedError(actor, refusal.lineId);
    case 'line_not_found':
      return errors.notFound('Line');
    case 'line_not_active':
      return new ApiError(409, 'line_not_active', `The line is ${refusal.lineStatus}; ${WORDS[channel].plural} need an active line`);
    case 'line_no_webhook':
      return new ApiError(422, 'line_no_webhook', 'This webhook line has no webhook_url');
    case 'number_opted_out':
      return new ApiError(403, 'number_opted_out', 'This number has opted out of calls and messages from this workspace');
    case 'consent_required':
      return new ApiError(403, 'consent_required', 'This line checks consent: record an explicit_outbound consent for the number first');
    case 'conversation_window_expired':
      return new ApiError(
        403,
        'conversation_window_expired',
        'No SMS from this number to the line in the last 24 hours and no active explicit_outbound consent for the pair; record consent first or wait for them to write',
      );
    case 'call_in_progress':
      return new ApiError(409, 'call_in_progress', 'This line already has an active call');
    case 'm3_fraud_block':
      // No details on purpose: the heuristic is not explained to whoever trips it.
      return new ApiError(403, 'm3_fraud_block', 'This destination is blocked');
    case 'outside_calling_hours':
      return outsideCallingHoursError(refusal);
    case 'calling_window_never_opens':
      return new ApiError(
        403,
        'calling_window_never_opens',
        `The workspace's calling_window and the rules at the callee's local time (${refusal.zone}) never overlap: no later retry can place this call; change the calling_window`,
        [
          { field: 'zone', message: refusal.zone },
          { field: 'rule', message: refusal.rule },
        ],
      );
    case 'transfer_zone_not_allowed':
      return new ApiError(
        403,
        'transfer_zone_not_allowed',
        `A call in zone ${refusal.callZone} cannot be transferred to a zone ${refusal.destinationZone} number`,
      );
    case 'transfer_not_supported':
      return new ApiError(409, 'transfer_not_supported', refusal.reason);
    case 'hold_refused':
      return refuseHold(refusal.hold, { deps, tenant: actor, log: ctx.state.log });
  }
}

/**
 * Runs an outbound use case (place a call, send an SMS) and answers its refusals with the
 * spec's codes; a workflow start that failed and was compensated is 503 `service_unavailable`
 * with `Retry-After` (nothing held, nothing sent). `actor` is the request's key unless given (the portal's operator).
 */
export async function answeringOutboundRefusals<T>(
  ctx: AppContext,
  deps: AppDeps,
  channel: OutboundChannel,
  step: () => Promise<T>,
  actor: OutboundActor = principalOf(ctx),
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof OutboundRefusedError) throw refusalError(err.refusal, channel, ctx, deps, actor);
    if (err instanceof StartCompensatedError) {
      // Nothing was held or sent: the answer stored with the record no longer stands.
      await ctx.state.idempotency?.forgetCompleted();
      throw new ApiError(503, 'service_unavailable', WORDS[channel].notStarted, undefined, { 'Retry-After': '1' });
    }
    throw err;
  }
}
