import type * as port from './port';
import { CarrierRejectedError } from './port';

export type CarrierEnvironment = 'test' | 'live';

/** Where each command's environment is read (the rows that the command's ids name). */
export interface CarrierEnvironmentLookup {
  /** The line `lineId` (the `line:<id>` idempotency key of a provisioning). */
  ofLine(lineId: string): Promise<CarrierEnvironment | undefined>;
  /** The newest line that has held `phoneNumber`. */
  ofNumber(phoneNumber: string): Promise<CarrierEnvironment | undefined>;
  ofCall(callId: string): Promise<CarrierEnvironment | undefined>;
  ofCarrierCall(carrierCallId: string): Promise<CarrierEnvironment | undefined>;
  ofMessage(messageId: string): Promise<CarrierEnvironment | undefined>;
}

/**
 * One carrier per environment behind the one port the activities use: every command goes to the
 * carrier of the environment its line, call or message belongs to, so test traffic never
 * reaches the live environment's carrier or account (CARRIER_PROVIDER_TEST / CARRIER_PROVIDER_LIVE).
 */
export class EnvironmentCarrier implements port.CarrierAdapter {
  constructor(
    private readonly carriers: Record<CarrierEnvironment, port.CarrierAdapter>,
    private readonly lookup: CarrierEnvironmentLookup,
  ) {}

  async provisionNumber(request: port.ProvisionNumberRequest): Promise<port.ProvisionedNumber> {
    const lineId = /^line:(.+)$/.exec(request.idempotencyKey)?.[1];
    return (await this.pick(lineId ? this.lookup.ofLine(lineId) : undefined, request.idempotencyKey)).provisionNumber(request);
  }

  async releaseNumber(request: port.ReleaseNumberRequest): Promise<void> {
    return (await this.pick(this.lookup.ofNumber(request.phoneNumber), request.phoneNumber)).releaseNumber(request);
  }

  async placeCall(request: port.PlaceCallRequest) {
    return (await this.pick(this.lookup.ofCall(request.callId), request.callId)).placeCall(request);
  }

  async hangUp(request: { carrierCallId: string }): Promise<void> {
    return (await this.byCarrierCall(request.carrierCallId)).hangUp(request);
  }

  async answerCall(request: { carrierCallId: string; callId: string; record?: boolean; language?: string }): Promise<void> {
    return (await this.pick(this.lookup.ofCall(request.callId), request.callId)).answerCall(request);
  }

  async rejectCall(request: { carrierCallId: string }): Promise<void> {
    return (await this.byCarrierCall(request.carrierCallId)).rejectCall(request);
  }

  async speak(request: { carrierCallId: string; speakId: string; text: string; voice?: string }): Promise<void> {
    return (await this.byCarrierCall(request.carrierCallId)).speak(request);
  }

  async sendDigits(request: { carrierCallId: string; digits: string; pressId?: string }): Promise<void> {
    return (await this.byCarrierCall(request.carrierCallId)).sendDigits(request);
  }

  async stopSpeaking(request: { carrierCallId: string }): Promise<void> {
    return (await this.byCarrierCall(request.carrierCallId)).stopSpeaking(request);
  }

  async transferCall(request: port.TransferCallRequest): Promise<void> {
    return (await this.byCarrierCall(request.carrierCallId)).transferCall(request);
  }

  async sendSms(request: port.SendSmsRequest) {
    return (await this.pick(this.lookup.ofMessage(request.messageId), request.messageId)).sendSms(request);
  }

  async openMediaStream(request: { carrierCallId: string }): Promise<port.CarrierMediaStream> {
    return (await this.byCarrierCall(request.carrierCallId)).openMediaStream(request);
  }

  async openRecording(request: { callId: string; recordingUrl: string }): Promise<port.CarrierRecording> {
    return (await this.pick(this.lookup.ofCall(request.callId), request.callId)).openRecording(request);
  }

  async deleteRecording(request: { callId: string; recordingUrl: string }): Promise<void> {
    return (await this.pick(this.lookup.ofCall(request.callId), request.callId)).deleteRecording(request);
  }

  private byCarrierCall(carrierCallId: string): Promise<port.CarrierAdapter> {
    return this.pick(this.lookup.ofCarrierCall(carrierCallId), carrierCallId);
  }

  /** No row names the environment: a refusal (a command about nothing Switchboard holds). */
  private async pick(environment: Promise<CarrierEnvironment | undefined> | undefined, what: string): Promise<port.CarrierAdapter> {
    const found = await environment;
    if (!found) throw new CarrierRejectedError(`no line, call or message of any environment is ${what}`);
    return this.carriers[found];
  }
}
