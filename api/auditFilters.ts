import { parseDateOrDateTime } from './openapi/formats';
import { INVALID_PHONE_MESSAGE } from './phoneField';
import type { AuditFilters } from '../src/domain/compliance/auditLog';
import { toE164 } from '../src/platform/phone';

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * The compliance audit's phone and time filters from a query's text (the API's `GET /compliance/audit` and the portal's
 * audit page alike): a phone number as E.164, `from`/`to` as a date (00:00 UTC) or an RFC 3339 date-time; each field
 * that does not parse is a problem. Empty fields filter nothing.
 */
export function auditFiltersOf(query: { phone_number?: string; from?: string; to?: string }): {
  filters: Pick<AuditFilters, 'phoneNumber' | 'from' | 'to'>;
  problems: FieldProblem[];
} {
  const filters: Pick<AuditFilters, 'phoneNumber' | 'from' | 'to'> = {};
  const problems: FieldProblem[] = [];
  if (query.phone_number) {
    const e164 = toE164(query.phone_number);
    if (e164) filters.phoneNumber = e164;
    else problems.push({ field: 'phone_number', message: INVALID_PHONE_MESSAGE });
  }
  for (const field of ['from', 'to'] as const) {
    if (!query[field]) continue;
    const at = parseDateOrDateTime(query[field]);
    if (at) filters[field] = at;
    else problems.push({ field, message: 'Must be a date (YYYY-MM-DD) or an RFC 3339 date-time' });
  }
  return { filters, problems };
}
