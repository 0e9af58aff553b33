import type Telnyx from 'telnyx';
import { telnyxRequest, type TelnyxSettings } from './client';

/**
 * SMS on Telnyx: `POST /v2/messages` with the messaging profile and our webhook URL, so the
 * message's `message.sent` / `message.finalized` receipts reach `/carrier/telnyx/events`. Inbound
 * messages arrive there as `message.received` (the profile's webhook URL).
 */
export async function sendMessage(
  client: Telnyx,
  settings: TelnyxSettings,
  request: { from: string; to: string; text: string },
): Promise<{ carrierMessageId: string }> {
  const response = await telnyxRequest('POST /messages', () =>
    client.messages.send({
      from: request.from,
      to: request.to,
      text: request.text,
      messaging_profile_id: settings.messagingProfileId,
      webhook_url: settings.webhookUrl,
      use_profile_webhooks: false,
    }),
  );
  const carrierMessageId = response?.data?.id;
  if (!carrierMessageId) throw new Error('Telnyx answered POST /messages without a message id');
  return { carrierMessageId };
}
