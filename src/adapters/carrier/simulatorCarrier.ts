import { parseJsonObject } from '../../platform/json';
import type * as port from './port';
import { CarrierRejectedError, NumberUnavailableError } from './port';
import { deleteAtCarrier, getFromCarrier, onCarrierOrigin, recordingOf } from './recordingFetch';
import { SimulatorMediaStream } from './simulatorMedia';

/** The default carrier: the simulator process's carrier API over HTTP, with CARRIER_API_KEY as its bearer. */
export class SimulatorCarrier implements port.CarrierAdapter {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs = 5_000,
  ) {}

  /** `POST /carrier/v1/numbers`: a search-and-buy, or an import; 404 `{unmatched}` names what matched nothing. */
  async provisionNumber(request: port.ProvisionNumberRequest): Promise<port.ProvisionedNumber> {
    const wanted = request.importNumber
      ? { import_number: request.importNumber }
      : { country: request.country, number_type: request.numberType ?? 'local', area_code: request.areaCode };
    const body = await this.call(
      'POST',
      '/carrier/v1/numbers',
      { idempotency_key: request.idempotencyKey, ...wanted },
      this.timeoutMs,
      (status, answer) => {
        const unmatched = status === 404 ? answer.unmatched : undefined;
        if (unmatched === 'area_code' || unmatched === 'number_type' || unmatched === 'country' || unmatched === 'phone_number') {
          return new NumberUnavailableError(unmatched, `the simulator has no number as asked (${unmatched})`, {
            provider: 'simulator',
            code: String(status),
          });
        }
        return undefined;
      },
    );
    return { phoneNumber: String(body.phone_number), carrierRef: String(body.number_ref) };
  }

  /** `DELETE /carrier/v1/numbers/{phone}`, or for an imported number `POST …/detach` (the account keeps it). */
  async releaseNumber(request: port.ReleaseNumberRequest): Promise<void> {
    const path = `/carrier/v1/numbers/${encodeURIComponent(request.phoneNumber)}`;
    if (request.keepInAccount) await this.call('POST', `${path}/detach`);
    else await this.call('DELETE', path);
  }

  async placeCall(request: port.PlaceCallRequest): Promise<{ carrierCallId: string }> {
    const carrierCallId = await this.create('/carrier/v1/calls', 'carrier_call_id', {
      call_id: request.callId,
      from: request.from,
      to: request.to,
      events_url: request.eventsUrl,
      record: request.record,
      ...(request.machineDetection ? { machine_detection: true } : {}),
      ...(request.machineDetection && request.detectGreetingEnd ? { greeting_end_detection: true } : {}),
    });
    return { carrierCallId };
  }

  async hangUp(request: { carrierCallId: string }): Promise<void> {
    await this.call('POST', `/carrier/v1/calls/${encodeURIComponent(request.carrierCallId)}/hangup`);
  }

  async answerCall(request: { carrierCallId: string; callId: string; record?: boolean }): Promise<void> {
    await this.call('POST', `/carrier/v1/calls/${encodeURIComponent(request.carrierCallId)}/answer`, {
      call_id: request.callId,
      record: request.record,
    });
  }

  async rejectCall(request: { carrierCallId: string }): Promise<void> {
    await this.call('POST', `/carrier/v1/calls/${encodeURIComponent(request.carrierCallId)}/reject`);
  }

  async speak(request: { carrierCallId: string; speakId: string; text: string; voice?: string }): Promise<void> {
    await this.call('POST', `/carrier/v1/calls/${encodeURIComponent(request.carrierCallId)}/speak`, {
      text: request.text,
      speak_id: request.speakId,
      voice: request.voice,
    });
  }

  async sendDigits(request: { carrierCallId: string; digits: string }): Promise<void> {
    // Answered once the tones have played: allow for the longest string of pauses.
    await this.call('POST', `/carrier/v1/calls/${encodeURIComponent(request.carrierCallId)}/dtmf`, { digits: request.digits }, 40_000);
  }

  async stopSpeaking(request: { carrierCallId: string }): Promise<void> {
    await this.call('POST', `/carrier/v1/calls/${encodeURIComponent(request.carrierCallId)}/stop`);
  }

  async transferCall(request: port.TransferCallRequest): Promise<void> {
    await this.call('POST', `/carrier/v1/calls/${encodeURIComponent(request.carrierCallId)}/transfer`, {
      transfer_id: request.transferId,
      to: request.to,
      from: request.from,
    });
  }

  async sendSms(request: port.SendSmsRequest): Promise<{ carrierMessageId: string }> {
    const carrierMessageId = await this.create('/carrier/v1/messages', 'carrier_message_id', {
      message_id: request.messageId,
      from: request.from,
      to: request.to,
      text: request.text,
      status_url: request.statusUrl,
    });
    return { carrierMessageId };
  }

  /** A WebSocket to the simulator's `/carrier/v1/calls/{carrier_call_id}/media` (see `SimulatorMediaStream`). */
  async openMediaStream(request: { carrierCallId: string }): Promise<port.CarrierMediaStream> {
    const url = new URL(`/carrier/v1/calls/${encodeURIComponent(request.carrierCallId)}/media`, this.baseUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return SimulatorMediaStream.open(url, this.apiKey, this.timeoutMs);
  }

  /** The simulator's media store: `<simulator>/recordings/<carrier call id>.wav`, read with the carrier bearer. */
  async openRecording(request: { callId: string; recordingUrl: string }): Promise<port.CarrierRecording> {
    const res = await getFromCarrier(this.recordingAt(request.recordingUrl), { authorization: `Bearer ${this.apiKey}` }, 'the recording');
    return recordingOf(res, 'audio/wav');
  }

  /** `DELETE <simulator>/recordings/<carrier call id>.wav` with the carrier bearer: 204, or 404 once it is gone (done). */
  async deleteRecording(request: { callId: string; recordingUrl: string }): Promise<void> {
    const url = this.recordingAt(request.recordingUrl);
    await deleteAtCarrier(url, { authorization: `Bearer ${this.apiKey}` }, 'the recording', 'simulator', this.timeoutMs);
  }

  /** A recording URL of the simulator's media store on its own origin, or a refusal before any request. */
  private recordingAt(recordingUrl: string): URL {
    const url = onCarrierOrigin(recordingUrl, this.baseUrl);
    if (!/^\/recordings\/[^/]+\.wav$/.test(url.pathname)) throw new CarrierRejectedError('not a recording of the simulator');
    return new URL(url.pathname, url.origin);
  }

  /** `refusal` may turn a 4xx answer into a more precise error than `CarrierRejectedError`. */
  /** POSTs what creates a call or message and returns the id the carrier gave it (`field` of its answer). */
  private async create(path: string, field: string, body: object): Promise<string> {
    const answer = await this.call('POST', path, body);
    const id = answer[field];
    if (typeof id !== 'string' || id === '') throw new Error(`carrier answered POST ${path} without a ${field}`);
    return id;
  }

  private async call(
    method: string,
    path: string,
    body?: object,
    timeoutMs = this.timeoutMs,
    refusal?: (status: number, answer: Record<string, unknown>) => CarrierRejectedError | undefined,
  ): Promise<Record<string, unknown>> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (response.status >= 400 && response.status < 500) {
      const answer = parseJsonObject(text);
      const precise = refusal?.(response.status, answer);
      if (precise) throw precise;
      // The simulator has no error codes of its own: its refusals are named by their HTTP status.
      throw new CarrierRejectedError(`carrier refused ${method} ${path}: ${response.status} ${text.slice(0, 200)}`, {
        provider: 'simulator',
        code: String(response.status),
        ...(isCallNotActive(path, response.status, answer) ? { callNotActive: true } : {}),
      });
    }
    if (!response.ok) throw new Error(`carrier error on ${method} ${path}: ${response.status}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }
}

/** The simulator's answer to a command on a call it does not have (404) or that is not answered (409, ./callRoutes.ts). */
function isCallNotActive(path: string, status: number, answer: Record<string, unknown>): boolean {
  if (!path.startsWith('/carrier/v1/calls/')) return false;
  return status === 404 || (status === 409 && answer.error === 'call is not answered');
}
