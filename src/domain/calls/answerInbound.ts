import crypto from 'node:crypto';
import type { CallInput } from '../../../workflows/definitions/calls';
import { callerZone, oneMinuteReserveCents } from '../billing/pricing';
import { findActiveLineByNumber, findLine } from '../lines/store';
import { toE164 } from '../../platform/phone';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { withinCarrierReach, type CarrierReach } from '../carriers/reach';
import { ANONYMOUS_CALLER, isActiveCallStatus } from './rules';
import { startCallWorkflow } from './start';
import { makeFirstAttempt, publishDepsOf } from '../webhooks/publish';
import { recordCallEvent } from './events';
import { toolsColumn } from '../tools/store';
import { activeCallOfLine, callOpening, findCallByCarrierId, insertCall, LineBusyError, type CallRow, type NewCall } from './store';

/**
 * How long a ringing call waits for its line's previous call to finish ending: the caller who hangs
 * up and calls straight back rings while that call is still being settled (a few hundred ms).
 */
export const LINE_FREE_GRACE_MS = 3_000;
const LINE_FREE_POLL_MS = 100;

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
    const ringing: NewCall = {
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
      tools: toolsColumn(line.tools),
      created_at: deps.now(),
    };
    call = await insertRingingCall(deps, ringing);
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

/**
 * Records the ringing call. A line on another call gets the grace of `LINE_FREE_GRACE_MS` for that
 * call to finish ending; a line still busy after it refuses the call (`call_in_progress`), which is
 * first recorded as missed (status `busy`, `end_cause: line_busy`) and told as `call_missed`, so
 * the agent and the operator see it: a refused call never vanishes.
 */
async function insertRingingCall(deps: LoggedUseCaseDeps, ringing: NewCall): Promise<CallRow> {
  const deadline = Date.now() + LINE_FREE_GRACE_MS;
  for (;;) {
    try {
      return await insertCall(deps.db, ringing);
    } catch (err) {
      if (!(err instanceof LineBusyError)) throw err;
    }
    const activeCallId = await activeCallOfLine(deps.db, ringing.line_id);
    if (activeCallId && Date.now() >= deadline) return recordMissedCall(deps, ringing, activeCallId);
    // The line's call is ending (or ended between the insert and the look): try again shortly.
    await new Promise((resolve) => setTimeout(resolve, LINE_FREE_POLL_MS));
  }
}

async function recordMissedCall(deps: LoggedUseCaseDeps, ringing: NewCall, activeCallId: string): Promise<never> {
  const at = deps.now();
  await insertCall(deps.db, { ...ringing, status: 'busy', end_cause: 'line_busy', ended_at: at, duration_sec: 0, charge_cents: '0' });
  const source = {
    callId: ringing.id,
    workspaceId: ringing.workspace_id,
    environment: ringing.environment,
    lineId: ringing.line_id,
    keyId: null,
  };
  const payload = { from_number: ringing.from_number, to_number: ringing.to_number, reason: 'line_busy', active_call_id: activeCallId };
  const eventId = await recordCallEvent(deps, source, 'call_missed', payload);
  // Attempted off the carrier's answer, as an inbound SMS's event is; the sweeper takes over one that never settles.
  if (eventId)
    makeFirstAttempt(publishDepsOf(deps), eventId).catch((err: unknown) =>
      deps.log.warn({ err, event_id: eventId }, 'first webhook attempt not settled; the sweeper takes it over'),
    );
  deps.log.warn(
    { call_id: ringing.id, line_id: ringing.line_id, active_call_id: activeCallId },
    'inbound call missed: the line is on a call',
  );
  refuse('call_in_progress');
}
