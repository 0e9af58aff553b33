import type Telnyx from 'telnyx';
import { telnyxRequest, type TelnyxSettings } from './client';
import { decodeClientState, encodeClientState } from '../callbacks/telnyx/clientState';
import { telnyxTranscription } from './transcription';
import { CarrierRejectedError, type PlaceCallRequest } from '../port';
import { CreateInFlightError, type CreateAttempts } from '../twilio/createAttempts';

/**
 * Dialling once per call id. Telnyx documents `command_id` on `POST /calls` ("Telnyx will ignore others Dial
 * commands with the same `command_id`", telnyx 7.24.0 `CallDialParams.command_id`) but not what it ANSWERS to
 * the ignored one: the same call, an error, or a body without `call_control_id`. So the adapter never needs
 * that answer: each attempt is recorded first (the same durable record as the Twilio adapter's creates,
 * ../twilio/createAttempts.ts, key `telnyx:<call id>`), and the call's id is learnt without it:
 * - the API records it from the call's first webhook (`call.initiated`, whose `client_state` names our call
 *   id; src/main wires `dialled`), so a retry reads it from the record;
 * - a retry after a lost answer first looks for the call among the connection's active calls by the call id in
 *   their `client_state` (`GET /connections/{id}/active_calls`, `ConnectionListActiveCallsResponse.client_state`);
 * - only when neither knows it is the dial sent again, with the same `command_id`; if Telnyx then refuses it or
 *   answers without an id, the refusal may be the ignored duplicate of a call it is dialling, so the attempt
 *   fails as retryable (not as a refusal, which would fail the call): the next attempt finds the recorded id.
 */
export const dialKey = (callId: string): string => `telnyx:${callId}`;

/** What the call's first webhooks need from dial and answer, in `client_state`. */
export const dialClientState = (request: PlaceCallRequest): string =>
  encodeClientState({
    c: request.callId,
    d: 'o',
    ...(request.machineDetection ? { m: 1 as const, ...(request.detectGreetingEnd ? { g: 1 as const } : {}) } : {}),
  });

/**
 * Telnyx's detection (telnyx 7.24.0 `CallDialParams.answering_machine_detection`): `detect` sends
 * `call.machine.detection.ended` (human, machine, not_sure) after `call.answered`; `greeting_end` sends it too and,
 * for a machine, `call.machine.greeting.ended` "when the answering machine greeting ends with a beep or silence"
 * (`detect_beep` would send that only for a beep: a greeting that ends in silence would never be reported).
 */
const machineDetectionOf = (request: PlaceCallRequest) =>
  request.machineDetection
    ? { answering_machine_detection: request.detectGreetingEnd ? ('greeting_end' as const) : ('detect' as const) }
    : {};

export async function dialOnce(
  client: Telnyx,
  settings: TelnyxSettings,
  attempts: CreateAttempts,
  request: PlaceCallRequest,
): Promise<string> {
  const key = dialKey(request.callId);
  const attempt = await attempts.begin('call', key, (settings.timeoutMs ?? 10_000) + 5_000);
  if (attempt.carrierId) return attempt.carrierId;
  if (attempt.inFlight) throw new CreateInFlightError('call', key);
  let carrierCallId: string | null = null;
  try {
    if (attempt.retried) carrierCallId = await findDialled(client, settings, request.callId);
    carrierCallId ??= await sendDial(client, settings, request, attempt.retried);
    if (!carrierCallId) {
      // A refused or empty answer to a repeated dial: the first may be ringing; learn its id on a later attempt.
      carrierCallId = (await attempts.begin('call', key, 0)).carrierId ?? (await findDialled(client, settings, request.callId));
      if (!carrierCallId)
        throw new Error(`Telnyx did not confirm the repeated dial of call ${request.callId}; its first attempt may be under way`);
    }
    return carrierCallId;
  } finally {
    await attempts.finish('call', key, carrierCallId);
  }
}

/** `POST /calls`; on a repeated attempt, a refusal or an answer without an id is `null` (see above). */
async function sendDial(client: Telnyx, settings: TelnyxSettings, request: PlaceCallRequest, repeated: boolean): Promise<string | null> {
  try {
    const response = await telnyxRequest('POST /calls', () =>
      client.calls.dial({
        connection_id: settings.connectionId,
        from: request.from,
        to: request.to,
        webhook_url: settings.webhookUrl,
        client_state: dialClientState(request),
        command_id: request.callId,
        ...(request.record ? { record: 'record-from-answer' as const, record_format: 'wav' as const } : {}),
        ...machineDetectionOf(request),
        ...telnyxTranscription(request.language),
      }),
    );
    const id = response?.data?.call_control_id;
    if (id) return id;
    if (repeated) return null;
    throw new Error('Telnyx answered POST /calls without a call_control_id');
  } catch (err) {
    if (repeated && err instanceof CarrierRejectedError) return null;
    throw err;
  }
}

/** The connection's active call whose `client_state` names `callId` (dial's own state), if any. */
async function findDialled(client: Telnyx, settings: TelnyxSettings, callId: string): Promise<string | null> {
  const found = await telnyxRequest('GET /connections/{id}/active_calls', async () => {
    for await (const call of client.connections.listActiveCalls(settings.connectionId)) {
      if (decodeClientState(call.client_state).c === callId) return call.call_control_id;
    }
    return null;
  });
  return found ?? null;
}
