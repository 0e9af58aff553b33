import type Telnyx from 'telnyx';
import { numberKind } from '../../../platform/phone';
import { CarrierRejectedError } from '../port';
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
      // Telnyx makes up to 3 attempts per URL, then the failover URL's (developers.telnyx.com/docs/messaging/messages/receiving-webhooks).
      ...(settings.webhookFailoverUrl ? { webhook_failover_url: settings.webhookFailoverUrl } : {}),
      use_profile_webhooks: false,
    }),
  );
  const carrierMessageId = response?.data?.id;
  if (!carrierMessageId) throw new Error('Telnyx answered POST /messages without a message id');
  return { carrierMessageId };
}

/**
 * US A2P 10DLC (developers.telnyx.com/docs/messaging/10dlc/phone-number-assignment): a US long code
 * sends to US phones only once assigned to an approved campaign, so every US local number the
 * adapter buys is assigned to the configured one (`POST /v2/10dlc/phone_number_campaigns`,
 * `{phoneNumber, campaignId}`). Toll-free numbers take no campaign (toll-free verification is per
 * number, in the portal), nor do numbers outside the US. Idempotent: a refused assignment of a
 * number already on this campaign (a retry) is success, read back with `GET …/{phoneNumber}`.
 * Telnyx then provisions it with the carriers (`assignmentStatus` PENDING_ASSIGNMENT → ASSIGNED).
 */
export async function assignCampaign(client: Telnyx, settings: TelnyxSettings, phoneNumber: string): Promise<void> {
  const campaignId = settings.campaignId;
  if (!campaignId || !takesCampaign(phoneNumber)) return;
  try {
    await telnyxRequest('POST /10dlc/phone_number_campaigns', () =>
      client.messaging10dlc.phoneNumberCampaigns.create({ phoneNumber, campaignId }),
    );
  } catch (err) {
    if (!(err instanceof CarrierRejectedError)) throw err;
    const current = await telnyxRequest('GET /10dlc/phone_number_campaigns', () =>
      client.messaging10dlc.phoneNumberCampaigns.retrieve(phoneNumber),
    ).catch(() => undefined);
    if (current && [current.campaignId, current.telnyxCampaignId, current.tcrCampaignId].includes(campaignId)) return;
    throw err;
  }
}

/** A US number other than toll-free: the kind 10DLC campaigns govern. */
export function takesCampaign(phoneNumber: string): boolean {
  const { country, type } = numberKind(phoneNumber);
  return country === 'US' && type !== 'TOLL_FREE';
}
