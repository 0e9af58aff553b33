import type Telnyx from 'telnyx';
import type { NumberOrderListResponse, NumberOrderWithPhoneNumbers } from 'telnyx/resources/number-orders';
import { CarrierRejectedError, type ProvisionedNumber } from '../port';
import { telnyxRequest, type TelnyxSettings } from './client';
import { assignCampaign } from './messaging';

/**
 * Numbers on Telnyx (developers.telnyx.com/docs/numbers/phone-numbers/number-orders): search
 * (`GET /v2/available_phone_numbers`), then a number order (`POST /v2/number_orders`) assigning the
 * number to the Call Control application and the messaging profile, whose `status` is read: Telnyx
 * answers an order `pending` and completes it `success` (the number is ours) or `failure`.
 *
 * - `pending`: the activity fails retryably (`NumberOrderPendingError`) and Temporal asks again with
 *   backoff within the line's ten-minute budget, so no worker slot waits on Telnyx. An order pending on
 *   regulatory requirements (`requirements_met: false`) will not complete without documents: refused.
 * - `failure`: that order bought nothing and is never adopted. The next look orders again under a fresh
 *   `customer_reference` (`line:<id>`, then `line:<id>#2`, …), at most `MAX_NUMBER_ORDERS` orders per
 *   line; the last one failing is a `CarrierRejectedError` naming Telnyx's order (docs/decisions.md).
 * - `success`: the number gets the configured 10DLC campaign (./messaging.ts) before it is returned.
 *
 * A retry finds its orders by `customer_reference` (`GET /v2/number_orders?filter[customer_reference]=`)
 * and buys nothing twice. Release deletes the number (`DELETE /v2/phone_numbers/{id}`), found by its E.164.
 */
export const MAX_NUMBER_ORDERS = 3;

/** A number order Telnyx has not completed yet: asked again later (retryable). */
export class NumberOrderPendingError extends Error {
  constructor(orderId: string) {
    super(`Telnyx number order ${orderId} is still pending`);
    this.name = 'NumberOrderPendingError';
  }
}

type NumberOrder = Pick<NumberOrderWithPhoneNumbers | NumberOrderListResponse, 'id' | 'status' | 'requirements_met'> & {
  phone_numbers?: Array<{ phone_number?: string }>;
};

export async function provisionTelnyxNumber(
  client: Telnyx,
  settings: TelnyxSettings,
  request: { idempotencyKey: string; country: string },
): Promise<ProvisionedNumber> {
  const { order, generation } = await latestOrder(client, request.idempotencyKey);
  if (!order || order.status === 'failure') {
    if (order && generation >= MAX_NUMBER_ORDERS)
      throw new CarrierRejectedError(`Telnyx number order ${order.id} failed (after ${generation} orders for this line)`, {
        provider: 'telnyx',
        code: 'number_order_failure',
      });
    return settle(client, settings, await placeOrder(client, settings, request, referenceOf(request.idempotencyKey, generation + 1)));
  }
  return settle(client, settings, order);
}

/** The customer_reference of the line's `generation`th order: the idempotency key, then `#2`, `#3`. */
const referenceOf = (key: string, generation: number) => (generation === 1 ? key : `${key}#${generation}`);

/** The line's newest order (by its references, in order) and how many it has placed. */
async function latestOrder(client: Telnyx, key: string): Promise<{ order?: NumberOrder; generation: number }> {
  let latest: { order?: NumberOrder; generation: number } = { generation: 0 };
  for (let generation = 1; generation <= MAX_NUMBER_ORDERS; generation += 1) {
    const customer_reference = referenceOf(key, generation);
    const page = await telnyxRequest('GET /number_orders', () => client.numberOrders.list({ filter: { customer_reference } }));
    let found: NumberOrder | undefined;
    for await (const order of page ?? []) found ??= order;
    if (!found) break;
    latest = { order: found, generation };
  }
  return latest;
}

async function placeOrder(
  client: Telnyx,
  settings: TelnyxSettings,
  request: { idempotencyKey: string; country: string },
  customerReference: string,
): Promise<NumberOrder> {
  const available = await telnyxRequest('GET /available_phone_numbers', () =>
    client.availablePhoneNumbers.list({
      filter: { country_code: request.country, features: ['voice', 'sms'], limit: 1, best_effort: false },
    }),
  );
  const candidate = available?.data?.[0]?.phone_number;
  if (!candidate) throw new CarrierRejectedError(`Telnyx has no voice and SMS number available in ${request.country}`);
  const requirementGroup = settings.requirementGroups?.[request.country];
  const created = await telnyxRequest('POST /number_orders', () =>
    client.numberOrders.create({
      phone_numbers: [{ phone_number: candidate, ...(requirementGroup ? { requirement_group_id: requirementGroup } : {}) }],
      connection_id: settings.connectionId,
      messaging_profile_id: settings.messagingProfileId,
      customer_reference: customerReference,
    }),
  );
  if (!created?.data?.id) throw new Error('Telnyx answered POST /number_orders without an order id');
  return created.data;
}

/** An order as it stands now: its number once `success` (with the 10DLC campaign), else a refusal or a retry. */
async function settle(client: Telnyx, settings: TelnyxSettings, order: NumberOrder): Promise<ProvisionedNumber> {
  const id = order.id!;
  const current =
    order.status === 'pending'
      ? ((await telnyxRequest(`GET /number_orders/${id}`, () => client.numberOrders.retrieve(id)))?.data ?? order)
      : order;
  if (current.status === 'success') {
    const phoneNumber = current.phone_numbers?.[0]?.phone_number;
    if (!phoneNumber) throw new Error(`Telnyx number order ${id} succeeded without its phone number`);
    try {
      await assignCampaign(client, settings, phoneNumber);
    } catch (err) {
      // The line will not be made with it: a number that cannot text is given back rather than kept and billed.
      if (err instanceof CarrierRejectedError) await releaseTelnyxNumber(client, { phoneNumber });
      throw err;
    }
    return { phoneNumber, carrierRef: id };
  }
  if (current.status === 'failure')
    // Ordered again (a fresh reference) by the activity's next attempt: this one never became a number.
    throw new Error(`Telnyx number order ${id} failed; the next attempt orders another number`);
  if (current.requirements_met === false)
    throw new CarrierRejectedError(
      `Telnyx number order ${id} waits for regulatory requirements (requirements_met: false): give the country a requirement group (TELNYX_REQUIREMENT_GROUPS, docs/carriers.md)`,
      { provider: 'telnyx', code: 'requirements_met_false' },
    );
  throw new NumberOrderPendingError(id);
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
