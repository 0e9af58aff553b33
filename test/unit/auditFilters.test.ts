import { auditFiltersOf } from '../../api/auditFilters';
import { INVALID_PHONE_MESSAGE } from '../../api/phoneField';

/** The audit's phone and time filters, parsed once for the API and the portal (issue 28). */
describe('auditFiltersOf', () => {
  it('reads a phone number as E.164 and a date as 00:00 UTC, a date-time as given', () => {
    expect(auditFiltersOf({ phone_number: '+1 415 555 0123', from: '2026-11-01', to: '2026-11-02T10:00:00+02:00' })).toEqual({
      filters: { phoneNumber: '+14155550123', from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-02T08:00:00Z') },
      problems: [],
    });
  });

  it('filters nothing on empty fields', () => {
    expect(auditFiltersOf({ phone_number: '', from: '', to: undefined })).toEqual({ filters: {}, problems: [] });
  });

  it('names every field that does not parse, in the order phone, from, to', () => {
    expect(auditFiltersOf({ phone_number: 'call me', from: 'yesterday', to: '2026-13-01' }).problems).toEqual([
      { field: 'phone_number', message: INVALID_PHONE_MESSAGE },
      { field: 'from', message: 'Must be a date (YYYY-MM-DD) or an RFC 3339 date-time' },
      { field: 'to', message: 'Must be a date (YYYY-MM-DD) or an RFC 3339 date-time' },
    ]);
  });
});
