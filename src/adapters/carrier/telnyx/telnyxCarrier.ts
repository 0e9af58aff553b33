import type Telnyx from 'telnyx';
import {
  type CarrierAdapter,
  type CarrierMediaStream,
  type CarrierRecording,
  type PlaceCallRequest,
  type ProvisionedNumber,
  type SendSmsRequest,
  type TransferCallRequest,
} from '../port';
import { telnyxClient, type TelnyxSettings } from './client';
import { answer, dial, hangup, reject, sendDtmf, speak, startStreaming, stopPlayback, transfer } from './calls';
import type { MediaSocketServer } from '../mediaSocketServer';
import { noMediaListener, TelnyxMediaStream } from './media';
import { sendMessage } from './messaging';
import { openTelnyxRecording } from './recordings';
import { provisionTelnyxNumber, releaseTelnyxNumber } from './numbers';

/**
 * The carrier port on Telnyx (CARRIER_PROVIDER_LIVE=telnyx), through the official `telnyx` package.
 * Telnyx's webhooks come back to `/carrier/telnyx/events` (api/routes/carrier/telnyx.ts), which
 * verifies and translates them (./webhook.ts). docs/carriers.md maps each behaviour.
 */
export class TelnyxCarrier implements CarrierAdapter {
  private readonly client: Telnyx;

  constructor(
    private readonly settings: TelnyxSettings,
    /** Where Telnyx's media sockets arrive (audio lines); none: audio lines are refused. */
    private readonly media?: MediaSocketServer,
  ) {
    this.client = telnyxClient(settings);
  }

  provisionNumber(request: { idempotencyKey: string; country: string }): Promise<ProvisionedNumber> {
    return provisionTelnyxNumber(this.client, this.settings, request);
  }

  releaseNumber(request: { phoneNumber: string }): Promise<void> {
    return releaseTelnyxNumber(this.client, request);
  }

  placeCall(request: PlaceCallRequest): Promise<{ carrierCallId: string }> {
    // Telnyx posts to its own route (settings.webhookUrl), not to the simulator-format `eventsUrl`.
    return dial(this.client, this.settings, request);
  }

  hangUp(request: { carrierCallId: string }): Promise<void> {
    return hangup(this.client, request);
  }

  answerCall(request: { carrierCallId: string; callId: string; record?: boolean }): Promise<void> {
    return answer(this.client, this.settings, request);
  }

  rejectCall(request: { carrierCallId: string }): Promise<void> {
    return reject(this.client, request);
  }

  speak(request: { carrierCallId: string; speakId: string; text: string; voice?: string }): Promise<void> {
    return speak(this.client, request);
  }

  sendDigits(request: { carrierCallId: string; digits: string }): Promise<void> {
    return sendDtmf(this.client, request);
  }

  stopSpeaking(request: { carrierCallId: string }): Promise<void> {
    return stopPlayback(this.client, request);
  }

  transferCall(request: TransferCallRequest): Promise<void> {
    return transfer(this.client, this.settings, request);
  }

  sendSms(request: SendSmsRequest): Promise<{ carrierMessageId: string }> {
    return sendMessage(this.client, this.settings, request);
  }

  openRecording(request: { callId: string; recordingUrl: string }): Promise<CarrierRecording> {
    return openTelnyxRecording(this.settings, request.recordingUrl);
  }

  /** Telnyx media streaming (./media.ts): Telnyx connects to the worker's media listener. */
  async openMediaStream(request: { carrierCallId: string }): Promise<CarrierMediaStream> {
    if (!this.media) throw noMediaListener();
    const expected = await this.media.expect(this.settings.timeoutMs ?? 10_000, { accept: TelnyxMediaStream.accept });
    try {
      await startStreaming(this.client, { carrierCallId: request.carrierCallId, streamUrl: expected.url });
    } catch (err) {
      expected.cancel();
      throw err;
    }
    return expected.stream;
  }
}
