import Telnyx from 'telnyx';
import { CarrierRejectedError } from '../../adapters/carrier/port';
import { TELNYX_RECORDINGS_URL } from '../../adapters/carrier/callbacks/telnyx/recordingEvents';
import { deleteTelnyxRecording, openTelnyxRecording } from '../../adapters/carrier/telnyx/recordings';
import type { Loop } from './loop';
import { eventually } from './runner';

/**
 * What the Telnyx run reads and does on Telnyx's side, with the official `telnyx` package and
 * the deployment's API key: the connection (Call Control application), the numbers, recordings,
 * webhook deliveries, and the legs of the run's calls (to speak as the caller would).
 */

export type TelnyxClient = Telnyx;

export interface TelnyxSession extends Loop {
  telnyx: TelnyxClient;
  connectionId: string;
  connection: { name: string; primary: string; failover: string | null };
  startedAt: Date;
  /** Set while the duplicates check has the connection pointed at the kit; close() calls it if a check could not. */
  restoreConnection?: () => Promise<void>;
  /** The Telnyx recording behind the call the `recording` check made (the `delete-recording` check deletes it at Telnyx). */
  recording?: string;
}

export function telnyxClient(env: NodeJS.ProcessEnv): TelnyxClient {
  return new Telnyx({ apiKey: env.TELNYX_API_KEY!.trim(), timeout: 15_000 });
}

/** The key works and the connection exists, with its webhook URLs; the reason when not. */
export async function connectionOf(
  client: TelnyxClient,
  connectionId: string,
): Promise<{ name: string; primary: string; failover: string | null } | string> {
  try {
    const { data } = await client.callControlApplications.retrieve(connectionId);
    if (!data) return `Telnyx has no Call Control application ${connectionId} (TELNYX_CONNECTION_ID)`;
    return {
      name: data.application_name ?? connectionId,
      primary: data.webhook_event_url ?? '',
      failover: data.webhook_event_failover_url ?? null,
    };
  } catch (err) {
    return `Telnyx refused TELNYX_API_KEY or TELNYX_CONNECTION_ID ${connectionId}: ${(err as Error).message}`;
  }
}

/** Points the connection's webhooks elsewhere (the duplicate-delivery check), keeping its name. */
export async function pointConnection(
  client: TelnyxClient,
  connectionId: string,
  name: string,
  primary: string,
  failover: string | null,
): Promise<void> {
  await client.callControlApplications.update(connectionId, {
    application_name: name,
    webhook_event_url: primary,
    webhook_event_failover_url: failover,
  });
}

/** The number as Telnyx holds it: status and connection; undefined when the account does not own it. */
export async function numberAt(client: TelnyxClient, e164: string): Promise<{ status: string; connectionId: string | null } | undefined> {
  for await (const number of client.phoneNumbers.list({ filter: { phone_number: e164 } })) {
    if (number.phone_number === e164) return { status: number.status, connectionId: number.connection_id ?? null };
  }
  return undefined;
}

/** The 10DLC campaign a number is assigned to, with the assignment's status; undefined when it has none. */
export async function campaignOf(client: TelnyxClient, e164: string): Promise<{ ids: string[]; status: string } | undefined> {
  try {
    const assigned = await client.messaging10dlc.phoneNumberCampaigns.retrieve(e164);
    const ids = [assigned.campaignId, assigned.telnyxCampaignId, assigned.tcrCampaignId].filter((id): id is string => Boolean(id));
    return { ids, status: assigned.assignmentStatus ?? 'unknown' };
  } catch (err) {
    if (err instanceof Telnyx.NotFoundError) return undefined;
    throw err;
  }
}

/**
 * The Telnyx recording resource URL (`https://api.telnyx.com/v2/recordings/<id>`, what Switchboard keeps in the call's row
 * and deletes) of a Switchboard call on the kit's connection: Switchboard's own `recording_url` no longer names it
 * (issue 32), so it is found among the connection's recordings made since the call by its two numbers.
 */
export async function recordingOfCall(
  client: TelnyxClient,
  connectionId: string,
  call: { id: string; from_number: string; to_number: string; created_at: string },
): Promise<string> {
  return eventually(
    `the Telnyx recording of call ${call.id} (${call.from_number} to ${call.to_number} on connection ${connectionId})`,
    async () => {
      for await (const recording of client.recordings.list({
        filter: { connection_id: connectionId, created_at: { gte: call.created_at } },
      })) {
        const numbers = [recording.from, recording.to];
        if (recording.id && numbers.includes(call.from_number) && numbers.includes(call.to_number))
          return `${TELNYX_RECORDINGS_URL}/${recording.id}`;
      }
      return undefined;
    },
    { timeoutMs: 60_000, everyMs: 3_000 },
  );
}

/**
 * Deletes the recording behind a `recording_url` at Telnyx as the worker does, through the adapter's own
 * `deleteTelnyxRecording` (src/adapters/carrier/telnyx/recordings.ts) with the deployment's key; then waits until reading
 * it is refused as the portal would read it (`openTelnyxRecording`) and retrieving it is Telnyx's 404, and deletes it
 * again, which must succeed as well (a retried delete).
 */
export async function deleteRecordingAtTelnyx(client: TelnyxClient, env: NodeJS.ProcessEnv, recordingUrl: string): Promise<string> {
  const id = /\/v2\/recordings\/([0-9a-zA-Z-]+)$/.exec(recordingUrl)?.[1];
  if (!id) throw new Error(`recording_url ${recordingUrl} is not a Telnyx recording resource: nothing Switchboard would delete`);
  await deleteTelnyxRecording(client, {}, recordingUrl);
  await eventually(
    `Telnyx no longer having recording ${id}`,
    async () => {
      try {
        (await openTelnyxRecording({ apiKey: env.TELNYX_API_KEY!.trim() }, recordingUrl)).body.destroy();
        return undefined;
      } catch (err) {
        if (!(err instanceof CarrierRejectedError)) throw err;
      }
      try {
        await client.recordings.retrieve(id);
        return undefined;
      } catch (err) {
        if (err instanceof Telnyx.NotFoundError) return true;
        throw err;
      }
    },
    { timeoutMs: 60_000, everyMs: 3_000 },
  );
  await deleteTelnyxRecording(client, {}, recordingUrl);
  return id;
}

/** The `c` (Switchboard call id) of a leg's client_state, which Switchboard sets on dial and answer. */
export function switchboardCallOf(clientState: string | null | undefined): string | undefined {
  if (!clientState) return undefined;
  try {
    const state = JSON.parse(Buffer.from(clientState, 'base64').toString('utf8')) as { c?: unknown };
    return typeof state.c === 'string' ? state.c : undefined;
  } catch {
    return undefined;
  }
}

/** The Telnyx call_control_id of a live Switchboard call, found among the connection's active calls. */
export async function legOf(client: TelnyxClient, connectionId: string, callId: string): Promise<string> {
  return eventually(
    `the Telnyx leg of call ${callId} (an active call on connection ${connectionId} whose client_state names it)`,
    async () => {
      for await (const leg of client.connections.listActiveCalls(connectionId)) {
        if (switchboardCallOf(leg.client_state) === callId) return leg.call_control_id;
      }
      return undefined;
    },
    { timeoutMs: 30_000, everyMs: 3_000 },
  );
}

/** Says `text` on a leg straight through Telnyx (as the person on that leg would talk), outside Switchboard. */
export async function sayOnLeg(client: TelnyxClient, callControlId: string, text: string): Promise<void> {
  await client.calls.actions.speak(callControlId, { payload: text, payload_type: 'text', voice: 'female', language: 'en-US' });
}

export interface DeliveryAnswer {
  eventType: string;
  eventId: string;
  url: string;
  status: number | undefined;
}

/** Every attempt Telnyx made since `since` to deliver a webhook mentioning `text` (a number of the run), with our answer. */
export async function deliveriesMentioning(client: TelnyxClient, text: string, since: Date): Promise<DeliveryAnswer[]> {
  const answers: DeliveryAnswer[] = [];
  const query = { filter: { webhook: { contains: text }, started_at: { gte: since.toISOString() } } };
  for await (const delivery of client.webhookDeliveries.list(query)) {
    for (const attempt of delivery.attempts ?? []) {
      answers.push({
        eventType: delivery.webhook?.event_type ?? '?',
        eventId: delivery.webhook?.id ?? '?',
        url: attempt.http?.request?.url ?? '',
        status: attempt.http?.response?.status,
      });
    }
  }
  return answers;
}
