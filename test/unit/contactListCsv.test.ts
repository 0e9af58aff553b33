import { MAX_LISTED_PROBLEMS, readContactListCsv, readHeader } from '../../src/domain/campaigns/contactListCsv';
import { countUploadSkips, prepareContacts } from '../../src/domain/campaigns/contacts';
import { MAX_CONTACTS } from '../../src/domain/campaigns/rules';

/** The text in chunks of `size` characters, as a request streams in. */
async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
}
const read = (text: string, size = 7) => readContactListCsv(chunked(text, size));

describe('a contact list read from CSV (RFC 4180)', () => {
  it('reads quoted cells, a BOM, CRLF, LF and CR line ends across any chunking; an empty cell gives no value; blank lines are not rows', async () => {
    const text =
      '\ufeffphone_number,first_name,note,metadata.ref\r\n' +
      '+14155550100,"Ada, L.","said ""hi""\r\ntwice",r-1\r\n' +
      '\r\n' +
      ' +14155550101 ,Grace,,\n' +
      '+14155550102,Lin,,\r';
    for (const size of [1, 3, 7, text.length]) {
      expect(await read(text, size)).toEqual({
        ok: true,
        list: {
          columns: ['phone_number', 'first_name', 'note', 'metadata.ref'],
          contacts: [
            { toNumber: '+14155550100', variables: { first_name: 'Ada, L.', note: 'said "hi"\r\ntwice' }, metadata: { ref: 'r-1' } },
            { toNumber: '+14155550101', variables: { first_name: 'Grace' } },
            { toNumber: '+14155550102', variables: { first_name: 'Lin' } },
          ],
        },
      });
    }
  });

  it('names each header problem by its column, from 1', () => {
    expect(readHeader(['phone_number', '', 'first-name', 'phone_number', 'metadata.', 'metadata.a[b]'])).toEqual({
      ok: false,
      problems: [
        { field: 'columns.2', message: expect.stringContaining('needs a name') },
        { field: 'columns.3', message: expect.stringContaining('"first-name" is neither') },
        { field: 'columns.4', message: '"phone_number" names two columns' },
        { field: 'columns.5', message: expect.stringContaining('metadata key') },
        { field: 'columns.6', message: expect.stringContaining('metadata key') },
      ],
    });
    expect(readHeader(['name'])).toMatchObject({
      ok: false,
      problems: [{ field: 'columns', message: expect.stringContaining('phone_number') }],
    });
    const wide = ['phone_number', ...Array.from({ length: 51 }, (_, i) => `v${i}`)];
    expect(readHeader(wide)).toMatchObject({ ok: false, problems: [{ field: 'columns', message: 'At most 50 variable columns' }] });
  });

  it('lists at most 50 problems, then how many more; the row numbers skip blank lines, the messages give the line', async () => {
    const text = `phone_number,name\n\n${',x\n'.repeat(MAX_LISTED_PROBLEMS + 5)}`;
    const reading = await read(text);
    expect(reading.ok).toBe(false);
    if (reading.ok) return;
    expect(reading.problems).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(reading.problems[0]).toEqual({ field: 'rows.1.phone_number', message: 'Required: the number to call (line 3)' });
    expect(reading.problems[MAX_LISTED_PROBLEMS]).toEqual({ field: 'rows', message: expect.stringMatching(/^And 5 more problems/) });
  });

  it('stops at a malformed record, naming its row', async () => {
    expect(await read('phone_number,name\n+14155550100,a\n+14155550101,b"c\n+14155550102,d\n')).toEqual({
      ok: false,
      problems: [{ field: 'rows.2', message: expect.stringMatching(/^A quote inside an unquoted field.*\(line 3\)$/) }],
    });
    expect(await read('phone_number,name\n+14155550100,"a" b\n')).toMatchObject({
      ok: false,
      problems: [{ field: 'rows.1', message: expect.stringMatching(/^Text after a closing quote/) }],
    });
  });

  it(`refuses a list past ${MAX_CONTACTS} rows without reading on`, async () => {
    const text = `phone_number\n${'+14155550100\n'.repeat(MAX_CONTACTS + 1)}`;
    expect(await read(text, 64 * 1024)).toEqual({
      ok: false,
      problems: [{ field: 'rows', message: `At most ${MAX_CONTACTS} rows (contacts) in one list` }],
    });
  });

  it('skips, as a JSON list does, a number that is not one and a number already listed', () => {
    expect(
      prepareContacts([{ toNumber: '+1 415 555 0100' }, { toNumber: 'call me' }, { toNumber: '+14155550100', variables: {} }]),
    ).toEqual([
      { row: 1, toNumber: '+14155550100', variables: null, metadata: null, skip: null },
      { row: 2, toNumber: 'call me', variables: null, metadata: null, skip: 'invalid_number' },
      { row: 3, toNumber: '+14155550100', variables: null, metadata: null, skip: 'duplicate_number' },
    ]);
  });

  it('counts the rows to be skipped by reason (a list’s `skipped`): a number repeating an invalid one is invalid, not a duplicate', () => {
    const contacts = prepareContacts(
      ['+14155550100', 'call me', '+1 415 555 0100', 'call me', '+14155550101', '(415) 555-0101', '+14155550101'].map((toNumber) => ({
        toNumber,
      })),
    );
    expect(countUploadSkips(contacts)).toEqual({ invalidNumber: 3, duplicateNumber: 2 });
    expect(countUploadSkips([])).toEqual({ invalidNumber: 0, duplicateNumber: 0 });
  });
});
