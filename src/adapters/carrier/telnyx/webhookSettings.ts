import type Telnyx from 'telnyx';
import { telnyxRequest } from './client';

/**
 * Where Telnyx sends the account's webhooks, read back from Telnyx at worker start. Telnyx takes a failover URL for
 * voice webhooks on the Call Control application only (`webhook_event_failover_url`; a command's `webhook_url`
 * overrides the primary, and no command takes a failover: telnyx 7.24.0 `CallDialParams`, `ActionAnswerParams`),
 * so the operator sets it there; messaging webhooks take one per message (`webhook_failover_url`, which the adapter
 * sends) and on the messaging profile, which inbound messages use.
 */
export interface TelnyxWebhookSettings {
  application: { webhookUrl?: string; failoverUrl?: string; apiVersion?: string };
  profile: { webhookUrl?: string; failoverUrl?: string; apiVersion?: string };
}

const url = (value: string | null | undefined) => (value ? value : undefined);

export async function readTelnyxWebhookSettings(
  client: Telnyx,
  ids: { connectionId: string; messagingProfileId: string },
): Promise<TelnyxWebhookSettings> {
  const application = (
    await telnyxRequest('GET /call_control_applications', () => client.callControlApplications.retrieve(ids.connectionId))
  )?.data;
  const profile = (await telnyxRequest('GET /messaging_profiles', () => client.messagingProfiles.retrieve(ids.messagingProfileId)))?.data;
  return {
    application: {
      webhookUrl: url(application?.webhook_event_url),
      failoverUrl: url(application?.webhook_event_failover_url),
      apiVersion: application?.webhook_api_version,
    },
    profile: {
      webhookUrl: url(profile?.webhook_url),
      failoverUrl: url(profile?.webhook_failover_url),
      apiVersion: profile?.webhook_api_version,
    },
  };
}

/**
 * What is wrong with the account's webhook settings for this deployment (`eventsUrl`: where Switchboard takes them;
 * `failoverUrl`: TELNYX_WEBHOOK_FAILOVER_URL). Pure; each problem is one sentence for the operator.
 */
export function telnyxWebhookProblems(settings: TelnyxWebhookSettings, expected: { eventsUrl: string; failoverUrl?: string }): string[] {
  const problems: string[] = [];
  const places = [
    ['the Call Control application (TELNYX_CONNECTION_ID)', settings.application, 'inbound calls'],
    ['the messaging profile (TELNYX_MESSAGING_PROFILE_ID)', settings.profile, 'inbound messages'],
  ] as const;
  for (const [place, found, what] of places) {
    if (found.webhookUrl !== expected.eventsUrl)
      problems.push(
        `${place} sends webhooks to ${found.webhookUrl ?? 'no URL'}, not ${expected.eventsUrl}: ${what} never reach Switchboard`,
      );
    if (found.apiVersion && found.apiVersion !== '2')
      problems.push(`${place} sends API v${found.apiVersion} webhooks: Switchboard reads v2 only`);
    if (!found.failoverUrl)
      problems.push(
        `${place} has no failover URL: a webhook its primary URL does not take is lost (Telnyx does not retry voice webhooks to the primary)`,
      );
    else if (expected.failoverUrl && found.failoverUrl !== expected.failoverUrl)
      problems.push(`${place} fails over to ${found.failoverUrl}, not TELNYX_WEBHOOK_FAILOVER_URL (${expected.failoverUrl})`);
  }
  return problems;
}
