import type Telnyx from 'telnyx';
import type { NumberOrderListResponse, NumberOrderWithPhoneNumbers } from 'telnyx/resources/number-orders';
import type * as port from '../port';
import { CarrierRejectedError, NumberUnavailableError } from '../port';
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
 *   line; the last one failing is a `CarrierRejectedError` naming Telnyx's order (docs/decisions/telnyx.md).
 * - `success`: the number gets the configured 10DLC campaign (./messaging.ts) before it is returned.
 *
 * A retry finds its orders by `customer_reference` (`GET /v2/number_orders?filter[customer_reference]=`)
 * and buys nothing twice. Release deletes the number (`DELETE /v2/phone_numbers/{id}`), found by its E.164.
 *
 * The search asks for the line's country, number type and area code (`filter[country_code]`,
 * `filter[phone_number_type]`, `filter[national_destination_code]`); nothing found is a
 * `NumberUnavailableError` naming the criterion. An import buys nothing: the account's own number
 * (`GET /v2/phone_numbers?filter[phone_number]=`) is set to the Call Control application
 * (`PATCH /v2/phone_numbers/{id}`, `connection_id`) and the messaging profile (`PATCH
 * /v2/phone_numbers/{id}/messaging`, `messaging_profile_id`), then the 10DLC campaign; releasing it only
 * detaches it (both set to `""`: the account keeps it).
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
  request: port.ProvisionNumberRequest,
): Promise<port.ProvisionedNumber> {
  if (request.importNumber) return importTelnyxNumber(client, settings, request.importNumber);
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
  request: port.ProvisionNumberRequest,
  customerReference: string,
): Promise<NumberOrder> {
  const numberType = request.numberType ?? 'local';
  const available = await telnyxRequest('GET /available_phone_numbers', () =>
    client.availablePhoneNumbers.list({
      filter: {
        country_code: request.country,
        phone_number_type: numberType,
        ...(request.areaCode ? { national_destination_code: request.areaCode } : {}),
        features: ['voice', 'sms'],
        limit: 1,
        best_effort: false,
      },
    }),
  );
  const candidate = available?.data?.[0]?.phone_number;
  if (!candidate) {
    // Telnyx answers an empty list whatever matched nothing: the narrowest criterion asked is named.
    const criterion = request.areaCode ? 'area_code' : numberType !== 'local' ? 'number_type' : 'country';
    const where = request.areaCode ? ` in area code ${request.areaCode}` : '';
    throw new NumberUnavailableError(criterion, `Telnyx has no ${numberType} voice and SMS number in ${request.country}${where}`, {
      provider: 'telnyx',
    });
  }
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
async function settle(client: Telnyx, settings: TelnyxSettings, order: NumberOrder): Promise<port.ProvisionedNumber> {
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

export async function releaseTelnyxNumber(client: Telnyx, request: port.ReleaseNumberRequest): Promise<void> {
  const id = await ownNumberId(client, request.phoneNumber);
  if (!id) return;
  if (request.keepInAccount) return detach(client, id);
  // Already deleted (a retried release) is done.
  await telnyxRequest(`DELETE /phone_numbers/${id}`, () => client.phoneNumbers.delete(id), [404]);
}

/** The account's number (its id), if it has it. */
async function ownNumberId(client: Telnyx, phoneNumber: string): Promise<string | undefined> {
  const found = await telnyxRequest('GET /phone_numbers', () => client.phoneNumbers.list({ filter: { phone_number: phoneNumber } }));
  for await (const number of found ?? []) if (number.phone_number === phoneNumber && number.id) return number.id;
  return undefined;
}

/** One of the account's numbers, routed to Switchboard as a bought one is (again: the same). */
async function importTelnyxNumber(client: Telnyx, settings: TelnyxSettings, phoneNumber: string): Promise<port.ProvisionedNumber> {
  const id = await ownNumberId(client, phoneNumber);
  if (!id) throw new NumberUnavailableError('phone_number', `the Telnyx account has no number ${phoneNumber}`, { provider: 'telnyx' });
  await telnyxRequest(`PATCH /phone_numbers/${id}`, () => client.phoneNumbers.update(id, { connection_id: settings.connectionId }));
  await telnyxRequest(`PATCH /phone_numbers/${id}/messaging`, () =>
    client.phoneNumbers.messaging.update(id, { messaging_profile_id: settings.messagingProfileId }),
  );
  try {
    await assignCampaign(client, settings, phoneNumber);
  } catch (err) {
    // A line that cannot text is not made with it; the number is let go again, never deleted: the account keeps it.
    if (err instanceof CarrierRejectedError) await detach(client, id);
    throw err;
  }
  return { phoneNumber, carrierRef: id };
}

/**
 * Takes the number off the Call Control application and the messaging profile Switchboard set (`""`
 * unassigns, as the messaging update documents), so its calls and texts no longer reach Switchboard.
 */
async function detach(client: Telnyx, id: string): Promise<void> {
  await telnyxRequest(`PATCH /phone_numbers/${id}`, () => client.phoneNumbers.update(id, { connection_id: '' }), [404]);
  await telnyxRequest(
    `PATCH /phone_numbers/${id}/messaging`,
    () => client.phoneNumbers.messaging.update(id, { messaging_profile_id: '' }),
    [404],
  );
}
