// The TwiML builder alone: the SDK's index loads its REST client too (about 0.1 s of CPU at every start).
import VoiceResponse from 'twilio/lib/twiml/VoiceResponse';
import type { AnsweredBy, MachineKind } from '../../callbacks/wire';
import { TWILIO_CALLBACK_PATHS, twilioCallbackUrl } from './paths';

/**
 * Call transfer and machine detection on Twilio (docs/carriers.md). A transfer replaces the
 * call's TwiML with `<Dial>`: the `<Number>`'s status callback reports the destination's answer
 * (`transferStatus`), and the Dial's action (`dialed`) its end: a destination that never
 * answered hands the call back to Switchboard (listening again), one that answered and hung up
 * ends the call.
 */

/** How long the destination rings (Dial `timeout`): the ring timeout of a call. */
const TRANSFER_RING_SECONDS = 30;

export function transferTwiml(publicBaseUrl: string, request: { callId: string; transferId: string; to: string; from: string }): string {
  const ids = { call_id: request.callId, transfer_id: request.transferId };
  const response = new VoiceResponse();
  const dial = response.dial({
    callerId: request.from,
    timeout: TRANSFER_RING_SECONDS,
    action: twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.dialed, ids),
    method: 'POST',
  });
  dial.number(
    {
      statusCallbackEvent: ['answered'],
      statusCallback: twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.transferStatus, ids),
      statusCallbackMethod: 'POST',
    },
    request.to,
  );
  return response.toString();
}

/** After a failed transfer: back to `connect`, which reopens the call's session (`resume`: not a new answer). */
export function resumeTwiml(publicBaseUrl: string, callId: string | undefined): string {
  const response = new VoiceResponse();
  response.redirect({ method: 'POST' }, twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.connect, { call_id: callId, resume: '1' }));
  return response.toString();
}

/** After a transferred call's destination hung up: the call ends. */
export function hangUpTwiml(): string {
  const response = new VoiceResponse();
  response.hangup();
  return response.toString();
}

/** The Dial's `DialCallStatus`: the destination answered at some point (`completed`, `answered`), else it never did. */
export function transferWasAnswered(dialCallStatus: string | undefined): boolean {
  return dialCallStatus === 'completed' || dialCallStatus === 'answered';
}

/**
 * Twilio's `AnsweredBy` under DetectMessageEnd: a machine is reported once its greeting ended, by a beep, silence or
 * otherwise (`machine_end_beep`, `machine_end_silence`, `machine_end_other`). A `fax` has no greeting to end.
 */
export function twilioGreetingEnded(answeredBy: string | undefined): boolean {
  return answeredBy?.startsWith('machine_end_') === true;
}

/**
 * Twilio's `AnsweredBy` → who answered: `human`; `machine_start`, `machine_end_*` and `fax` are machines; `unknown` (or
 * anything else) is unknown. The values are those of https://www.twilio.com/docs/voice/answering-machine-detection
 * ("AnsweredBy": `machine_start`, `human`, `fax`, `unknown`; under DetectMessageEnd `machine_end_beep`,
 * `machine_end_silence`, `machine_end_other`); twilio-oai's Calls create operation (test/fixtures/twilio-oai/
 * twilio_api_v2010.slice.json, `MachineDetection`, `AsyncAmdStatusCallback`) names the same three answerers: a human,
 * an answering machine, or a fax.
 */
export function twilioAnsweredBy(answeredBy: string | undefined): AnsweredBy {
  if (answeredBy === 'human') return 'human';
  if (answeredBy === 'fax' || answeredBy?.startsWith('machine')) return 'machine';
  return 'unknown';
}

/** The kind of machine Twilio's `AnsweredBy` names, as the carrier callbacks carry it: `fax` for a fax, else none. */
export function twilioMachineKind(answeredBy: string | undefined): { machine_kind?: MachineKind } {
  return answeredBy === 'fax' ? { machine_kind: 'fax' } : {};
}
