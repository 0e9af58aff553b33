import { readFilters, readTimeBound } from '../../api/portal/listFilters';
import { csvField, csvRecord } from '../../api/portal/csv';
import { TIME_ZONES, timeZoneNamed } from '../../src/domain/workspaces/timeZone';
import { numberMatchOf, searchTermOf } from '../../src/domain/search/rules';

describe('find anything: what a search and a list filter read (issue 30, item 5)', () => {
  it('a search is an id, a number (whole or digits), or words', () => {
    const id = 'B1A2C3D4-0000-4000-8000-000000000001';
    expect(searchTermOf(`  ${id} `)).toEqual({ kind: 'id', id: id.toLowerCase() });
    expect(searchTermOf('+1 (415) 555-2671')).toEqual({ kind: 'number', number: { e164: '+14155552671' } });
    // Without its `+` a number could be any country's: searched as the digits it contains.
    expect(searchTermOf('415.555.2671')).toEqual({ kind: 'number', number: { digits: '4155552671' } });
    expect(searchTermOf('2671')).toEqual({ kind: 'number', number: { digits: '2671' } });
    // Too few digits, or not a number at all, are words (a line's name).
    expect(searchTermOf('267')).toEqual({ kind: 'words', text: '267' });
    expect(searchTermOf('Front desk')).toEqual({ kind: 'words', text: 'Front desk' });
    expect(searchTermOf('   ')).toBeUndefined();
    // A `+` and digits that are no possible number: still digits, never a wildcard.
    expect(numberMatchOf('+0000')).toEqual({ digits: '0000' });
    expect(numberMatchOf('12%4')).toBeUndefined();
  });

  it('a time bound covers its whole unit and is shown as its picker shows it', () => {
    expect(readTimeBound('2026-11-28', 'from')).toEqual({
      at: new Date('2026-11-28T00:00:00Z'),
      unitMs: 86_400_000,
      picker: '2026-11-28T00:00',
    });
    expect(readTimeBound('2026-11-28', 'to')).toMatchObject({ picker: '2026-11-28T23:59' });
    expect(readTimeBound('2026-11-28T09:30', 'to')).toEqual({
      at: new Date('2026-11-28T09:30:00Z'),
      unitMs: 60_000,
      picker: '2026-11-28T09:30',
    });
    expect(readTimeBound('2026-11-28T09:30:15', 'from')).toMatchObject({ unitMs: 1_000 });
    expect(readTimeBound('2026-11-28T10:30:00+01:00', 'from')).toEqual({
      at: new Date('2026-11-28T09:30:00Z'),
      unitMs: 1,
      picker: '2026-11-28T09:30:00',
    });
    for (const bad of ['2026-02-30', '2026-11-28T24:00', 'yesterday', '1732780800']) expect(readTimeBound(bad, 'from')).toBeUndefined();
  });

  it('filters: each value checked by its rule, to exclusive at the end of its unit, from after to refused', () => {
    const rules = { status: { oneOf: ['a', 'b'] }, id: 'uuid', number: 'number', from: 'from', to: 'to' } as const;
    const ok = readFilters({ status: 'a', from: '2026-11-28', to: '2026-11-28' }, rules);
    expect(ok.error).toBeUndefined();
    expect(ok.range).toEqual({ from: new Date('2026-11-28T00:00:00Z'), before: new Date('2026-11-29T00:00:00Z') });
    expect(ok.values).toEqual({ status: 'a', id: '', number: '', from: '2026-11-28T00:00', to: '2026-11-28T23:59' });
    const bad = readFilters({ status: 'c', id: '1', number: '12', from: 'x', to: ['2026-11-28', '2026-11-29'] }, rules);
    expect(bad.error?.details?.map((detail) => detail.field)).toEqual(['status', 'id', 'number', 'from']);
    expect(bad.values.status).toBe('c');
    expect(readFilters({ from: '2026-11-29', to: '2026-11-28' }, rules).error?.details).toEqual([
      { field: 'to', message: 'Must not be before from' },
    ]);
  });
});

describe('CSV fields (RFC 4180, OWASP CSV injection)', () => {
  it('quotes what needs it, doubles quotes, and makes a would-be formula text', () => {
    expect(csvRecord(['plain', 42, -7, null, undefined, ''])).toBe('plain,42,-7,,,\r\n');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    for (const start of ['=', '+', '-', '@', '\t', '\r'])
      expect(csvField(`${start}1+1`).startsWith(`'${start}`) || csvField(`${start}1+1`).startsWith(`"'${start}`)).toBe(true);
    expect(csvField('=1,2')).toBe(`"'=1,2"`);
    expect(csvField('+14155552671')).toBe(`'+14155552671`);
  });
});

describe('a workspace time zone', () => {
  it('is an IANA name the runtime knows: listed, an alias kept as chosen, a case variant spelt as listed', () => {
    expect(TIME_ZONES[0]).toBe('UTC');
    expect(timeZoneNamed('Europe/Berlin')).toBe('Europe/Berlin');
    expect(timeZoneNamed('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(timeZoneNamed('utc')).toBe('UTC');
    for (const bad of ['Mars/Olympus_Mons', 'GMT+5', '+05:30', '', 'Europe/Berlin; drop table']) expect(timeZoneNamed(bad)).toBeUndefined();
  });
});
