import crypto from 'node:crypto';
import type { CallInput } from '../../../workflows/definitions/calls';
import { callerZone, oneMinuteReserveCents } from '../billing/pricing';
import { findActiveLineByNumber, findLine } from '../lines/store';
import { toE164 } from '../../platform/phone';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { withinCarrierReach, type CarrierReach } from '../carriers/reach';
import { ANONYMOUS_CALLER, isActiveCallStatus } from './rules';
import { startCallWorkflow } from './start';
import { callOpening, findCallByCarrierId, insertCall, LineBusyError, type CallRow } from './store';

/** Why a ringing inbound call is declined (the carrier drops it on any refusal). */
export type InboundCallRefusal = 'no_line_for_number' | 'call_in_progress' | 'call_not_active';

export class InboundCallRefusedError extends Error {
  constructor(readonly refusal: InboundCallRefusal) {
    super(`inbound call refused: ${refusal}`);
    this.name = 'InboundCallRefusedError';
  }
}

function refuse(refusal: InboundCallRefusal): never {
  throw new InboundCallRefusedError(refusal);
}

/** A call ringing one of our numbers, as the carrier announced it (`call.incoming`). */
export interface IncomingCall {
  carrierCallId: string;
  from: string;
  to: string;
  /** The environments the announcing carrier serves: a line or call of another one is not its to take. */
  reach: CarrierReach;
}

/**
 * A call to one of our numbers becomes a call (direction inbound, no actor key) on the active
 * line that owns the number, and its workflow answers it. Refused when no active line has the
 * number, when the line is on another call, and for a repeat of a call that has ended. Repeats
 * of the same carrier call are the same call, and its workflow is started on every one (a second
 * start of the id is refused), so a carrier retry after a lost answer still gets the call
 * answered. A start that did not happen leaves no ringing row behind (it would hold the line):
 * the call is failed (`StartCompensatedError`). A line or call of an environment the carrier does not
 * serve is refused like a number no line owns (`CarrierReach`).
 */
export async function answerInboundCall(deps: LoggedUseCaseDeps, incoming: IncomingCall): Promise<CallRow> {
  const to = toE164(incoming.to);
  // Withheld or malformed caller ids are kept as `anonymous`, never stored or forwarded raw.
  const from = toE164(incoming.from) ?? ANONYMOUS_CALLER;
  const about = { carrier_call_id: incoming.carrierCallId };
  const found = to ? await findActiveLineByNumber(deps.db, to) : undefined;
  const line = found && withinCarrierReach(deps.log, incoming.reach, found, { ...about, line_id: found.id }) ? found : undefined;
  let call = await findCallByCarrierId(deps.db, incoming.carrierCallId);
  if (call && !withinCarrierReach(deps.log, incoming.reach, call, { ...about, call_id: call.id })) refuse('no_line_for_number');
  if (!call) {
    if (!line || !to) refuse('no_line_for_number');
    try {
      call = await insertCall(deps.db, {
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
        zone: callerZone(from),
        carrier_call_id: incoming.carrierCallId,
        system_prompt: line.system_prompt,
        begin_message: line.begin_message,
        created_at: deps.now(),
      });
    } catch (err) {
      if (err instanceof LineBusyError) refuse('call_in_progress');
      throw err;
    }
  }
  // A repeat of a call that has ended (its start failed, or it is over): the carrier drops it.
  if (!isActiveCallStatus(call.status)) refuse('call_not_active');
  const tenant = { workspaceId: call.workspace_id, environment: call.environment };
  const owner = line ?? (await findLine(deps.db, tenant, call.line_id))!;
  const input: CallInput = {
    callId: call.id,
    ...tenant,
    lineId: call.line_id,
    keyId: null,
    direction: 'inbound',
    from: call.from_number,
    to: call.to_number,
    mode: call.mode,
    zone: call.zone,
    reservePerMinuteCents: oneMinuteReserveCents(call.mode, call.zone),
    carrierCallId: incoming.carrierCallId,
    ...(await callOpening(deps.db, owner)),
  };
  await startCallWorkflow(deps, input, 'could not start the inbound call workflow');
  deps.log.info({ call_id: call.id, line_id: call.line_id }, 'inbound call');
  return call;
}
