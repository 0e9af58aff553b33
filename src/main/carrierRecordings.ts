import type { CarrierRecording } from '../adapters/carrier/port';
import { SimulatorCarrier } from '../adapters/carrier/simulatorCarrier';
import { openTelnyxRecording } from '../adapters/carrier/telnyx/recordings';
import { openTwilioRecording } from '../adapters/carrier/twilio/recordings';
import { requireSetting, type Config } from '../platform/config';

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
  return async ({ environment, callId, recordingUrl }) => {
    const carrier = config.carrier[environment];
    if (carrier === 'telnyx')
      return openTelnyxRecording(
        { apiKey: requireSetting(config.telnyx.apiKey, 'TELNYX_API_KEY'), baseUrl: config.telnyx.baseUrl },
        recordingUrl,
      );
    if (carrier === 'twilio') {
      const account = requireSetting(config.twilio[environment], `TWILIO_${environment.toUpperCase()}_ACCOUNT_SID and _AUTH_TOKEN`);
      return openTwilioRecording(account, config.twilio.apiBaseUrl, recordingUrl);
    }
    const simulator = new SimulatorCarrier(config.simulatorUrl, requireSetting(config.carrierApiKey, 'CARRIER_API_KEY'));
    return simulator.openRecording({ callId, recordingUrl });
  };
}
