import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError } from '../errors';
import { arrayOf, cursorFields, errorResponse, fields, jsonResponse, ref } from '../openapi/schemas';
import { cursorPaginationParams, newestFirstPage } from '../pagination';
import type { PathParameter, RouteDef } from '../routeTable';
import { MAX_LISTED_PROBLEMS, METADATA_COLUMN_PREFIX, PHONE_COLUMN } from '../../src/domain/campaigns/contactListCsv';
import { findLiveContactList, liveContactLists, type ContactListRow } from '../../src/domain/campaigns/contactListStore';
import { deleteContactList } from '../../src/domain/campaigns/deleteContactList';
import { toContactListRecord } from '../../src/domain/campaigns/records';
import { CONTACT_LIST_TTL_DAYS, MAX_CONTACTS } from '../../src/domain/campaigns/rules';
import { uploadContactList } from '../../src/domain/campaigns/uploadContactList';

/*
 * A campaign's contacts uploaded as CSV (issue 31 item 2; docs/decisions/campaigns.md "Contact lists uploaded as
 * CSV"): Stripe's two steps (`POST /v1/files`, then the file's id at the create), because 100,000 contacts do not
 * fit a JSON body's limit. The body is read as it streams in by api/middleware/csvUpload.ts.
 */

/** 100,000 rows with a number and a few short variables each take 5-10 MiB; `MAX_UPLOAD_BYTES` (16 MiB) caps it. */
export const CONTACT_LIST_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

async function postContactList(ctx: AppContext, deps: AppDeps): Promise<void> {
  const upload = ctx.state.upload;
  if (!upload) throw new Error('the contact-list route runs behind the CSV upload reader');
  const list = await uploadContactList({ ...deps, log: ctx.state.log }, principalOf(ctx), upload.list);
  ctx.status = 201;
  ctx.body = { contact_list: toContactListRecord(list) };
}

/*
 * Read, listed and deleted as a resource (docs/decisions/campaigns.md "Contact lists as a resource"): a list is the
 * workspace's and environment's, whatever key uploaded it (a campaign's creation takes any of them); one past its
 * `expires_at` is gone even before the hourly purge deletes it, as at a campaign's creation.
 */
const listNotFound = { code: 'not_found', message: 'Contact list not found' };
const listIdParam: PathParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  description: 'The list’s `id`, as its upload answered it',
  'x-not-found': listNotFound,
};
const notFound = () => new ApiError(404, listNotFound.code, listNotFound.message);

async function getContactList(ctx: AppContext, deps: AppDeps): Promise<void> {
  const list = await findLiveContactList(deps.db, principalOf(ctx), ctx.params.id, deps.now());
  if (!list) throw notFound();
  ctx.body = { contact_list: toContactListRecord(list) };
}

async function listContactLists(ctx: AppContext, deps: AppDeps): Promise<void> {
  const q = ctx.state.query as { limit: number; cursor?: string };
  const { page, has_more, next_cursor } = await newestFirstPage<ContactListRow>(
    liveContactLists(deps.db, principalOf(ctx), deps.now()),
    q.cursor,
    q.limit,
  );
  ctx.body = { contact_lists: page.map(toContactListRecord), has_more, next_cursor };
}

async function removeContactList(ctx: AppContext, deps: AppDeps): Promise<void> {
  const deleted = await deleteContactList({ ...deps, log: ctx.state.log }, principalOf(ctx), ctx.params.id);
  if (!deleted) throw notFound();
  ctx.body = { contact_list: toContactListRecord(deleted), deleted: true };
}

const description =
  `A CSV file (RFC 4180, UTF-8, a BOM and CRLF, LF or CR line ends allowed) whose first line is the header. \`${PHONE_COLUMN}\` (required) is the number ` +
  `to call; a \`${METADATA_COLUMN_PREFIX}<key>\` column is the contact’s metadata under that key; every other column is a variable of that name ` +
  '(a letter or _, then letters, digits or _) filling the `{{name}}` placeholders of the campaign’s texts. An empty cell gives no value. ' +
  `At most ${MAX_CONTACTS} rows; blank lines are ignored. A row whose number is not a phone number, or repeats an earlier row’s, is recorded ` +
  'at the campaign’s creation as a skipped contact (`invalid_number`, `duplicate_number`), not refused here.';

export function campaignContactListRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/campaigns/contact-lists',
      operationId: 'uploadCampaignContactList',
      auth: { kind: 'standard', scope: 'calls:create', verb: 'call' },
      rateLimit: 'campaigns.contact_lists',
      bodyLimitBytes: CONTACT_LIST_BODY_LIMIT_BYTES,
      upload: {
        mediaType: 'text/csv',
        description,
        example: 'phone_number,first_name,appointment,metadata.patient_id\r\n+14155550123,Ada,Tuesday 9:00,p-1042\r\n',
      },
      idempotency: { required: false },
      doc: {
        summary:
          'Upload a campaign’s contact list as CSV (up to 100,000 rows with per-contact variables), then create the campaign with its id',
        description:
          `Answers the list’s \`id\`, which \`POST /api/v1/campaigns\` takes as \`contact_list_id\` (instead of \`contacts\`) for ${CONTACT_LIST_TTL_DAYS} days; ` +
          'a list may start several campaigns, and is deleted with its rows at `expires_at` or earlier by `DELETE /api/v1/campaigns/contact-lists/{id}`. ' +
          'The same file sent again with the same `Idempotency-Key` answers the same list.',
        tags: ['campaigns'],
        responses: {
          '201': jsonResponse('`{contact_list}`', fields({ contact_list: ref('ContactList') })),
          '422': errorResponse(
            '`validation_error`: each problem names its place, `columns.<n>` (the header’s n-th column, from 1), `rows.<n>` or ' +
              '`rows.<n>.<column>` (the n-th data row, from 1, as the campaign’s results number contacts; the message gives the file’s line). ' +
              `At most ${MAX_LISTED_PROBLEMS} are listed, then one (\`rows\`) counting the others. Also \`body\` when the file is empty or not UTF-8.`,
          ),
        },
      },
      handler: postContactList,
    },
    {
      method: 'get',
      path: '/api/v1/campaigns/contact-lists',
      operationId: 'listCampaignContactLists',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'reads',
      doc: {
        summary: 'Uploaded contact lists that have not expired, newest first (cursor pagination)',
        description: 'The workspace’s lists in this environment, whichever key uploaded them: a deleted or expired list is not listed.',
        tags: ['campaigns'],
        parameters: cursorPaginationParams(),
        responses: {
          '200': jsonResponse(
            '`{contact_lists, has_more, next_cursor}`',
            fields({ contact_lists: arrayOf(ref('ContactList')), ...cursorFields }),
          ),
        },
      },
      handler: listContactLists,
    },
    {
      method: 'get',
      path: '/api/v1/campaigns/contact-lists/{id}',
      operationId: 'getCampaignContactList',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'reads',
      doc: {
        summary: 'An uploaded contact list, as its upload answered it',
        description: 'A list that was deleted, has expired, or is another workspace’s or environment’s is 404 `not_found` alike.',
        tags: ['campaigns'],
        parameters: [listIdParam],
        responses: {
          '200': jsonResponse('`{contact_list}`', fields({ contact_list: ref('ContactList') })),
          '404': errorResponse('`not_found`'),
        },
      },
      handler: getContactList,
    },
    {
      method: 'delete',
      path: '/api/v1/campaigns/contact-lists/{id}',
      operationId: 'deleteCampaignContactList',
      auth: { kind: 'standard', scope: 'calls:create', verb: 'call' },
      rateLimit: 'campaigns.contact_lists_delete',
      doc: {
        summary: 'Delete an uploaded contact list and its rows now, before its expiry',
        description:
          'For personal data that must go before the list expires. Campaigns already created from the list keep their contacts (each copied ' +
          'the rows); a campaign created afterwards cannot name it (422 `contact_list_id`, as an unknown id). Answers the list as it was, with ' +
          '`deleted: true`; deleting it again, or a list that expired or is another workspace’s, is 404 `not_found`. Records a ' +
          '`contact_list_deleted` compliance event (the key, the list’s id and row count).',
        tags: ['campaigns'],
        parameters: [listIdParam],
        responses: {
          '200': jsonResponse(
            '`{contact_list, deleted}`: the list as it was',
            fields({ contact_list: ref('ContactList'), deleted: { type: 'boolean', const: true } }),
          ),
          '404': errorResponse('`not_found`'),
        },
      },
      handler: removeContactList,
    },
  ];
}
