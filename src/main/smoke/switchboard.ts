import { createSwitchboardClient, SwitchboardApiError, type components, type SwitchboardClient } from '../../../sdk/client';
import { eventually, RunRefused } from './runner';

/**
 * The operator's deployment as the smoke kit drives it: its public API at SMOKE_API_URL, with a
 * key, through the typed client customers use (sdk/client). Only what the checks need.
 */

export type Line = components['schemas']['Line'];
export type Call = components['schemas']['Call'];
export type SpeakResult = components['schemas']['SpeakResult'];
export type TransferResult = components['schemas']['TransferResult'];
export type Message = components['schemas']['Message'];
export type Transaction = components['schemas']['Transaction'];
type LineCreate = components['schemas']['LineCreateRequest'];
type LineUpdate = components['schemas']['LineUpdateRequest'];

export const ACTIVE_CALL_STATUSES: readonly string[] = ['initiated', 'ringing', 'in_progress'];

/** Reads an answer that openapi-fetch typed as optional (the client throws on every non-2xx). */
function answered<T>(data: T | undefined): T {
  if (data === undefined) throw new Error('the API answered without a body');
  return data;
}

export class Switchboard {
  readonly client: SwitchboardClient;

  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
  ) {
    this.client = createSwitchboardClient({ baseUrl, apiKey });
  }

  /**
   * The API answers at its public URL and accepts the key, in the environment the run needs.
   * Problems are returned as refusals (the run does not start).
   */
  async refusals(environment: 'test' | 'live', apiKey: string): Promise<string[]> {
    try {
      const ready = await fetch(`${this.baseUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
      if (!ready.ok) return [`the API at ${this.baseUrl} is not ready: GET /readyz answered ${ready.status}`];
    } catch (err) {
      return [`the API at ${this.baseUrl} cannot be reached: ${err instanceof Error ? err.message : String(err)}`];
    }
    if (!apiKey.startsWith(`sk_${environment}_`)) return [`SMOKE_API_KEY must be a ${environment} key (sk_${environment}_…) for this run`];
    try {
      await this.client.GET('/api/v1/billing/balance');
    } catch (err) {
      return [`the API refused SMOKE_API_KEY: ${err instanceof SwitchboardApiError ? `${err.status} ${err.code}` : String(err)}`];
    }
    return [];
  }

  /**
   * A call's recording as Switchboard serves it (issue 32): `recording_url` is Switchboard's own
   * (`…/api/v1/calls/<id>/recording`), read with the key; its first KiB must be audio (206 once the copy is in the
   * recordings store, 200 from the carrier until then).
   */
  async servedRecording(call: { id: string; recording_url: string }): Promise<{ status: number; contentType: string; bytes: number }> {
    if (!call.recording_url.endsWith(`/api/v1/calls/${call.id}/recording`))
      throw new Error(`recording_url ${call.recording_url} is not Switchboard's own URL of call ${call.id}`);
    const res = await fetch(call.recording_url, {
      headers: { authorization: `Bearer ${this.apiKey}`, range: 'bytes=0-1023' },
      signal: AbortSignal.timeout(60_000),
    });
    const bytes = (await res.arrayBuffer()).byteLength;
    const contentType = res.headers.get('content-type') ?? '';
    if ((res.status !== 200 && res.status !== 206) || !contentType.startsWith('audio/') || bytes === 0)
      throw new Error(`GET ${call.recording_url} answered ${res.status} ${contentType} (${bytes} bytes), not audio`);
    return { status: res.status, contentType, bytes };
  }

  async createLine(body: LineCreate): Promise<{ line: Line; secret: string }> {
    const { data } = await this.client.POST('/api/v1/lines', { body });
    const created = answered(data);
    if (!created.webhook_secret) throw new Error('POST /api/v1/lines answered without the signing secret');
    return { line: created.line, secret: created.webhook_secret };
  }

  async line(id: string): Promise<Line> {
    const { data } = await this.client.GET('/api/v1/lines/{id}', { params: { path: { id } } });
    return answered(data).line;
  }

  /** Waits for the line's number (provisioning buys it at the carrier); a released line is a refusal. */
  async lineActive(id: string, timeoutMs = 180_000): Promise<Line & { phone_number: string }> {
    return eventually(
      `line ${id} active`,
      async () => {
        const line = await this.line(id);
        if (line.status === 'released')
          throw new RunRefused([`line ${id} was released while provisioning (the carrier refused its number)`]);
        return line.status === 'active' && line.phone_number ? { ...line, phone_number: line.phone_number } : undefined;
      },
      { timeoutMs, everyMs: 3_000 },
    );
  }

  async updateLine(id: string, body: LineUpdate): Promise<Line> {
    const { data } = await this.client.PATCH('/api/v1/lines/{id}', { params: { path: { id } }, body });
    return answered(data).line;
  }

  async releaseLine(id: string): Promise<void> {
    await this.client.DELETE('/api/v1/lines/{id}', { params: { path: { id } } });
  }

  async placeCall(lineId: string, toNumber: string, machineDetection = false): Promise<Call> {
    const body = {
      line_id: lineId,
      to_number: toNumber,
      machine_detection: machineDetection ? ('detect' as const) : ('disabled' as const),
    };
    const { data } = await this.client.POST('/api/v1/calls', { body });
    return answered(data).call;
  }

  async call(id: string): Promise<Call> {
    const { data } = await this.client.GET('/api/v1/calls/{id}', { params: { path: { id } } });
    return answered(data).call;
  }

  async callsOfLine(lineId: string): Promise<Call[]> {
    const { data } = await this.client.GET('/api/v1/calls', { params: { query: { line_id: lineId, limit: 100 } } });
    return answered(data).calls;
  }

  /** Says `text` on the call; answers when it has been played (or was cut, or the call ended). */
  async speak(callId: string, text: string, signal?: AbortSignal): Promise<SpeakResult> {
    const { data } = await this.client.POST('/api/v1/calls/{id}/speak', { params: { path: { id: callId } }, body: { text }, signal });
    return answered(data);
  }

  async transfer(callId: string, toNumber: string): Promise<TransferResult> {
    const { data } = await this.client.POST('/api/v1/calls/{id}/transfer', {
      params: { path: { id: callId } },
      body: { to_number: toNumber },
    });
    return answered(data);
  }

  async hangUp(callId: string): Promise<Call> {
    const { data } = await this.client.POST('/api/v1/calls/{id}/hangup', { params: { path: { id: callId } } });
    return answered(data).call;
  }

  /** Waits until the call has ended and `field` is set on it (e.g. `recording_url`, which may come after the end). */
  async endedWith<K extends keyof Call>(callId: string, field: K, timeoutMs: number): Promise<Call & { [P in K]: NonNullable<Call[P]> }> {
    return eventually(
      `call ${callId} ended with ${String(field)}`,
      async () => {
        const call = await this.call(callId);
        return !ACTIVE_CALL_STATUSES.includes(call.status) && call[field] != null
          ? (call as Call & { [P in K]: NonNullable<Call[P]> })
          : undefined;
      },
      { timeoutMs, everyMs: 3_000 },
    );
  }

  async grantConsent(lineId: string, phoneNumber: string): Promise<void> {
    await this.client.POST('/api/v1/consent', {
      body: { line_id: lineId, phone_number: phoneNumber, consent_type: 'explicit_outbound', source: 'switchboard smoke kit' },
    });
  }

  async sendSms(lineId: string, to: string, text: string): Promise<Message> {
    const { data } = await this.client.POST('/api/v1/messages', { body: { line_id: lineId, to, text } });
    return answered(data);
  }

  async conversation(lineId: string, phoneNumber: string): Promise<Message[]> {
    const { data } = await this.client.GET('/api/v1/conversations/{lineId}/{phoneNumber}', { params: { path: { lineId, phoneNumber } } });
    return answered(data).messages;
  }

  async voiceSlugs(): Promise<string[]> {
    const { data } = await this.client.GET('/api/v1/voices');
    return answered(data).voices.map((voice) => voice.slug);
  }

  async transactions(): Promise<Transaction[]> {
    const { data } = await this.client.GET('/api/v1/billing/transactions', { params: { query: { limit: 100 } } });
    return answered(data).transactions;
  }

  async balanceCents(): Promise<number> {
    const { data } = await this.client.GET('/api/v1/billing/balance');
    return answered(data).cents;
  }

  async settings(): Promise<components['schemas']['Settings']> {
    const { data } = await this.client.GET('/api/v1/settings');
    return answered(data);
  }

  async autoRecharge(settings: { enabled: boolean; thresholdCents: number; amountCents: number }): Promise<void> {
    await this.client.PATCH('/api/v1/settings', {
      body: {
        auto_recharge_enabled: settings.enabled,
        auto_recharge_threshold_cents: settings.thresholdCents,
        auto_recharge_amount_cents: settings.amountCents,
      },
    });
  }
}
