import type { CarrierRecording } from '../adapters/carrier/port';
import { openTelnyxRecording } from '../adapters/carrier/telnyx/recordings';
import { openTwilioRecording } from '../adapters/carrier/twilio/recordings';
import { requireSetting, type CarrierProvider, type Config } from '../platform/config';
import { simulatorCarrier, twilioAccountOf } from './carriers';

export type RecordingOpener = (request: {
  environment: 'test' | 'live';
  callId: string;
  recordingUrl: string;
}) => Promise<CarrierRecording>;

/**
 * The API's way to a call's recording (the portal plays it): the carrier of the call's environment, as the
 * worker's `buildCarrier` (./carriers.ts) chooses it, with the same credentials. Only the recording reads are
 * built here, so the API process opens no media listener and needs no Twilio create records.
 */
export function recordingOpener(config: Config): RecordingOpener {
  const openers: Record<CarrierProvider, RecordingOpener> = {
    simulator: ({ callId, recordingUrl }) => simulatorCarrier(config).openRecording({ callId, recordingUrl }),
    twilio: ({ environment, recordingUrl }) =>
      openTwilioRecording(twilioAccountOf(config, environment), config.twilio.apiBaseUrl, recordingUrl),
    telnyx: ({ recordingUrl }) =>
      openTelnyxRecording({ apiKey: requireSetting(config.telnyx.apiKey, 'TELNYX_API_KEY'), baseUrl: config.telnyx.baseUrl }, recordingUrl),
  };
  // The carrier is read per request: it is the call's environment's, as configured.
  return async (request) => openers[config.carrier[request.environment]](request);
}
