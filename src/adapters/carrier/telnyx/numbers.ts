import type Telnyx from 'telnyx';
import { CarrierRejectedError, type ProvisionedNumber } from '../port';
import { telnyxRequest, type TelnyxSettings } from './client';

/**
 * Numbers on Telnyx: search (`GET /v2/available_phone_numbers`), then a number order
 * (`POST /v2/number_orders`) assigning the number to the Call Control application and the
 * messaging profile, with the idempotency key as its `customer_reference`: a retry finds the
 * order it placed (`GET /v2/number_orders?filter[customer_reference]=`) and buys nothing twice.
 * Release deletes the number (`DELETE /v2/phone_numbers/{id}`), found by its E.164.
 */
export async function provisionTelnyxNumber(
  client: Telnyx,
  settings: TelnyxSettings,
  request: { idempotencyKey: string; country: string },
): Promise<ProvisionedNumber> {
  const previous = await telnyxRequest('GET /number_orders', () =>
    client.numberOrders.list({ filter: { customer_reference: request.idempotencyKey } }),
  );
  for await (const order of previous ?? []) {
    const ordered = order.phone_numbers?.[0]?.phone_number;
    if (ordered) return { phoneNumber: ordered, carrierRef: order.id ?? ordered };
  }
  const available = await telnyxRequest('GET /available_phone_numbers', () =>
    client.availablePhoneNumbers.list({
      filter: { country_code: request.country, features: ['voice', 'sms'], limit: 1, best_effort: false },
    }),
  );
  const candidate = available?.data?.[0]?.phone_number;
  if (!candidate) throw new CarrierRejectedError(`Telnyx has no voice and SMS number available in ${request.country}`);
  const created = await telnyxRequest('POST /number_orders', () =>
    client.numberOrders.create({
      phone_numbers: [{ phone_number: candidate }],
      connection_id: settings.connectionId,
      messaging_profile_id: settings.messagingProfileId,
      customer_reference: request.idempotencyKey,
    }),
  );
  const order = created?.data;
  return { phoneNumber: order?.phone_numbers?.[0]?.phone_number ?? candidate, carrierRef: order?.id ?? candidate };
}

export async function releaseTelnyxNumber(client: Telnyx, request: { phoneNumber: string }): Promise<void> {
  const found = await telnyxRequest('GET /phone_numbers', () =>
    client.phoneNumbers.list({ filter: { phone_number: request.phoneNumber } }),
  );
  for await (const number of found ?? []) {
    if (number.phone_number !== request.phoneNumber || !number.id) continue;
    const id = number.id;
    // Already deleted (a retried release) is done.
    await telnyxRequest(`DELETE /phone_numbers/${id}`, () => client.phoneNumbers.delete(id), [404]);
  }
}
