import type { Db } from '../../platform/db/knex';
import type { BillingTenant } from '../billing/ledger';
import { callsOfTenant, callsSaying, filteredCallsOf, type CallRow } from '../calls/store';
import { findLine, linesMatching, type LineRow, type Tenant } from '../lines/store';
import { messagesOf, messagesWithNumber, type MessageRow } from '../messages/store';
import { deliveryNamedBy } from '../webhooks/store';
import { searchTermOf, type SearchTerm } from './rules';

/** How many of each kind a search lists (the lists' own pages, linked from the results, show the rest). */
export const SEARCH_LISTED = 20;

/**
 * What a search found. One thing an id names is opened directly; a number lists the calls, messages and lines
 * with it; words list the lines named so and the calls whose transcript says them; `nothing` says so. Every read is scoped to the tenant: another workspace's
 * id finds nothing, exactly as an id that names nothing.
 */
export type SearchResult =
  | { found: 'call'; callId: string }
  | { found: 'delivery'; deliveryId: string; matched: 'delivery' | 'event' }
  | { found: 'line'; lineId: string }
  | { found: 'message'; lineId: string; remoteNumber: string }
  | { found: 'list'; term: SearchTerm; calls: CallRow[]; messages: MessageRow[]; lines: LineRow[] }
  | { found: 'nothing'; term: SearchTerm | undefined };

/** Finds what the portal's search box names in the tenant (`searchTermOf` reads what was typed). */
export async function search(db: Db, tenant: Tenant & BillingTenant, input: string): Promise<SearchResult> {
  const term = searchTermOf(input);
  if (!term) return { found: 'nothing', term };
  if (term.kind === 'id') return (await byId(db, tenant, term.id)) ?? { found: 'nothing', term };
  const [calls, messages, lines] =
    term.kind === 'number'
      ? await Promise.all([
          newestFirst(filteredCallsOf(db, tenant, { number: term.number })),
          messagesWithNumber(db, tenant, term.number, SEARCH_LISTED),
          linesMatching(db, tenant, { number: term.number }, SEARCH_LISTED),
        ])
      : [await callsSaying(db, tenant, term.text, SEARCH_LISTED), [], await linesMatching(db, tenant, { name: term.text }, SEARCH_LISTED)];
  if (calls.length + messages.length + lines.length === 0) return { found: 'nothing', term };
  return { found: 'list', term, calls, messages, lines };
}

/** The call, delivery attempt, event, line or message with this id, in that order (ids are random UUIDs: at most one matches). */
async function byId(db: Db, tenant: Tenant, id: string): Promise<SearchResult | undefined> {
  const call = await callsOfTenant(db, tenant).where({ id }).first('id');
  if (call) return { found: 'call', callId: call.id };
  const delivery = await deliveryNamedBy(db, tenant, id);
  if (delivery) return { found: 'delivery', deliveryId: delivery.id, matched: delivery.matched };
  const line = await findLine(db, tenant, id);
  if (line) return { found: 'line', lineId: line.id };
  const message = await messagesOf(db, tenant).where({ id }).first('line_id', 'remote_number');
  if (message) return { found: 'message', lineId: message.line_id, remoteNumber: message.remote_number };
  return undefined;
}

function newestFirst(query: ReturnType<typeof filteredCallsOf>): Promise<CallRow[]> {
  return query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(SEARCH_LISTED);
}
