// The TwiML builder alone: the SDK's index loads its REST client too (about 0.1 s of CPU at every start).
import VoiceResponse from 'twilio/lib/twiml/VoiceResponse';
import { relaySessionLanguages } from './relayLanguages';
import { TWILIO_CALLBACK_PATHS, twilioCallbackUrl } from './paths';

/**
 * The TwiML documents Switchboard gives Twilio. A webhook or hosted call runs `relay`: Twilio's
 * ConversationRelay, which turns caller speech into text and our text into speech over a WebSocket
 * the API holds (./relaySession.ts). An audio call waits in `audioHold` until the worker moves it to
 * `stream` (bidirectional Media Streams).
 */

/** The WebSocket form of a public URL (`https:` → `wss:`, `http:` → `ws:`), as Twilio is given it and signs it. */
export function webSocketUrl(publicUrl: string): string {
  return publicUrl.replace(/^http/, 'ws');
}

/**
 * A call's ConversationRelay socket: `wss://<public host>/carrier/twilio/relay/<call id>/<token>`. No
 * query string (Twilio forbids one on `<Stream>` URLs, error 31920, and states no rule for
 * ConversationRelay): the call's facts go as `<Parameter>`s, which arrive in `setup.customParameters`.
 * The call id and a one-time token (./relayTokens.ts) are in the path, so the URL Twilio signs, and the
 * signature, open one session of that call, once.
 */
export function relaySocketUrl(publicBaseUrl: string, callId: string, token: string): string {
  return twilioCallbackUrl(
    webSocketUrl(publicBaseUrl),
    `${TWILIO_CALLBACK_PATHS.relay}/${encodeURIComponent(callId)}/${encodeURIComponent(token)}`,
  );
}

/**
 * ConversationRelay on the call, in the line's voice and languages (./relayLanguages.ts).
 * `debug="speaker-events"` makes Twilio report when it stops speaking (our "played"); interruptions by
 * speech only (a caller's key press does not cut a speech). When the session ends without the call
 * (the API instance went away), `<Connect action>` opens a new one.
 */
export function relayTwiml(
  publicBaseUrl: string,
  input: { callId: string; relayToken: string; voiceSlug?: string; lineLanguage?: string },
): string {
  const session = relaySessionLanguages({ voiceSlug: input.voiceSlug, language: input.lineLanguage });
  const response = new VoiceResponse();
  const connect = response.connect({
    action: twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.connect, { call_id: input.callId, resume: '1' }),
    method: 'POST',
  });
  const relay = connect.conversationRelay({
    url: relaySocketUrl(publicBaseUrl, input.callId, input.relayToken),
    debug: 'speaker-events',
    interruptible: 'speech',
    ttsLanguage: session.ttsLanguage,
    ...session.voice,
    transcriptionLanguage: session.transcriptionLanguage,
    ...(session.transcriptionProvider ? { transcriptionProvider: session.transcriptionProvider } : {}),
  });
  for (const language of session.languages) relay.language(language);
  relay.parameter({ name: 'call_id', value: input.callId });
  relay.parameter({ name: 'language', value: session.ttsLanguage });
  return response.toString();
}

/** An audio call waits here (answered) until `openMediaStream` moves it to `stream`. */
export function audioHoldTwiml(publicBaseUrl: string, callId?: string): string {
  const response = new VoiceResponse();
  response.pause({ length: 60 });
  response.redirect({ method: 'POST' }, twilioCallbackUrl(publicBaseUrl, TWILIO_CALLBACK_PATHS.connect, { call_id: callId, resume: '1' }));
  return response.toString();
}

/** Bidirectional Media Streams to `url` (the worker's listener): µ-law 8 kHz both ways, for as long as the call lasts. */
export function streamTwiml(url: string): string {
  const response = new VoiceResponse();
  response.connect().stream({ url });
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
