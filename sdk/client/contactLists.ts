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

type ContactList = components['schemas']['ContactList'];

/** An uploaded contact list, as its upload answered it; a deleted, expired or unknown id throws {@link SwitchboardApiError} 404 `not_found`. */
export async function getContactList(client: Client<paths>, id: string): Promise<ContactList> {
  const { data } = await client.GET('/api/v1/campaigns/contact-lists/{id}', { params: { path: { id } } });
  return data!.contact_list;
}

/**
 * One page of the uploaded lists that have not expired, newest first: pass `next_cursor` back as `cursor` while
 * `has_more`.
 */
export async function listContactLists(
  client: Client<paths>,
  page: { limit?: number; cursor?: string } = {},
): Promise<{ contact_lists: ContactList[]; has_more: boolean; next_cursor: string | null }> {
  const { data } = await client.GET('/api/v1/campaigns/contact-lists', { params: { query: page } });
  return data!;
}

/**
 * Deletes an uploaded list and its rows now (campaigns created from it keep their contacts) and answers it as it was.
 * Deleting it again throws {@link SwitchboardApiError} 404 `not_found`.
 */
export async function deleteContactList(client: Client<paths>, id: string): Promise<ContactList> {
  const { data } = await client.DELETE('/api/v1/campaigns/contact-lists/{id}', { params: { path: { id } } });
  return data!.contact_list;
}
