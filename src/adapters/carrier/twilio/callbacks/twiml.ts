import twilio from 'twilio';
import { TWILIO_CALLBACK_PATHS, twilioCallbackUrl } from './paths';

/**
 * The TwiML documents Switchboard gives Twilio. A call Switchboard holds always runs `listen`: a
 * speech `<Gather>` whose result comes back as an utterance, looping through `connect?resume=1`
 * while the caller is silent. `speak` and `digits` replace it for a moment and come back to it.
 * Without `call_id` in a URL the API finds the call by Twilio's `CallSid` (set once the call was placed).
 */
const { VoiceResponse } = twilio.twiml;

/**
 * Longest text the `played` URL carries back (as the played text): URLs of a few kilobytes are the
 * safe limit of what Twilio and proxies pass. A longer speech reports no played text.
 */
const MAX_TEXT_IN_URL = 1500;

/** Silence after a speech before it counts as played (Twilio's shortest Gather timeout). */
const SPEECH_TAIL_SECONDS = 1;

/** How long one `<Gather>` waits for the caller to start speaking before looping. */
const LISTEN_TIMEOUT_SECONDS = 30;

export function listenTwiml(publicBaseUrl: string, callId?: string): string {
  const response = new VoiceResponse();
  response.gather({
    input: ['speech'],
    action: twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.heard, { call_id: callId }),
    method: 'POST',
    speechTimeout: 'auto',
    timeout: LISTEN_TIMEOUT_SECONDS,
    actionOnEmptyResult: false,
  });
  response.redirect({ method: 'POST' }, twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.connect, { call_id: callId, resume: '1' }));
  return response.toString();
}

/**
 * Speaks inside a speech `<Gather bargeIn>`: a caller who talks over it cuts it, and the Gather's
 * action (`heard` with the speak id) reports both. Spoken to the end (and a second of silence after),
 * the call follows the `<Redirect>` to `played` (which answers the next speech or `listen`), with the
 * text, which the played report carries.
 */
export function speakTwiml(
  publicBaseUrl: string,
  input: { speakId: string; text: string; voice?: { voice: string; language: string } },
): string {
  const response = new VoiceResponse();
  const gather = response.gather({
    input: ['speech'],
    action: twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.heard, { speak_id: input.speakId }),
    method: 'POST',
    bargeIn: true,
    speechTimeout: 'auto',
    timeout: SPEECH_TAIL_SECONDS,
    actionOnEmptyResult: false,
  });
  if (input.voice) gather.say({ voice: input.voice.voice as never, language: input.voice.language as never }, input.text);
  else gather.say(input.text);
  response.redirect(
    { method: 'POST' },
    twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.played, {
      speak_id: input.speakId,
      text: input.text.length <= MAX_TEXT_IN_URL ? input.text : undefined,
    }),
  );
  return response.toString();
}

/** Plays DTMF tones (`w`: half a second's pause, as Twilio's `<Play digits>` reads it), then listens again. */
export function digitsTwiml(publicBaseUrl: string, digits: string): string {
  const response = new VoiceResponse();
  response.play({ digits });
  response.redirect({ method: 'POST' }, twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.connect, { resume: '1' }));
  return response.toString();
}

/**
 * Holds an inbound call while Switchboard decides (its workflow answers with `answerCall`, which
 * redirects the call to `connect`). Twilio counts the call answered from here on.
 */
export function holdTwiml(): string {
  const response = new VoiceResponse();
  response.pause({ length: 60 });
  return response.toString();
}

/** Declines an inbound call (busy tone, never answered). */
export function rejectTwiml(): string {
  const response = new VoiceResponse();
  response.reject({ reason: 'busy' });
  return response.toString();
}
