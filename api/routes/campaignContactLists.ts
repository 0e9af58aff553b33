import { principalOf, type AppContext, type AppDeps } from '../context';
import { errorResponse, fields, jsonResponse, ref } from '../openapi/schemas';
import type { RouteDef } from '../routeTable';
import { MAX_LISTED_PROBLEMS, METADATA_COLUMN_PREFIX, PHONE_COLUMN } from '../../src/domain/campaigns/contactListCsv';
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
          'a list may start several campaigns. The same file sent again with the same `Idempotency-Key` answers the same list.',
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
  ];
}
