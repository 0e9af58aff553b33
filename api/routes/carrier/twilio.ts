import Router from '@koa/router';
import getRawBody from 'raw-body';
import type { AppContext, AppDeps, AppState } from '../../context';
import { ApiError, errors } from '../../errors';
import {
  amdStatusEvent,
  callStatusEvent,
  inboundMessageEvent,
  isTwilioMessageStatus,
  messageStatusEvent,
  recordingStatusEvent,
  takeTwilioCallback,
  TWILIO_CALLBACK_PATHS,
  twilioCallbackUrl,
  twilioMessageStatus,
} from '../../../src/adapters/carrier/twilio/callbacks';
import { takeCarrierReceipt } from '../../../src/domain/messages/carrierReceipt';
import { takeInboundMessage } from '../../../src/domain/messages/inbound';
import { toE164 } from '../../../src/platform/phone';
import {
  amdStatus,
  callStatus,
  connect,
  dialed,
  notUnderstood,
  recordingStatus,
  transferStatus,
  twiml,
  voice,
  type Handler,
  type Params,
} from './twilioCalls';
import { carrierReachOf } from '../../carrierAuth';

/*
 * Twilio's webhooks (docs/carriers.md, "Carrier: Twilio"): form-encoded POSTs signed with
 * X-Twilio-Signature over the public URL. Each is verified (403 and a log line otherwise, nothing
 * changed), translated into the carrier events of src/adapters/carrier/callbacks/wire.ts and handed to
 * the same use cases as `/carrier/events` and `/carrier/messages`. Voice callbacks answer TwiML
 * (./twilioCalls.ts). A request Twilio sends again is identical to the first, so none is refused for
 * being seen before: TwiML requests are answered every time, and events are taken once by what they
 * report (`takeTwilioCallback`, src/adapters/carrier/twilio/callbacks/), a repeat acknowledged. Internal, like those
 * routes: not in the public OpenAPI document.
 */

const FORM_LIMIT_BYTES = 64 * 1024;

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

interface TwilioRoute {
  path: string;
  handler: Handler;
  /** For event callbacks: what the callback reports, taken once (a repeat gets `repeated`). TwiML requests have none. */
  event?: (params: Params) => string;
  repeated?: (ctx: AppContext) => void;
}

const noContent = (ctx: AppContext) => void (ctx.status = 204);
const emptyTwiml = (ctx: AppContext) => twiml(ctx, '<?xml version="1.0" encoding="UTF-8"?><Response/>');

/** Verification, the once-only taking of events, and the handler; a handler that fails forgets its event so Twilio's retry is taken. */
function verified(route: TwilioRoute) {
  return async (ctx: AppContext, deps: AppDeps) => {
    const params = await readForm(ctx);
    const url = `${twilioCallbackUrl(deps.config.publicBaseUrl, route.path)}${ctx.search}`;
    const signature = ctx.get('x-twilio-signature') || undefined;
    const logged = { path: route.path, callSid: params.CallSid, messageSid: params.MessageSid };
    const taking = await takeTwilioCallback(deps.db, deps.config, { signature, url, params, event: route.event?.(params), at: deps.now() });
    if (taking.outcome === 'refused') {
      ctx.state.log.warn({ reason: taking.reason, ...logged }, 'twilio callback refused');
      throw new ApiError(403, 'forbidden', 'Invalid Twilio signature');
    }
    if (taking.outcome === 'repeated') {
      ctx.state.log.info(logged, 'twilio callback repeated');
      return route.repeated?.(ctx);
    }
    // The callback acts on the environment of the account that signed it only.
    ctx.state.carrierReach = taking.reach;
    try {
      await route.handler(ctx, deps, params);
    } catch (err) {
      await taking.forget();
      throw err;
    }
  };
}

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
  emptyTwiml(ctx);
};

const messageStatus: Handler = async (ctx, deps, params) => {
  ctx.status = 204;
  const status = twilioMessageStatus(params.MessageStatus ?? '');
  const messageId = typeof ctx.query.message_id === 'string' ? ctx.query.message_id : undefined;
  if (!messageId || !isTwilioMessageStatus(params.MessageStatus ?? '')) return notUnderstood(ctx, params);
  // The in-between statuses (`queued`, `sending`, …) report nothing new.
  if (!status) return;
  const receipt = { messageId, status, errorCode: params.ErrorCode || null };
  if (!(await takeCarrierReceipt({ ...deps, log: ctx.state.log }, receipt, carrierReachOf(ctx)))) throw errors.notFound('Message');
};

const ROUTES: TwilioRoute[] = [
  { path: TWILIO_CALLBACK_PATHS.voice, handler: voice },
  { path: TWILIO_CALLBACK_PATHS.connect, handler: connect },
  { path: TWILIO_CALLBACK_PATHS.dialed, handler: dialed },
  { path: TWILIO_CALLBACK_PATHS.transferStatus, handler: transferStatus, event: callStatusEvent, repeated: noContent },
  { path: TWILIO_CALLBACK_PATHS.callStatus, handler: callStatus, event: callStatusEvent, repeated: noContent },
  { path: TWILIO_CALLBACK_PATHS.amdStatus, handler: amdStatus, event: amdStatusEvent, repeated: noContent },
  { path: TWILIO_CALLBACK_PATHS.recordingStatus, handler: recordingStatus, event: recordingStatusEvent, repeated: noContent },
  { path: TWILIO_CALLBACK_PATHS.sms, handler: sms, event: inboundMessageEvent, repeated: emptyTwiml },
  { path: TWILIO_CALLBACK_PATHS.messageStatus, handler: messageStatus, event: messageStatusEvent, repeated: noContent },
];

/** Mounted beside the route table (api/app.ts): Twilio's forms and TwiML answers fit none of its JSON machinery. */
export function twilioCallbackRouter(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  for (const route of ROUTES) {
    const run = verified(route);
    router.post(route.path, (ctx) => run(ctx as unknown as AppContext, deps));
  }
  return router;
}
