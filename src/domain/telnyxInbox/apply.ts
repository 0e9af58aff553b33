import {
  translateTelnyxEvent,
  type TelnyxCallControl,
  type TelnyxLookups,
  type TelnyxRecordingRef,
  type TelnyxTranslation,
} from '../../adapters/carrier/callbacks/telnyx/webhook';
import type { CarrierCallEvent, CarrierMessageEvent } from '../../adapters/carrier/callbacks/wire';
import { environmentsOnCarrier } from '../../platform/config';
import { toE164 } from '../../platform/phone';
import { StartCompensatedError } from '../../platform/temporal/starts';
import { answerInboundCall, InboundCallRefusedError } from '../calls/answerInbound';
import { CallNotFoundError, deliverCarrierCallEvent } from '../calls/carrierEvent';
import { findCallByCarrierId, findCallById, recordLateRecording } from '../calls/store';
import { withinCarrierReach, type CarrierReach } from '../carriers/reach';
import { wantCopyOfLateRecording } from '../recordings/start';
import { takeCarrierReceipt } from '../messages/carrierReceipt';
import { takeInboundMessage } from '../messages/inbound';
import { findMessageIdByCarrierId } from '../messages/store';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { callControlIdOfLeg, saveTranslation, type InboxRow } from './store';

/** What processing a Telnyx event needs of Telnyx itself (src/main builds it with the account's API key). */
export interface TelnyxInboxPorts {
  /** Rejects a ringing inbound call Switchboard cannot take (Telnyx would not decline it on a refused webhook). */
  declineCall(carrierCallId: string): Promise<void>;
  /** The recording Telnyx's Recordings API lists for a call leg. */
  recordingOfLeg(callLegId: string, startedAt?: string): Promise<TelnyxRecordingRef | undefined>;
  /** The call state shared with the worker's adapter (speech queue, languages, dial records), which call events advance. */
  calls: TelnyxCallControl;
}

export type TelnyxInboxDeps = LoggedUseCaseDeps & { telnyx: TelnyxInboxPorts };

/**
 * What became of an event: processed (`outcome` as stored: `done`, `ignored`, `unhandled`, `declined`,
 * `no_call`, …) or not yet (`waiting`: tried again later). A failure throws and is retried the same way.
 */
export type ApplyResult = { processed: true; outcome: string; reason?: string } | { processed: false; reason: string };

const done = (outcome: string, reason?: string): ApplyResult => ({ processed: true, outcome, ...(reason ? { reason } : {}) });

/**
 * One stored Telnyx event, translated (src/adapters/carrier/callbacks/telnyx/webhook.ts) and handed to the use case
 * the simulator's callbacks reach (`/carrier/events`, `/carrier/messages`), for the environments Telnyx serves.
 * Its `at` is not checked against the clock as a signed simulator callback's is: the signature's 300-second
 * window was checked when it was stored, and a stored event may be processed later.
 */
export async function applyTelnyxEvent(deps: TelnyxInboxDeps, row: InboxRow): Promise<ApplyResult> {
  const reach = environmentsOnCarrier(deps.config, 'telnyx');
  let translation = row.translation;
  if (!translation) {
    // Translating may move state shared with the worker (a call's speech queue): once per event, then kept, so a
    // retry after a failure below applies the same events again instead of translating anew.
    translation = await translateTelnyxEvent(row.body, lookupsFor(deps, reach));
    if (translation.kind !== 'unknown' && translation.kind !== 'ignored') await saveTranslation(deps.db, row.event_id, translation);
  }
  return applyTranslation(deps, translation, reach);
}

function lookupsFor(deps: TelnyxInboxDeps, reach: CarrierReach): TelnyxLookups {
  return {
    // A call of an environment Telnyx does not serve (the test one) is no call of Telnyx's.
    callByCarrierId: async (carrierCallId) => {
      const call = await findCallByCarrierId(deps.db, carrierCallId);
      return call && withinCarrierReach(deps.log, reach, call, { carrier_call_id: carrierCallId })
        ? { id: call.id, direction: call.direction }
        : undefined;
    },
    messageByCarrierId: (carrierMessageId) => findMessageIdByCarrierId(deps.db, carrierMessageId),
    calls: deps.telnyx.calls,
    recordingOfLeg: async (callLegId, startedAt) => {
      const recording = await deps.telnyx.recordingOfLeg(callLegId, startedAt);
      if (!recording || recording.callControlId) return recording;
      // The leg's earlier events (its hang-up) named its call_control_id.
      const callControlId = await callControlIdOfLeg(deps.db, callLegId);
      return callControlId ? { ...recording, callControlId } : recording;
    },
  };
}

async function applyTranslation(deps: TelnyxInboxDeps, translation: TelnyxTranslation, reach: CarrierReach): Promise<ApplyResult> {
  switch (translation.kind) {
    case 'ignored':
      return done(translation.unhandled ? 'unhandled' : 'ignored', translation.reason);
    case 'unknown':
      return { processed: false, reason: translation.reason };
    case 'message':
      return applyMessage(deps, translation.event, reach);
    case 'recording': {
      const call = await findCallById(deps.db, translation.callId);
      if (!call || !withinCarrierReach(deps.log, reach, call, { call_id: translation.callId }))
        return done('no_call', 'recording of no call of ours');
      const carrierCallId = translation.carrierCallId ?? call.carrier_call_id;
      if (!carrierCallId) return done('no_call', 'the call has no carrier id');
      const kept = await recordLateRecording(deps.db, { id: call.id, carrierCallId }, translation.recordingUrl);
      deps.log.info({ call_id: call.id, kept }, 'telnyx recording saved');
      if (kept) await wantCopyOfLateRecording(deps, call.id);
      return done(kept ? 'done' : 'ignored', kept ? undefined : 'the call has a recording already, or is of another leg');
    }
    case 'call':
      return applyCall(deps, translation.event, reach);
    case 'calls':
      // In order: a barge-in's stopped speech reaches the call before the sentence that cut it.
      for (const event of translation.events) {
        const result = await applyCall(deps, event, reach);
        if (result.processed && result.outcome !== 'done') return result;
      }
      return done('done');
  }
}

async function applyCall(deps: TelnyxInboxDeps, event: CarrierCallEvent, reach: CarrierReach): Promise<ApplyResult> {
  if (event.type === 'call.incoming') {
    try {
      await answerInboundCall(deps, { carrierCallId: event.carrier_call_id, from: event.from, to: event.to, reach });
      return done('done');
    } catch (err) {
      // A refused call is declined at Telnyx (no line, busy, over); so is one whose workflow could not start.
      const refusal =
        err instanceof InboundCallRefusedError ? err.refusal : err instanceof StartCompensatedError ? 'service_unavailable' : undefined;
      if (!refusal) throw err;
      await deps.telnyx.declineCall(event.carrier_call_id);
      deps.log.info({ code: refusal, carrierCallId: event.carrier_call_id }, 'inbound telnyx call declined');
      return done('declined', refusal);
    }
  }
  try {
    await deliverCarrierCallEvent(deps, event.call_id, event, reach);
    return done('done');
  } catch (err) {
    // The call is over (its workflow finished) or not ours: nothing to tell.
    if (err instanceof CallNotFoundError) return done('no_call', err.message);
    throw err;
  }
}

async function applyMessage(deps: TelnyxInboxDeps, event: CarrierMessageEvent, reach: CarrierReach): Promise<ApplyResult> {
  if (event.type === 'sms.received') {
    const from = toE164(event.from);
    // A sender that is not a phone number (an alphanumeric sender id) cannot be answered or opted out: never stored raw.
    if (!from) return done('refused', 'the sender is not a phone number');
    const outcome = await takeInboundMessage(deps, {
      carrierMessageId: event.carrier_message_id,
      from,
      to: toE164(event.to),
      text: event.text,
      reach,
    });
    return outcome ? done('done') : done('no_line', 'no active line has the number');
  }
  const receipt = { messageId: event.message_id, status: event.status, errorCode: event.error_code ?? null };
  return (await takeCarrierReceipt(deps, receipt, reach)) ? done('done') : done('no_message', 'no message of ours');
}
