/**
 * Where Twilio reaches Switchboard (under PUBLIC_BASE_URL): set on every number we buy and every
 * call and message we start, and served by api/routes/carrier/twilio.ts. Shared by both sides so
 * the URL Twilio signs is the URL the API rebuilds to verify it.
 */
export const TWILIO_CALLBACK_PATHS = {
  /** A number's VoiceUrl: an inbound call rings. */
  voice: '/carrier/twilio/voice',
  /** The TwiML a call runs once Switchboard has it: outbound calls' Url, inbound calls redirected by `answerCall`. */
  connect: '/carrier/twilio/calls/connect',
  /**
   * ConversationRelay's WebSocket (wss:// under PUBLIC_BASE_URL), held by the API instance Twilio reaches:
   * `<relay>/<call id>` (./twiml.ts, `relaySocketUrl`).
   */
  relay: '/carrier/twilio/relay',
  /** A transfer's `<Number>` StatusCallback: the destination answered. */
  transferStatus: '/carrier/twilio/calls/transfer',
  /** A transfer's `<Dial>` action: the dialled leg ended (or never answered). */
  dialed: '/carrier/twilio/calls/dialed',
  /** The `AsyncAmdStatusCallback` of a call placed with end-of-greeting detection: who answered, after the answer. */
  amdStatus: '/carrier/twilio/calls/amd',
  /** Calls' StatusCallback (and numbers'). */
  callStatus: '/carrier/twilio/calls/status',
  /** The `recordingStatusCallback` of a recording started through `Calls/{sid}/Recordings` (an answered inbound call). */
  recordingStatus: '/carrier/twilio/calls/recording',
  /** A number's SmsUrl: an inbound message. */
  sms: '/carrier/twilio/messages',
  /** Messages' StatusCallback. */
  messageStatus: '/carrier/twilio/messages/status',
} as const;

/** A callback URL under `publicBaseUrl` with its query (the query is part of what Twilio signs). */
export function twilioCallbackUrl(publicBaseUrl: string, path: string, query: Record<string, string | undefined> = {}): string {
  const url = new URL(`${publicBaseUrl.replace(/\/+$/, '')}${path}`);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
