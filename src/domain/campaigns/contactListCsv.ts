import { parse, type CsvError } from 'csv-parse';
import {
  MAX_METADATA_KEYS,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_VALUE_LENGTH,
  MAX_VARIABLES,
  MAX_VARIABLE_VALUE_LENGTH,
  METADATA_KEY_PATTERN,
  VARIABLE_NAME_PATTERN,
} from '../calls/personalization';
import type { NewCampaignContact } from './contacts';
import { MAX_CONTACTS, MAX_TO_NUMBER_LENGTH, type SettingsProblem } from './rules';

/**
 * A campaign's contact list as CSV (RFC 4180; docs/decisions/campaigns.md "Contact lists uploaded as CSV"), read as
 * it streams in: the first record is the header; `phone_number` is the number to call, `metadata.<key>` columns
 * are the contact's metadata and every other column is a variable of that name. An empty cell gives no value.
 * Problems are named as request fields: `columns.<n>` (1-based) for the header, `rows.<n>.<column>` for a data
 * row, numbered from 1 as the campaign's results number them (blank lines do not count); each message adds the
 * file's line. At most `MAX_LISTED_PROBLEMS` are listed, then one saying how many more there are.
 */

export const PHONE_COLUMN = 'phone_number';
export const METADATA_COLUMN_PREFIX = 'metadata.';
export const MAX_LISTED_PROBLEMS = 50;
/** The longest record: every variable and metadata value at its longest, with quotes and commas. */
export const MAX_RECORD_CHARS = 128 * 1024;

export interface ContactListCsv {
  /** The header as written (trimmed). */
  columns: string[];
  contacts: NewCampaignContact[];
}

export type ContactListReading = { ok: true; list: ContactListCsv } | { ok: false; problems: SettingsProblem[] };

type Column = { kind: 'phone' } | { kind: 'variable'; name: string } | { kind: 'metadata'; key: string };

const VARIABLE_NAME = new RegExp(VARIABLE_NAME_PATTERN);
const METADATA_KEY = new RegExp(METADATA_KEY_PATTERN);

/** What each header name means, or the header's problems. */
export function readHeader(names: string[]): { ok: true; columns: Column[] } | { ok: false; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  const seen = new Set<string>();
  const columns = names.map((name, index): Column => {
    const field = `columns.${index + 1}`;
    if (name === '') problems.push({ field, message: 'A column needs a name in the header (line 1)' });
    else if (seen.has(name)) {
      problems.push({ field, message: `"${name}" names two columns` });
      return { kind: 'variable', name };
    }
    seen.add(name);
    if (name === PHONE_COLUMN) return { kind: 'phone' };
    if (name.startsWith(METADATA_COLUMN_PREFIX)) {
      const key = name.slice(METADATA_COLUMN_PREFIX.length);
      if (!METADATA_KEY.test(key) || key.length > MAX_METADATA_KEY_LENGTH)
        problems.push({ field, message: `A metadata key has 1-${MAX_METADATA_KEY_LENGTH} characters and no square brackets: "${name}"` });
      return { kind: 'metadata', key };
    }
    if (name !== '' && !VARIABLE_NAME.test(name))
      problems.push({
        field,
        message: `"${name}" is neither ${PHONE_COLUMN}, metadata.<key> nor a variable name (a letter or _, then letters, digits or _, at most 64)`,
      });
    return { kind: 'variable', name };
  });
  if (!seen.has(PHONE_COLUMN)) problems.push({ field: 'columns', message: `The header needs a ${PHONE_COLUMN} column` });
  const count = (kind: Column['kind']) => columns.filter((column) => column.kind === kind).length;
  if (count('variable') > MAX_VARIABLES) problems.push({ field: 'columns', message: `At most ${MAX_VARIABLES} variable columns` });
  if (count('metadata') > MAX_METADATA_KEYS) problems.push({ field: 'columns', message: `At most ${MAX_METADATA_KEYS} metadata columns` });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, columns };
}

/** Why the parser stopped, in words a person fixing the file can act on. */
function malformed(error: CsvError): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'A quoted field is not closed before the end of the file';
    case 'INVALID_OPENING_QUOTE':
      return 'A quote inside an unquoted field: quote the whole field and double the quotes inside it ("say ""hi""")';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return 'Text after a closing quote: a quoted field ends at a comma or the end of its line';
    case 'CSV_MAX_RECORD_SIZE':
      return `A row longer than ${MAX_RECORD_CHARS} characters`;
    default:
      return 'Not valid CSV (RFC 4180)';
  }
}

class Problems {
  readonly listed: SettingsProblem[] = [];
  private unlisted = 0;
  add(field: string, message: string, line: number): void {
    if (this.listed.length < MAX_LISTED_PROBLEMS) this.listed.push({ field, message: `${message} (line ${line})` });
    else this.unlisted += 1;
  }
  get any(): boolean {
    return this.listed.length > 0;
  }
  all(): SettingsProblem[] {
    return this.unlisted === 0
      ? this.listed
      : [...this.listed, { field: 'rows', message: `And ${this.unlisted} more problems not listed: fix these and upload again` }];
  }
}

/** The contact of one data row, or its problems added to `problems`. */
function contactOf(columns: Column[], cells: string[], row: number, line: number, problems: Problems): NewCampaignContact | null {
  const field = `rows.${row}`;
  if (cells.length !== columns.length) {
    problems.add(field, `Has ${cells.length} fields; the header has ${columns.length}`, line);
    return null;
  }
  let toNumber = '';
  const variables: Record<string, string> = {};
  const metadata: Record<string, string> = {};
  let ok = true;
  const refuse = (name: string, message: string) => {
    problems.add(`${field}.${name}`, message, line);
    ok = false;
  };
  columns.forEach((column, index) => {
    const cell = cells[index];
    const name = column.kind === 'phone' ? PHONE_COLUMN : column.kind === 'variable' ? column.name : `metadata.${column.key}`;
    if (cell.includes('\u0000')) return refuse(name, 'Must not contain the NUL character (U+0000)');
    if (column.kind === 'phone') {
      toNumber = cell.trim();
      if (toNumber === '') refuse(name, 'Required: the number to call');
      else if (toNumber.length > MAX_TO_NUMBER_LENGTH) refuse(name, `At most ${MAX_TO_NUMBER_LENGTH} characters`);
    } else if (cell === '') return;
    else if (column.kind === 'variable') {
      if (cell.length > MAX_VARIABLE_VALUE_LENGTH) refuse(name, `At most ${MAX_VARIABLE_VALUE_LENGTH} characters`);
      variables[column.name] = cell;
    } else {
      if (cell.length > MAX_METADATA_VALUE_LENGTH) refuse(name, `At most ${MAX_METADATA_VALUE_LENGTH} characters`);
      metadata[column.key] = cell;
    }
  });
  if (!ok) return null;
  return {
    toNumber,
    ...(Object.keys(variables).length > 0 ? { variables } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/**
 * Reads a contact list from its text, chunk by chunk as it arrives (a BOM, CRLF or LF, quoted fields with
 * commas, quotes and line breaks), holding only the contacts read so far. Stops at the first malformed
 * record (what follows cannot be read reliably) and past `MAX_CONTACTS` rows.
 */
export async function readContactListCsv(text: AsyncIterable<string>): Promise<ContactListReading> {
  const problems = new Problems();
  const contacts: NewCampaignContact[] = [];
  let header: string[] | undefined;
  let columns: Column[] | undefined;
  let rows = 0;
  let stop: SettingsProblem[] | undefined;
  let failure: CsvError | undefined;
  const parser = parse({
    bom: true,
    // CRLF (RFC 4180), LF and a lone CR (older spreadsheets), even mixed in one file.
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_CHARS,
    // Each record is handled as it is parsed, and none is kept by the parser.
    on_record: (cells: string[], context) => {
      if (stop) return undefined;
      if (!header) {
        header = cells.map((name) => name.trim());
        const read = readHeader(header);
        if (read.ok) columns = read.columns;
        else stop = read.problems;
        return undefined;
      }
      rows += 1;
      if (rows > MAX_CONTACTS) {
        stop = [{ field: 'rows', message: `At most ${MAX_CONTACTS} rows (contacts) in one list` }];
        return undefined;
      }
      const contact = contactOf(columns!, cells, rows, context.lines, problems);
      if (contact && !problems.any) contacts.push(contact);
      return undefined;
    },
  });
  parser.on('error', (err: CsvError) => (failure ??= err));
  // Listening from the start: a parser that failed on the last chunk has closed by the time the loop ends.
  const done = new Promise<void>((resolve) => parser.once('close', resolve).once('end', resolve));
  parser.resume();
  for await (const chunk of text) {
    parser.write(chunk);
    if (stop || failure) break;
  }
  if (!stop) {
    if (!parser.destroyed) parser.end();
    await done;
  }
  if (stop) return { ok: false, problems: stop };
  if (failure) {
    problems.add(header ? `rows.${rows + 1}` : 'columns', malformed(failure), Number(failure.lines ?? 1));
    return { ok: false, problems: problems.all() };
  }
  if (!header)
    return { ok: false, problems: [{ field: 'body', message: `Empty: the first line is the header, with a ${PHONE_COLUMN} column` }] };
  if (problems.any) return { ok: false, problems: problems.all() };
  if (rows === 0) return { ok: false, problems: [{ field: 'rows', message: 'No contacts: the file has a header and no rows' }] };
  return { ok: true, list: { columns: header, contacts } };
}
