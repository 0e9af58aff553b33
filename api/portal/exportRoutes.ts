import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import type { CallRow } from '../../src/domain/calls/store';
import { USAGE_KINDS, usageRecordsOf } from '../../src/domain/billing/usage';
import { refuse } from './answer';
import { CALL_FILTERS, filteredCalls } from './callRoutes';
import { newestFirstInBatches, sendCsv, type CsvColumn } from './csv';
import { DELIVERY_FILTERS, filteredDeliveries } from './deliveryRoutes';
import { linesForFilter } from './lineChoices';
import { readFilters } from './listFilters';
import { getOperatorPage, navOf, tenantOf } from './operatorPages';
import { callsPage } from './pages/calls';
import { deliveriesPage, type DeliveryRow } from './pages/deliveries';

/**
 * CSV exports of calls, deliveries and usage (issue 30, item 5): the list's own filters and query, so
 * a download holds what the page lists (every page of it, up to CSV_MAX_ROWS), of the operator's
 * workspace and environment only. Times are UTC (RFC 3339), money integer cents. Every role reads them,
 * as every role reads the pages.
 */

const at = (value: Date | null) => (value ? value.toISOString() : null);
/** The newest-first order of an export: by creation (or occurrence) time, then id. */
const byCreation = { time: 'created_at', id: 'id', of: (row: { created_at: Date; id: string }) => ({ at: row.created_at, id: row.id }) };

const CALL_COLUMNS: Array<CsvColumn<CallRow>> = [
  { header: 'call_id', cell: (row) => row.id },
  { header: 'created_at', cell: (row) => at(row.created_at) },
  { header: 'line_id', cell: (row) => row.line_id },
  { header: 'direction', cell: (row) => row.direction },
  { header: 'from_number', cell: (row) => row.from_number },
  { header: 'to_number', cell: (row) => row.to_number },
  { header: 'status', cell: (row) => row.status },
  { header: 'end_cause', cell: (row) => row.end_cause },
  { header: 'started_at', cell: (row) => at(row.started_at) },
  { header: 'ended_at', cell: (row) => at(row.ended_at) },
  { header: 'duration_sec', cell: (row) => row.duration_sec },
  { header: 'charge_cents', cell: (row) => (row.charge_cents === null ? null : Number(row.charge_cents)) },
  { header: 'answered_by', cell: (row) => row.answered_by },
  { header: 'topic', cell: (row) => row.topic },
];

const DELIVERY_COLUMNS: Array<CsvColumn<DeliveryRow>> = [
  { header: 'delivery_id', cell: (row) => row.id },
  { header: 'event_id', cell: (row) => row.event_id },
  { header: 'created_at', cell: (row) => at(row.created_at) },
  { header: 'event_type', cell: (row) => row.event_type },
  { header: 'line_id', cell: (row) => row.line_id },
  { header: 'call_id', cell: (row) => row.call_id },
  { header: 'attempt', cell: (row) => row.attempt },
  { header: 'status', cell: (row) => row.status },
  { header: 'http_status', cell: (row) => row.http_status },
  { header: 'error', cell: (row) => row.error_message },
  { header: 'duration_ms', cell: (row) => row.duration_ms },
  { header: 'url', cell: (row) => row.url },
];

interface UsageRecordRow {
  id: string;
  occurred_at: Date;
  kind: string;
  line_id: string | null;
  seconds: number | null;
  cost_cents: string;
  reference: string;
}

const USAGE_COLUMNS: Array<CsvColumn<UsageRecordRow>> = [
  { header: 'occurred_at', cell: (row) => at(row.occurred_at) },
  { header: 'kind', cell: (row) => row.kind },
  { header: 'line_id', cell: (row) => row.line_id },
  { header: 'seconds', cell: (row) => row.seconds },
  { header: 'cost_cents', cell: (row) => Number(row.cost_cents) },
  { header: 'reference', cell: (row) => row.reference },
];

/** The usage export's filters: a line, a kind, a UTC time range. */
const USAGE_FILTERS = { line_id: 'uuid', kind: { oneOf: USAGE_KINDS }, from: 'from', to: 'to' } as const;

export function exportRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/calls.csv', deps, async (ctx, operator) => {
    const read = readFilters(ctx.query, CALL_FILTERS);
    if (read.error) {
      const lines = await linesForFilter(deps, operator);
      const nav = navOf(operator, '/portal/calls');
      return refuse(ctx, read.error, (error) => callsPage(nav, { filters: read.values, lines, calls: [], olderCursor: null, error }));
    }
    const rows = newestFirstInBatches<CallRow>(() => filteredCalls(deps, operator, read), byCreation);
    sendCsv(ctx, 'calls', operator.environment, CALL_COLUMNS, rows);
  });

  getOperatorPage(router, '/portal/deliveries.csv', deps, async (ctx, operator) => {
    const read = readFilters(ctx.query, DELIVERY_FILTERS);
    if (read.error) {
      const lines = await linesForFilter(deps, operator);
      const nav = navOf(operator, '/portal/deliveries');
      return refuse(ctx, read.error, (error) => deliveriesPage(nav, { filters: read.values, lines, rows: [], olderCursor: null, error }));
    }
    const rows = newestFirstInBatches<DeliveryRow>(() => filteredDeliveries(deps, operator, read).clearOrder(), byCreation);
    sendCsv(ctx, 'deliveries', operator.environment, DELIVERY_COLUMNS, rows);
  });

  getOperatorPage(router, '/portal/billing/usage.csv', deps, async (ctx, operator) => {
    const read = readFilters(ctx.query, USAGE_FILTERS);
    if (read.error) throw read.error;
    const { values, range } = read;
    const query = () =>
      usageRecordsOf(deps.db, tenantOf(operator), {
        lineId: values.line_id || undefined,
        kind: values.kind || undefined,
        occurredFrom: range.from,
        occurredBefore: range.before,
      });
    sendCsv(
      ctx,
      'usage',
      operator.environment,
      USAGE_COLUMNS,
      newestFirstInBatches<UsageRecordRow>(query, {
        time: 'occurred_at',
        id: 'id',
        of: (row) => ({ at: row.occurred_at, id: row.id }),
      }),
    );
  });
}
