import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { METADATA_COLUMN_PREFIX, PHONE_COLUMN } from '../../src/domain/campaigns/contactListCsv';
import { CONTACT_LIST_TTL_DAYS, MAX_CONTACTS, WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE } from '../../src/domain/campaigns/rules';
import type { ToolSpec } from './catalogue';

/**
 * The campaign tools (issue 31, item 2: campaigns "in MCP"): an agent creates a campaign, reads where it stands and its
 * per-contact results, and pauses, resumes or cancels it, through the `/api/v1/campaigns` operations. Their words here;
 * their schemas are the operations' (api/mcp/tools.ts).
 */

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
/** Pause and resume: the same request again changes nothing; nobody is called or hung up on by it. */
const CONTROL: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const CAMPAIGN_ID = "The campaign's id (`id` of a campaign from create_campaign or list_campaigns)";

/** What a campaign tool's refusals mean, where the shared words (catalogue.ts REFUSALS) are about something else. */
const CAMPAIGN_REFUSALS: ToolSpec['refusalWords'] = { not_found: 'no such campaign is visible to you: check the id (list_campaigns)' };

const CREATE_ARGUMENTS: Record<string, string> = {
  name: 'A name for the campaign, shown in lists (optional)',
  line_ids:
    'The lines whose numbers place the calls (ids from list_lines; 1 to 50). A line carries one call at a time, so more lines call more people at once',
  contacts:
    'The people to call, in order: each `{to_number}` in E.164 form, with optional `variables` (values for the {{name}} placeholders of the texts) and `metadata` (echoed in results). ' +
    'A number that is not a phone number, or repeats an earlier one, is skipped and reported, not refused. Give contacts or contact_list_id, not both',
  contact_list_id: `The contact list’s id, instead of contacts: a CSV list from upload_contact_list (or uploaded through the API), usable for ${CONTACT_LIST_TTL_DAYS} days`,
  topic: 'Make each call a hosted conversation about this topic (Switchboard’s AI talks); without it each line answers as its mode decides',
  begin_message: 'With topic: what the AI says first on each call (optional)',
  max_duration_seconds: 'With topic: the longest each conversation may last, in seconds',
  answering_machine:
    'What to do when a machine answers: `{action: "hang_up"}`, or `{action: "voicemail", voicemail_message}` to leave that message. Leave out to treat a machine like a person',
  start_at: 'When to start calling, as an ISO 8601 date-time (default: now)',
  max_concurrency: 'How many calls at once, at most the number of line_ids (default: all of them)',
  calls_per_minute: `How many calls to start per minute (default 60; the workspace's campaigns together at most ${WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE})`,
  retry:
    'Calling a contact again: `max_attempts` (1-10, default 1: no retry), `backoff_seconds` between attempts (default 600), and `on`: which outcomes are retried (busy, no_answer, failed; default all)',
};

const CONTACT_LIST_ID = 'The contact list’s id (`id` from upload_contact_list or list_contact_lists)';
const CONTACT_LIST_REFUSALS: ToolSpec['refusalWords'] = {
  not_found: `no such contact list is visible to you: check the id (list_contact_lists); a list is deleted ${CONTACT_LIST_TTL_DAYS} days after its upload`,
};

/**
 * The contact-list tools (issue 31): an agent uploads a list as CSV text through the upload operation itself (the same
 * reader and use case as the HTTP upload), and reads and lists lists. No tool deletes one: no MCP tool deletes a
 * resource (a line's release, a key's revocation, a consent's revocation are the API's and the portal's), and a list
 * expires on its own; an operator deletes one early through the API.
 */
const CONTACT_LIST_TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'upload_contact_list',
    operationId: 'uploadCampaignContactList',
    title: 'Upload a campaign’s contact list (CSV)',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    use:
      'Records a list of people to call as CSV text and answers its id, which create_campaign takes as contact_list_id (instead of contacts). ' +
      `Use it for a list longer than a few hundred people or one kept as a spreadsheet; nobody is called until create_campaign. The list is deleted ${CONTACT_LIST_TTL_DAYS} days after its upload. ` +
      'Its `skipped` counts say how many rows will be skipped (numbers that are not phone numbers, or repeat an earlier row’s). ' +
      'The whole tool call, the CSV text included, must fit this server’s request limit (MAX_BODY_BYTES, 1 MiB by default); ' +
      `a longer list (up to ${MAX_CONTACTS} rows) is uploaded through the HTTP API’s contact-list upload (up to 16 MiB), and its id works here the same. ` +
      'A list with problems is refused with `validation_error`, each detail naming `rows.<n>.<column>` (the n-th data row, from 1) or `columns.<n>`: fix those rows and upload again.',
    refusals: ['idempotency_key_reused'],
    arguments: {
      csv:
        `The file’s text: a header line naming \`${PHONE_COLUMN}\` (required) and other columns, then one line per person. A \`${METADATA_COLUMN_PREFIX}<key>\` column is ` +
        'metadata echoed in results; any other column is a variable filling the {{name}} placeholders of the calls’ texts. Quote a cell that holds a comma ' +
        '("Tuesday, 9:00"). Example: "phone_number,first_name\\n+14155550123,Ada\\n"',
    },
  },
  {
    name: 'list_contact_lists',
    operationId: 'listCampaignContactLists',
    title: 'List uploaded contact lists',
    annotations: READ,
    use: 'Lists the contact lists uploaded in the last 7 days that were not deleted, newest first, each with its row count, columns and skipped counts.',
  },
  {
    name: 'get_contact_list',
    operationId: 'getCampaignContactList',
    title: 'Get an uploaded contact list',
    annotations: READ,
    use: 'Shows one uploaded contact list: its row count, columns, how many rows will be skipped, and when it expires.',
    refusals: ['not_found'],
    refusalWords: CONTACT_LIST_REFUSALS,
    arguments: { id: CONTACT_LIST_ID },
  },
];

export const CAMPAIGN_TOOL_SPECS: readonly ToolSpec[] = [
  ...CONTACT_LIST_TOOL_SPECS,
  {
    name: 'create_campaign',
    operationId: 'createCampaign',
    title: 'Create a calling campaign',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    use:
      'Calls a list of people from a pool of your lines, paced and retried, as one durable process that keeps going without you. ' +
      'Use it instead of place_call in a loop whenever more than a few people are to be called with the same purpose. ' +
      'It answers at once with the campaign `scheduled`; follow it with get_campaign (progress) and get_campaign_results (each contact’s outcome). ' +
      'Contacts who opted out, lack required consent or are outside calling hours are skipped or wait, and are reported in the results.',
    refusals: ['not_found', 'idempotency_key_reused'],
    refusalWords: { not_found: 'a line in line_ids is not visible to you: check the ids (list_lines)' },
    arguments: CREATE_ARGUMENTS,
  },
  {
    name: 'list_campaigns',
    operationId: 'listCampaigns',
    title: 'List calling campaigns',
    annotations: READ,
    use: 'Lists your campaigns, newest first, each with its status and progress (contacts pending, dialing, done, and the done ones by outcome).',
  },
  {
    name: 'get_campaign',
    operationId: 'getCampaign',
    title: 'Get a calling campaign and its progress',
    annotations: READ,
    use:
      'Shows one campaign as it stands: its status (and `paused_reason` when it paused itself, e.g. for insufficient credits), its settings, and its progress. ' +
      'To see who was reached, use get_campaign_results.',
    refusals: ['not_found'],
    refusalWords: CAMPAIGN_REFUSALS,
    arguments: { id: CAMPAIGN_ID },
  },
  {
    name: 'get_campaign_results',
    operationId: 'listCampaignResults',
    title: 'Get a campaign’s per-contact results',
    annotations: READ,
    use:
      'Lists each contact of a campaign in list order with its status, outcome (answered, voicemail, machine, busy, no_answer, failed, skipped, cancelled), ' +
      'skip reason, attempts, duration, charge and call ids (get_call reads a call’s transcript). Readable while the campaign runs.',
    refusals: ['not_found'],
    refusalWords: CAMPAIGN_REFUSALS,
    arguments: { id: CAMPAIGN_ID, limit: 'How many contacts to return (at most 100)' },
  },
  {
    name: 'pause_campaign',
    operationId: 'pauseCampaign',
    title: 'Pause a calling campaign',
    annotations: CONTROL,
    use: 'Stops a campaign from starting new calls; calls in progress go on to their end. resume_campaign carries on where it stopped.',
    refusals: ['not_found', 'campaign_ended'],
    refusalWords: CAMPAIGN_REFUSALS,
    arguments: { id: CAMPAIGN_ID },
  },
  {
    name: 'resume_campaign',
    operationId: 'resumeCampaign',
    title: 'Resume a paused calling campaign',
    annotations: { ...CONTROL, openWorldHint: true },
    use: 'Lets a paused campaign call again, also one that paused itself (funds and lines are checked again at its next call: if they still lack, it pauses again).',
    refusals: ['not_found', 'campaign_ended'],
    refusalWords: CAMPAIGN_REFUSALS,
    arguments: { id: CAMPAIGN_ID },
  },
  {
    name: 'cancel_campaign',
    operationId: 'cancelCampaign',
    title: 'Cancel a calling campaign',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    use:
      'Ends a campaign for good: contacts still waiting are recorded as cancelled and never called; calls in progress go on to their end. ' +
      'It cannot be undone: to stop for a while, use pause_campaign.',
    refusals: ['not_found', 'campaign_ended'],
    refusalWords: CAMPAIGN_REFUSALS,
    arguments: { id: CAMPAIGN_ID },
  },
];
