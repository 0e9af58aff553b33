import Router from '@koa/router';
import getRawBody from 'raw-body';
import type { AppContext, AppDeps, AppState } from '../../context';
import { ApiError, errors } from '../../errors';
import { TWILIO_CALLBACK_PATHS, twilioCallbackUrl } from '../../../src/adapters/carrier/twilio/callbacks/paths';
import { acceptTwilioCallbackOnce, forgetTwilioCallback, twilioReplayKey } from '../../../src/adapters/carrier/twilio/callbacks/replay';
import { twilioCallEventType, twilioMessageStatus } from '../../../src/adapters/carrier/twilio/callbacks/translate';
import { dropRelayCommands } from '../../../src/adapters/carrier/twilio/callbacks/relayCommands';
import { audioHoldTwiml, holdTwiml, rejectTwiml, relayTwiml } from '../../../src/adapters/carrier/twilio/callbacks/twiml';
import { verifyTwilioCallback } from '../../../src/adapters/carrier/twilio/callbacks/verify';
import { hangUpTwiml, resumeTwiml, transferWasAnswered, twilioAnsweredBy } from '../../../src/adapters/carrier/twilio/callbacks/transfer';
import { answerInboundCall, InboundCallRefusedError } from '../../../src/domain/calls/answerInbound';
import { CallNotFoundError, deliverCarrierCallEvent } from '../../../src/domain/calls/carrierEvent';
import { findCallByCarrierId, findCallById } from '../../../src/domain/calls/store';
import { findLineById } from '../../../src/domain/lines/store';
import { takeCarrierReceipt } from '../../../src/domain/messages/carrierReceipt';
import { takeInboundMessage } from '../../../src/domain/messages/inbound';
import { toE164 } from '../../../src/platform/phone';
import { StartCompensatedError } from '../../../src/platform/temporal/starts';
import type { SignalledCallEvent } from '../../../workflows/definitions/calls';
import type { CarrierReach } from '../../../src/domain/carriers/reach';
import { environmentsOfTwilioAccount } from '../../../src/platform/config';
import { carrierReachOf } from '../../carrierAuth';

/*
 * Twilio's webhooks (docs/carriers.md, "Carrier: Twilio"): form-encoded POSTs signed with
 * X-Twilio-Signature over the public URL. Each is verified (403 and a log line otherwise, nothing
 * changed), accepted once (src/adapters/carrier/twilio/callbacks/replay.ts), translated into the
 * carrier events of src/adapters/carrier/callbacks/wire.ts and handed to the same use cases as
 * `/carrier/events` and `/carrier/messages`. Voice callbacks answer TwiML. Internal, like those
 * routes: not in the public OpenAPI document.
 */

const FORM_LIMIT_BYTES = 64 * 1024;

type Params = Record<string, string>;
type Handler = (ctx: AppContext, deps: AppDeps, params: Params) => Promise<void>;

async function readForm(ctx: AppContext): Promise<Params> {
  if (ctx.request.type !== 'application/x-www-form-urlencoded') throw new ApiError(415, 'unsupported_media_type', 'Twilio posts forms');
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, { limit: FORM_LIMIT_BYTES, length: ctx.get('content-length') || undefined });
  } catch {
    throw new ApiError(413, 'payload_too_large', `Request body exceeds ${FORM_LIMIT_BYTES} bytes`);
  }
  return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
}

/** Verification, replay protection and the handler; a handler that fails forgets the callback so Twilio's retry is taken. */
function verified(path: string, handler: Handler) {
  return async (ctx: AppContext, deps: AppDeps) => {
    const params = await readForm(ctx);
    const url = `${twilioCallbackUrl(deps.config.publicBaseUrl, path)}${ctx.search}`;
    const signature = ctx.get('x-twilio-signature') || undefined;
    const accounts = [deps.config.twilio.test, deps.config.twilio.live].filter((account) => account !== undefined);
    const refuse = (reason: string) => {
      ctx.state.log.warn({ reason, path, callSid: params.CallSid, messageSid: params.MessageSid }, 'twilio callback refused');
      return new ApiError(403, 'forbidden', 'Invalid Twilio signature');
    };
    const verdict = verifyTwilioCallback({ accounts, signature, url, params });
    if (!verdict.valid) throw refuse(verdict.reason);
    // The callback acts on the environment of the account that signed it only.
    ctx.state.carrierReach = environmentsOfTwilioAccount(deps.config, verdict.account.accountSid);
    const key = twilioReplayKey(signature!, params);
    if (!(await acceptTwilioCallbackOnce(deps.db, key, new Date()))) throw refuse('replayed_callback');
    try {
      await handler(ctx, deps, params);
    } catch (err) {
      await forgetTwilioCallback(deps.db, key);
      throw err;
    }
  };
}

function twiml(ctx: AppContext, document: string): void {
  ctx.type = 'text/xml';
  ctx.body = document;
}

/** The call a callback is about: `call_id` in our URL, else the call recorded with Twilio's CallSid. */
async function callIdOf(ctx: AppContext, deps: AppDeps, params: Params): Promise<string | undefined> {
  const fromUrl = typeof ctx.query.call_id === 'string' ? ctx.query.call_id : undefined;
  if (fromUrl) return fromUrl;
  return params.CallSid ? (await findCallByCarrierId(deps.db, params.CallSid))?.id : undefined;
}

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

/** An inbound call rings: the line's call starts (its workflow answers through `answerCall`); refused calls are rejected. */
const voice: Handler = async (ctx, deps, params) => {
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
 * reopening, an audio call still waiting), and runs ConversationRelay in the line's voice, or, on an
 * audio line, waits for the worker's Media Streams.
 */
const connect: Handler = async (ctx, deps, params) => {
  const callId = await callIdOf(ctx, deps, params);
  // With machine detection Twilio fetches this once detection ended, with `AnsweredBy`.
  const answeredBy = params.AnsweredBy ? { answered_by: twilioAnsweredBy(params.AnsweredBy) } : {};
  if (ctx.query.resume !== '1' && callId) await deliver(deps, callId, { type: 'call.answered', ...answeredBy }, carrierReachOf(ctx));
  const call = callId ? await findCallById(deps.db, callId) : undefined;
  if (call?.mode === 'audio') return twiml(ctx, audioHoldTwiml(deps.config.publicBaseUrl, callId));
  const line = call ? await findLineById(deps.db, call.line_id) : undefined;
  twiml(ctx, relayTwiml(deps.config.publicBaseUrl, { callId, voiceSlug: line?.voice ?? undefined }));
};

/** A transfer's destination answered (its `<Number>` status callback, about the new leg). */
const transferStatus: Handler = async (ctx, deps, params) => {
  ctx.status = 204;
  const callId = typeof ctx.query.call_id === 'string' ? ctx.query.call_id : undefined;
  if (callId && params.CallStatus === 'in-progress')
    await deliver(deps, callId, { type: 'call.transfer', answered: true }, carrierReachOf(ctx));
};

/**
 * A transfer's `<Dial>` ended. Answered before: the destination hung up, so the call ends. Never
 * answered: the transfer failed and the call goes back to `connect` (its session reopens), back with Switchboard.
 */
const dialed: Handler = async (ctx, deps, params) => {
  const callId = await callIdOf(ctx, deps, params);
  if (transferWasAnswered(params.DialCallStatus)) return twiml(ctx, hangUpTwiml());
  if (callId) await deliver(deps, callId, { type: 'call.transfer', answered: false }, carrierReachOf(ctx));
  twiml(ctx, resumeTwiml(deps.config.publicBaseUrl, callId));
};

const callStatus: Handler = async (ctx, deps, params) => {
  ctx.status = 204;
  const type = twilioCallEventType(params.CallStatus ?? '');
  // A call we declined ends without events.
  if (!type || ctx.query.rejected === '1') return;
  // Over: nothing waiting will be said.
  if (type !== 'call.ringing') await dropRelayCommands(deps.db, params.CallSid);
  const callId = await callIdOf(ctx, deps, params);
  if (!callId) return void ctx.state.log.info({ callSid: params.CallSid, status: params.CallStatus }, 'twilio status for an unknown call');
  const event: Omit<SignalledCallEvent, 'at'> =
    type === 'call.completed'
      ? {
          type,
          ended_by: ctx.query.ended_by === 'switchboard' || params.CallStatus === 'canceled' ? 'switchboard' : 'caller',
          answered: params.CallStatus === 'completed',
          ...(params.RecordingUrl ? { recording_url: params.RecordingUrl } : {}),
        }
      : { type };
  await deliver(deps, callId, event, carrierReachOf(ctx));
};

/** An inbound SMS: the same use case as `/carrier/messages` (STOP and HELP handled there); answered with empty TwiML. */
const sms: Handler = async (ctx, deps, params) => {
  const from = toE164(params.From ?? '');
  if (!from) throw errors.validation([{ field: 'From', message: 'Must be a phone number' }]);
  const message = {
    carrierMessageId: params.MessageSid,
    from,
    to: toE164(params.To ?? ''),
    text: params.Body ?? '',
    reach: carrierReachOf(ctx),
  };
  const outcome = await takeInboundMessage({ ...deps, log: ctx.state.log }, message);
  if (!outcome) throw errors.notFound('Line for this number');
  twiml(ctx, '<?xml version="1.0" encoding="UTF-8"?><Response/>');
};

const messageStatus: Handler = async (ctx, deps, params) => {
  ctx.status = 204;
  const status = twilioMessageStatus(params.MessageStatus ?? '');
  const messageId = typeof ctx.query.message_id === 'string' ? ctx.query.message_id : undefined;
  if (!status || !messageId) return;
  const receipt = { messageId, status, errorCode: params.ErrorCode || null };
  if (!(await takeCarrierReceipt({ ...deps, log: ctx.state.log }, receipt, carrierReachOf(ctx)))) throw errors.notFound('Message');
};

const ROUTES: Array<[string, Handler]> = [
  [TWILIO_CALLBACK_PATHS.voice, voice],
  [TWILIO_CALLBACK_PATHS.connect, connect],
  [TWILIO_CALLBACK_PATHS.transferStatus, transferStatus],
  [TWILIO_CALLBACK_PATHS.dialed, dialed],
  [TWILIO_CALLBACK_PATHS.callStatus, callStatus],
  [TWILIO_CALLBACK_PATHS.sms, sms],
  [TWILIO_CALLBACK_PATHS.messageStatus, messageStatus],
];

/** Mounted beside the route table (api/app.ts): Twilio's forms and TwiML answers fit none of its JSON machinery. */
export function twilioCallbackRouter(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  for (const [path, handler] of ROUTES) {
    const run = verified(path, handler);
    router.post(path, (ctx) => run(ctx as unknown as AppContext, deps));
  }
  return router;
}
