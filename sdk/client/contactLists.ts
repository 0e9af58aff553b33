import type { Client } from 'openapi-fetch';
import type { components, paths } from './schema';

/**
 * Uploads a campaign's contact list as CSV (`POST /api/v1/campaigns/contact-lists`): the header's `phone_number`
 * column is the number to call, `metadata.<key>` columns the contact's metadata, every other column a variable.
 * Answers the list, whose `id` `POST /api/v1/campaigns` takes as `contact_list_id`. A list with problems throws
 * {@link SwitchboardApiError} 422 whose `details` name each `rows.<n>.<column>` at fault.
 *
 * ```ts
 * const list = await uploadContactList(switchboard, 'phone_number,first_name\r\n+14155550123,Ada\r\n');
 * await switchboard.POST('/api/v1/campaigns', { body: { line_ids: [lineId], contact_list_id: list.id } });
 * ```
 */
export async function uploadContactList(
  client: Client<paths>,
  csv: string,
  options: { idempotencyKey?: string } = {},
): Promise<components['schemas']['ContactList']> {
  const { data } = await client.POST('/api/v1/campaigns/contact-lists', {
    body: csv,
    // The body goes as written: not JSON.
    bodySerializer: (body: string) => body,
    headers: { 'content-type': 'text/csv', ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}) },
  });
  return data!.contact_list;
}
