import { acknowledgePlaybackReports, deferPlaybackReport, pendingPlaybackReports } from './deferredPlayback';
import { carrierEventSignal, type SignalledCallEvent } from '../../../workflows/definitions/calls';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { withinCarrierReach, type CarrierReach } from '../carriers/reach';
import { findCallById, recordOutboundRinging } from './store';

/** No running call workflow has this id (the call is unknown, or over). */
export class CallNotFoundError extends Error {
  constructor(callId: string) {
    super(`no running call ${callId}`);
    this.name = 'CallNotFoundError';
  }
}

/**
 * A carrier's report about a call Switchboard knows (every event but `call.incoming`), whichever
 * carrier or translator it came from: it becomes a signal to the call's workflow (workflow id =
 * call id), except a playback report of a speech the workflow is not waiting on, which is
 * recorded and rides, in order, on the call's next signal (./deferredPlayback.ts). A call of an
 * environment the reporting carrier does not serve is not found (`CarrierReach`).
 */
export async function deliverCarrierCallEvent(
  deps: Pick<LoggedUseCaseDeps, 'db' | 'temporal' | 'log'>,
  callId: string,
  event: SignalledCallEvent,
  reach: CarrierReach,
): Promise<void> {
  const call = await findCallById(deps.db, callId);
  if (!call || !withinCarrierReach(deps.log, reach, call, { call_id: callId, event: event.type })) throw new CallNotFoundError(callId);
  const { type, at, ended_by, answered, answered_by, machine_kind, text, language, speak_id, played_text, done, stopped, recording_url } =
    event;
  // Recorded here rather than by the workflow: the carrier's own time, whether or not the call's run still waits for it.
  if (type === 'call.ringing' && call.direction === 'outbound' && Number.isFinite(at))
    await recordOutboundRinging(deps.db, callId, new Date(at));
  try {
    const signalled: SignalledCallEvent = {
      type,
      at,
      ended_by,
      answered,
      ...(answered_by ? { answered_by } : {}),
      ...(machine_kind ? { machine_kind } : {}),
      text,
      language,
      speak_id,
      played_text,
      done,
      stopped,
      recording_url,
    };
    if (type === 'call.playback' && speak_id && (await deferPlaybackReport(deps.db, callId, speak_id, signalled))) return;
    const pending = await pendingPlaybackReports<SignalledCallEvent>(deps.db, callId);
    if (pending.reports.length > 0) signalled.deferred = pending.reports;
    await deps.temporal.workflow.getHandle(callId).signal(carrierEventSignal, signalled);
    // Forgotten only once carried: a failed signal leaves them for the next one.
    await acknowledgePlaybackReports(deps.db, pending.ids);
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') throw new CallNotFoundError(callId);
    throw err;
  }
}
