import type { AppDeps } from '../context';
import { linesOf } from '../../src/domain/lines/store';
import { tenantOf } from './operatorPages';
import type { Operator } from './visitor';

/** How many lines a list's "Line" filter offers (the newest). */
const LINES_LISTED = 200;

/** A line as a filter offers it: its name and number. */
export interface LineChoice {
  id: string;
  name: string;
  phoneNumber: string | null;
  /** Whether it can carry calls now (`active`): a campaign's pool offers only those. */
  status: string;
}

/** The operator's lines, newest first, for a list's "Line" filter (released lines included: their calls and deliveries stay). */
export async function linesForFilter(deps: AppDeps, operator: Operator): Promise<LineChoice[]> {
  const lines = await linesOf(deps.db, tenantOf(operator)).orderBy('created_at', 'desc').limit(LINES_LISTED);
  return lines.map((line) => ({ id: line.id, name: line.name, phoneNumber: line.phone_number, status: line.status }));
}

/** The operator's lines among `ids` (a campaign's pool), released ones included. */
export async function linesByIds(deps: AppDeps, operator: Operator, ids: readonly string[]): Promise<Map<string, LineChoice>> {
  const lines = await linesOf(deps.db, tenantOf(operator)).whereIn('id', [...ids]);
  return new Map(lines.map((line) => [line.id, { id: line.id, name: line.name, phoneNumber: line.phone_number, status: line.status }]));
}
