import type { AppContext, AppDeps } from '../../context';
import {
  acceptTwilioEventOnce,
  audioHoldTwiml,
  dropRelayCommands,
  forgetTwilioEvent,
  hangUpTwiml,
  holdTwiml,
  isTwilioCallStatus,
  issueRelayToken,
  recordTransferReached,
  rejectTwiml,
  relayTwiml,
  resumeTwiml,
  transferOutcomeEvent,
  transferWasAnswered,
  twilioAnsweredBy,
  twilioCallEventType,
  twilioGreetingEnded,
  twilioMachineKind,
} from '../../../src/adapters/carrier/twilio/callbacks';
import { answerInboundCall, InboundCallRefusedError } from '../../../src/domain/calls/answerInbound';
import { CallNotFoundError, deliverCarrierCallEvent } from '../../../src/domain/calls/carrierEvent';
import { isActiveCallStatus } from '../../../src/domain/calls/rules';
import { findCallByCarrierId, findCallById, recordLateRecording, type CallRow } from '../../../src/domain/calls/store';
import { wantCopyOfLateRecording } from '../../../src/domain/recordings/start';
import { findLineById } from '../../../src/domain/lines/store';
import { withinCarrierReach, type CarrierReach } from '../../../src/domain/carriers/reach';
import { StartCompensatedError } from '../../../src/platform/temporal/starts';
import { carrierReachOf } from '../../carrierAuth';
import type { SignalledCallEvent } from '../../../workflows/definitions/calls';

/*
 * Twilio's voice callbacks (docs/carriers.md, "Carrier: Twilio"), verified and deduplicated by
 * ./twilio.ts. The TwiML ones (`voice`, `connect`, `dialed`) are fetched again with identical
 * parameters whenever Twilio runs the same URL again (a `<Redirect>`, the audio hold's `<Pause>` loop,
 * a repeated Calls update), so each answers from the call's state and changes nothing a second
 * time: a request for no live call of that CallSid (ended, unknown, or another call's) is stale,
 * delivers nothing and is answered `<Hangup/>`.
 */

export type Params = Record<string, string>;
export type Handler = (ctx: AppContext, deps: AppDeps, params: Params) => Promise<void>;

export function twiml(ctx: AppContext, document: string): void {
  ctx.type = 'text/xml';
  ctx.body = document;
}

/** A call event, to a call of an environment in `reach` (the verified account's) only. */
export async function deliver(deps: AppDeps, callId: string, event: Omit<SignalledCallEvent, 'at'>, reach: CarrierReach): Promise<boolean> {
  try {
    await deliverCarrierCallEvent(
      { ...deps, log: deps.logger },
      callId,
      { ...event, at: deps.now().getTime() } as SignalledCallEvent,
      reach,
    );
    return true;
  } catch (err) {
    if (err instanceof CallNotFoundError) return false;
    throw err;
  }
}

const queryValue = (ctx: AppContext, name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string) : undefined);

/**
 * The call a callback is about: `call_id` in our URL, else the call recorded with Twilio's CallSid; a call
 * of an environment the signing account does not serve is none (logged).
 */
async function callOf(ctx: AppContext, deps: AppDeps, params: Params): Promise<CallRow | undefined> {
  const callId = queryValue(ctx, 'call_id');
  const call = callId
    ? await findCallById(deps.db, callId)
    : params.CallSid
      ? await findCallByCarrierId(deps.db, params.CallSid)
      : undefined;
  if (!call) return undefined;
  return withinCarrierReach(ctx.state.log, carrierReachOf(ctx), call, { call_id: call.id, path: ctx.path }) ? call : undefined;
}

/** A callback whose CallSid is not the call's (one Twilio knows as another call, e.g. a stray duplicate). */
const anotherCall = (call: CallRow, params: Params) => call.carrier_call_id !== null && call.carrier_call_id !== params.CallSid;

/** The live call a TwiML request is about, or why there is none. */
async function liveCallOf(ctx: AppContext, deps: AppDeps, params: Params): Promise<CallRow | string> {
  const call = await callOf(ctx, deps, params);
  if (!call) return 'unknown_call';
  if (anotherCall(call, params)) return 'another_call';
  return isActiveCallStatus(call.status) ? call : 'call_ended';
}

/**
 * A callback Switchboard does not understand (a status Twilio does not document, or our URL without the ids we
 * gave it): acknowledged, changes nothing, and logged with what it carried (parameter names, not values: they
 * hold phone numbers and texts).
 */
export function notUnderstood(ctx: AppContext, params: Params): void {
  ctx.state.log.warn(
    {
      path: ctx.path,
      query: ctx.querystring,
      callSid: params.CallSid,
      messageSid: params.MessageSid,
      status: params.CallStatus ?? params.MessageStatus,
      parameters: Object.keys(params).sort(),
    },
    'twilio callback not understood',
  );
}

function answerStale(ctx: AppContext, reason: string, params: Params): void {
  ctx.state.log.info({ reason, path: ctx.path, callSid: params.CallSid }, 'twilio request for no live call answered with a hang-up');
  twiml(ctx, hangUpTwiml());
}

/** An inbound call rings: the line's call starts (its workflow answers through `answerCall`); refused calls are rejected. */
export const voice: Handler = async (ctx, deps, params) => {
  try {
    await answerInboundCall(
      { ...deps, log: ctx.state.log },
      { carrierCallId: params.CallSid, from: params.From, to: params.To, reach: carrierReachOf(ctx) },
    );
  } catch (err) {
    if (!(err instanceof InboundCallRefusedError) && !(err instanceof StartCompensatedError)) throw err;
    ctx.state.log.info({ callSid: params.CallSid, reason: err.message }, 'twilio inbound call rejected');
    return twiml(ctx, rejectTwiml());
  }
  twiml(ctx, holdTwiml());
};

/**
 * The call runs our TwiML: it is answered (unless this is a `resume`: a ConversationRelay session
 * reopening, a failed transfer handing back, an audio call still waiting), and runs ConversationRelay
 * in the line's voice and language, or, on an audio line, waits for the worker's Media Streams.
 */
export const connect: Handler = async (ctx, deps, params) => {
  const call = await liveCallOf(ctx, deps, params);
  if (typeof call === 'string') return answerStale(ctx, call, params);
  // The relay URL is bound to the CallSid that asked for it: a request naming none gets no session.
  if (!params.CallSid) return answerStale(ctx, 'no_call_sid', params);
  // With synchronous machine detection Twilio fetches this once detection ended, with `AnsweredBy` (asynchronous: at the
  // answer, without; the verdict comes to `amdStatus`); a repeat of the answer is one answer.
  const answeredBy = params.AnsweredBy ? { answered_by: twilioAnsweredBy(params.AnsweredBy), ...twilioMachineKind(params.AnsweredBy) } : {};
  if (queryValue(ctx, 'resume') !== '1') await deliver(deps, call.id, { type: 'call.answered', ...answeredBy }, carrierReachOf(ctx));
  if (call.mode === 'audio') return twiml(ctx, audioHoldTwiml(deps.config.publicBaseUrl, call.id));
  const line = await findLineById(deps.db, call.line_id);
  // The socket URL opens once, for this call of Twilio's, in its environment (security review L13).
  const relayToken = await issueRelayToken(
    deps.db,
    { callId: call.id, callSid: params.CallSid, environment: call.environment },
    deps.now(),
  );
  const session = { callId: call.id, relayToken, voiceSlug: line?.voice ?? undefined, lineLanguage: line?.language };
  twiml(ctx, relayTwiml(deps.config.publicBaseUrl, session));
};

/** A transfer's outcome reaches the call once, whichever of its callbacks reports it, however often. */
async function deliverTransferOutcome(
  deps: AppDeps,
  callId: string,
  transferId: string | undefined,
  answered: boolean,
  reach: CarrierReach,
): Promise<void> {
  const event = transferId ? transferOutcomeEvent(transferId) : undefined;
  if (event && !(await acceptTwilioEventOnce(deps.db, event, deps.now()))) return;
  try {
    await deliver(deps, callId, { type: 'call.transfer', answered }, reach);
  } catch (err) {
    if (event) await forgetTwilioEvent(deps.db, event);
    throw err;
  }
}

/** A transfer's destination answered (its `<Number>` status callback, about the new leg, whose parent is the call). */
export const transferStatus: Handler = async (ctx, deps, params) => {
  ctx.status = 204;
  const callId = queryValue(ctx, 'call_id');
  const transferId = queryValue(ctx, 'transfer_id');
  if (transferId && params.ParentCallSid) await recordTransferReached(deps.db, transferId, params.ParentCallSid);
  if (!callId || !isTwilioCallStatus(params.CallStatus ?? '')) return notUnderstood(ctx, params);
  // The `<Number>` asks for `answered` only; another documented status reports nothing about the transfer.
  if (params.CallStatus === 'in-progress') await deliverTransferOutcome(deps, callId, transferId, true, carrierReachOf(ctx));
};

/**
 * A transfer's `<Dial>` ended. Answered before: the destination hung up, so the call ends. Never
 * answered: the transfer failed and the call goes back to `connect` (its session reopens), back with
 * Switchboard. That `<Redirect>` is the same URL after every failed transfer of the call.
 */
export const dialed: Handler = async (ctx, deps, params) => {
  const call = await liveCallOf(ctx, deps, params);
  if (typeof call === 'string') return answerStale(ctx, call, params);
  const transferId = queryValue(ctx, 'transfer_id');
  if (transferId) await recordTransferReached(deps.db, transferId, params.CallSid);
  if (transferWasAnswered(params.DialCallStatus)) return twiml(ctx, hangUpTwiml());
  await deliverTransferOutcome(deps, call.id, transferId, false, carrierReachOf(ctx));
  twiml(ctx, resumeTwiml(deps.config.publicBaseUrl, call.id));
};

export const callStatus: Handler = async (ctx, deps, params) => {
  ctx.status = 204;
  // A call we declined ends without events.
  if (queryValue(ctx, 'rejected') === '1') return;
  const type = twilioCallEventType(params.CallStatus ?? '');
  if (!type) {
    // `queued`, `initiated` and `in-progress` report nothing new; a status Twilio does not document is logged.
    if (!isTwilioCallStatus(params.CallStatus ?? '')) notUnderstood(ctx, params);
    return;
  }
  const call = await callOf(ctx, deps, params);
  if (!call || anotherCall(call, params))
    return void ctx.state.log.info({ callSid: params.CallSid, status: params.CallStatus }, 'twilio status for no call of ours');
  // Over: nothing waiting will be said.
  if (type !== 'call.ringing') await dropRelayCommands(deps.db, params.CallSid);
  // An outbound call's recording comes with its final status; an inbound one's may have been reported already (`recordingStatus`).
  const recordingUrl = params.RecordingUrl || call.recording_url;
  const event: Omit<SignalledCallEvent, 'at'> =
    type === 'call.completed'
      ? {
          type,
          ended_by: queryValue(ctx, 'ended_by') === 'switchboard' || params.CallStatus === 'canceled' ? 'switchboard' : 'caller',
          answered: params.CallStatus === 'completed',
          ...(recordingUrl ? { recording_url: recordingUrl } : {}),
        }
      : { type };
  await deliver(deps, call.id, event, carrierReachOf(ctx));
};

/**
 * The verdict of a call placed with end-of-greeting detection (DetectMessageEnd, AsyncAmd; taken once per call by
 * ./twilio.ts): who answered, and for a machine, whose verdict Twilio gives only once its greeting ended
 * (`machine_end_*`), that end. The answer came before, when the call fetched `connect`.
 */
export const amdStatus: Handler = async (ctx, deps, params) => {
  ctx.status = 204;
  if (!params.AnsweredBy) return notUnderstood(ctx, params);
  const call = await callOf(ctx, deps, params);
  if (!call || anotherCall(call, params))
    return void ctx.state.log.info(
      { callSid: params.CallSid, answeredBy: params.AnsweredBy },
      'twilio machine detection for no call of ours',
    );
  ctx.state.log.info(
    { call_id: call.id, answeredBy: params.AnsweredBy, detectionMs: params.MachineDetectionDuration },
    'twilio machine detection',
  );
  const reach = carrierReachOf(ctx);
  const detection = { answered_by: twilioAnsweredBy(params.AnsweredBy), ...twilioMachineKind(params.AnsweredBy) };
  await deliver(deps, call.id, { type: 'call.machine_detection', ...detection }, reach);
  if (twilioGreetingEnded(params.AnsweredBy)) await deliver(deps, call.id, { type: 'call.greeting_ended' }, reach);
};

/**
 * A recording started through `Calls/{sid}/Recordings` (an answered inbound call) reports only to its
 * `recordingStatusCallback`, usually after the call's final status: `completed` keeps its `RecordingUrl`
 * as the call's `recording_url` (never over one it has, and only on the call of that CallSid).
 */
export const recordingStatus: Handler = async (ctx, deps, params) => {
  ctx.status = 204;
  const call = await callOf(ctx, deps, params);
  if (!call || params.RecordingStatus !== 'completed' || !params.RecordingUrl) {
    ctx.state.log.info(
      { callSid: params.CallSid, status: params.RecordingStatus, errorCode: params.ErrorCode },
      'twilio recording not kept',
    );
    return;
  }
  const kept = await recordLateRecording(deps.db, { id: call.id, carrierCallId: params.CallSid }, params.RecordingUrl);
  ctx.state.log.info({ call_id: call.id, recordingSid: params.RecordingSid, kept }, 'twilio recording saved');
  if (kept) await wantCopyOfLateRecording({ ...deps, log: ctx.state.log }, call.id);
};
