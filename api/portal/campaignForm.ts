import type { ErrorDetail } from '../errors';
import type { CreateBody } from '../routes/campaigns';
import { PHONE_COLUMN, readContactListCsv } from '../../src/domain/campaigns/contactListCsv';
import { RETRYABLE_OUTCOMES } from '../../src/domain/campaigns/rules';

/**
 * The portal's create-campaign form as the body of POST /api/v1/campaigns, so that the API's schema and use case judge
 * it as they judge the API's (docs/decisions/campaigns.md, "Campaigns in the portal and MCP"). A field left blank is
 * left out (the API's default applies); a number typed as something else is passed on as typed, for the schema to
 * name. Only the contacts are read here: a JSON list as the API takes it, a CSV with its header (read as an uploaded
 * contact list is, `readContactListCsv`: the same header rules and row problems), or one number a line.
 */

const WHOLE_NUMBER = /^-?[0-9]+$/;
/** What a browser's date-and-time picker posts (`2026-12-01T09:30`, seconds optional), read as UTC as the lists' filters are. */
const PICKER_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

function integerOrTyped(value: string): number | string {
  return WHOLE_NUMBER.test(value) ? Number(value) : value;
}

/**
 * The pasted contacts: a JSON list (`[{"to_number": …, "variables": {…}}]`), a CSV whose header names `phone_number`
 * (its other columns variables and `metadata.<key>`, as `POST /api/v1/campaigns/contact-lists` reads them), or one
 * number a line (blank lines skipped).
 */
async function contactsOf(text: string): Promise<{ contacts?: unknown; problems?: ErrorDetail[] }> {
  const trimmed = text.trim();
  if (
    trimmed
      .split(/\r?\n/, 1)[0]!
      .split(',')
      .some((name) => name.trim() === PHONE_COLUMN)
  ) {
    const read = await readContactListCsv(
      (async function* () {
        yield trimmed;
      })(),
    );
    if (!read.ok) return { problems: read.problems.map(({ field, message }) => ({ field: `contacts.${field}`, message })) };
    return {
      contacts: read.list.contacts.map(({ toNumber, variables, metadata }) => ({
        to_number: toNumber,
        ...(variables ? { variables } : {}),
        ...(metadata ? { metadata } : {}),
      })),
    };
  }
  // JSON starts a list or an object (an object is then refused by the schema: the API takes a list).
  if (!trimmed.startsWith('[') && !trimmed.startsWith('{'))
    return { contacts: trimmed.split(/\r?\n/).flatMap((line) => (line.trim() ? [{ to_number: line.trim() }] : [])) };
  try {
    return { contacts: JSON.parse(trimmed) };
  } catch (err) {
    return { problems: [{ field: 'contacts', message: `Not a JSON list: ${(err as Error).message}` }] };
  }
}

export async function campaignBodyOfForm(form: Record<string, string>): Promise<{ body?: CreateBody; problems: ErrorDetail[] }> {
  const typed = (name: string) => (form[name] ?? '').trim();
  const { contacts, problems } = await contactsOf(form.contacts ?? '');
  if (problems) return { problems };
  const optional = (name: string, value: unknown = typed(name)) => (typed(name) ? { [name]: value } : {});
  const startAt = typed('start_at');
  const retryOn = RETRYABLE_OUTCOMES.filter((outcome) => form[`retry_on.${outcome}`]);
  const retryTyped = typed('max_attempts') || typed('backoff_seconds') || retryOn.length < RETRYABLE_OUTCOMES.length;
  const action = typed('answering_machine');
  const body = {
    ...optional('name'),
    line_ids: Object.keys(form).flatMap((name) => (name.startsWith('line.') && form[name] ? [name.slice('line.'.length)] : [])),
    contacts,
    ...optional('topic'),
    ...optional('begin_message'),
    ...optional('max_duration_seconds', integerOrTyped(typed('max_duration_seconds'))),
    ...optional('start_at', PICKER_TIME.test(startAt) ? `${startAt}${startAt.length === 16 ? ':00' : ''}Z` : startAt),
    ...optional('calls_per_minute', integerOrTyped(typed('calls_per_minute'))),
    ...optional('max_concurrency', integerOrTyped(typed('max_concurrency'))),
    ...(retryTyped
      ? {
          retry: {
            ...optional('max_attempts', integerOrTyped(typed('max_attempts'))),
            ...optional('backoff_seconds', integerOrTyped(typed('backoff_seconds'))),
            on: retryOn,
          },
        }
      : {}),
    ...(form.machine_detection ? { machine_detection: 'detect' } : {}),
    // A message typed without its action is refused (the schema names the action), not dropped.
    ...(action || typed('voicemail_message')
      ? { answering_machine: { action, ...(typed('voicemail_message') ? { voicemail_message: typed('voicemail_message') } : {}) } }
      : {}),
  };
  // The schema decides whether it is one: the caller checks it before it is used as one.
  return { body: body as unknown as CreateBody, problems: [] };
}
