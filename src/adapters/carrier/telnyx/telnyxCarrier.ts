import type Telnyx from 'telnyx';
import type * as port from '../port';
import type { Db } from '../../../platform/db/knex';
import { telnyxClient, type TelnyxSettings } from './client';
import { answer, hangup, reject, sendDtmf, startStreaming, transfer } from './calls';
import { dialOnce } from './dial';
import { speakText, telnyxSpeechCommands } from './speech';
import { openExpectedStream, type MediaSocketServer } from '../mediaSocketServer';
import { noMediaListener, TelnyxMediaStream } from './media';
import { sendMessage } from './messaging';
import { deleteTelnyxRecording, openTelnyxRecording } from './recordings';
import { provisionTelnyxNumber, releaseTelnyxNumber } from './numbers';
import { postgresCreateAttempts, type CreateAttempts } from '../twilio/createAttempts';
import { postgresTelnyxSpeechQueue, type TelnyxSpeechQueue } from '../callbacks/telnyx/speechQueue';
import { postgresTelnyxCallLanguages, type TelnyxCallLanguages } from '../callbacks/telnyx/callRecords';

/**
 * The carrier port on Telnyx (CARRIER_PROVIDER_LIVE=telnyx), through the official `telnyx` package.
 * Telnyx's webhooks come back to `/carrier/telnyx/events` (api/routes/carrier/telnyx.ts), which
 * verifies and translates them (../callbacks/telnyx/webhook.ts). What several instances must agree on (dial
 * attempts, queued speech, each call's language) is in Postgres (`db`). docs/carriers.md maps each behaviour.
 */
export class TelnyxCarrier implements port.CarrierAdapter {
  private readonly client: Telnyx;
  private readonly attempts: CreateAttempts;
  private readonly speech: TelnyxSpeechQueue;
  private readonly languages: TelnyxCallLanguages;
  private readonly media?: MediaSocketServer;

  constructor(
    private readonly settings: TelnyxSettings,
    /** `media`: where Telnyx's media sockets arrive (audio lines); none: audio lines are refused. */
    stores: { db: Db; media?: MediaSocketServer },
  ) {
    this.client = telnyxClient(settings);
    this.attempts = postgresCreateAttempts(stores.db);
    this.speech = postgresTelnyxSpeechQueue(stores.db, telnyxSpeechCommands(this.client));
    this.languages = postgresTelnyxCallLanguages(stores.db);
    this.media = stores.media;
  }

  provisionNumber(request: port.ProvisionNumberRequest): Promise<port.ProvisionedNumber> {
    return provisionTelnyxNumber(this.client, this.settings, request);
  }

  releaseNumber(request: port.ReleaseNumberRequest): Promise<void> {
    return releaseTelnyxNumber(this.client, request);
  }

  async placeCall(request: port.PlaceCallRequest): Promise<{ carrierCallId: string }> {
    // Telnyx posts to its own route (settings.webhookUrl), not to the simulator-format `eventsUrl`.
    const carrierCallId = await dialOnce(this.client, this.settings, this.attempts, request);
    await this.languages.remember(carrierCallId, request.callId, request.language ?? 'multi');
    return { carrierCallId };
  }

  hangUp(request: { carrierCallId: string }): Promise<void> {
    return hangup(this.client, request);
  }

  async answerCall(request: { carrierCallId: string; callId: string; record?: boolean; language?: string }): Promise<void> {
    // Recorded first: the answer's transcriptions are read in it.
    await this.languages.remember(request.carrierCallId, request.callId, request.language ?? 'multi');
    await answer(this.client, this.settings, request);
  }

  rejectCall(request: { carrierCallId: string }): Promise<void> {
    return reject(this.client, request);
  }

  speak(request: { carrierCallId: string; speakId: string; text: string; voice?: string }): Promise<void> {
    return speakText(this.speech, this.languages, request);
  }

  sendDigits(request: { carrierCallId: string; digits: string; pressId?: string }): Promise<void> {
    return sendDtmf(this.client, request);
  }

  async stopSpeaking(request: { carrierCallId: string }): Promise<void> {
    // What was heard is reported with Telnyx's `call.speak.ended` (../callbacks/telnyx/speechQueue.ts).
    await this.speech.stop(request.carrierCallId);
  }

  transferCall(request: port.TransferCallRequest): Promise<void> {
    return transfer(this.client, this.settings, request);
  }

  sendSms(request: port.SendSmsRequest): Promise<{ carrierMessageId: string }> {
    return sendMessage(this.client, this.settings, request);
  }

  openRecording(request: { callId: string; recordingUrl: string }): Promise<port.CarrierRecording> {
    return openTelnyxRecording(this.settings, request.recordingUrl);
  }

  deleteRecording(request: { callId: string; recordingUrl: string }): Promise<void> {
    return deleteTelnyxRecording(this.client, this.settings, request.recordingUrl);
  }

  /** Telnyx media streaming (./media.ts): Telnyx connects to the worker's media listener. */
  async openMediaStream(request: { carrierCallId: string }): Promise<port.CarrierMediaStream> {
    if (!this.media) throw noMediaListener();
    const expectation = await this.media.expect({ accept: TelnyxMediaStream.accept });
    const stream = await openExpectedStream(expectation, this.settings.timeoutMs ?? 10_000, () =>
      startStreaming(this.client, { carrierCallId: request.carrierCallId, streamUrl: expectation.url }),
    );
    await stream.started(request.carrierCallId, this.settings.timeoutMs ?? 10_000);
    return stream;
  }
}
