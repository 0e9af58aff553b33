import type { Db } from '../../platform/db/knex';
import { setWorkspaceTimeZone } from './store';

/**
 * The time zone a workspace's people read times in (issue 30, item 5): an IANA name the runtime knows
 * (`Intl.supportedValuesOf('timeZone')`, plus `UTC`, which that list leaves out), UTC by default. Only
 * what the portal shows changes: stored times, the API, the CSV exports and URLs stay UTC.
 */
export const DEFAULT_TIME_ZONE = 'UTC';

/** Every zone a workspace may choose, UTC first. */
export const TIME_ZONES: readonly string[] = [DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
const KNOWN = new Set(TIME_ZONES);

/**
 * The name to store for what was typed, or undefined when it names no zone the runtime knows. A listed
 * name is kept; an alias the runtime resolves to a listed zone is kept as chosen (`Asia/Kolkata`, which
 * ICU lists as `Asia/Calcutta`; `US/Eastern`); a case variant is stored as the runtime spells it (`utc`).
 */
export function timeZoneNamed(name: string): string | undefined {
  if (KNOWN.has(name)) return name;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  if (!KNOWN.has(resolved)) return undefined;
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

export type TimeZoneChange = { ok: true; timeZone: string } | { ok: false; message: string };

/** Sets the workspace's time zone; refuses a name that names no zone of TIME_ZONES (nothing is written). */
export async function changeTimeZone(db: Db, workspaceId: string, typed: string): Promise<TimeZoneChange> {
  const timeZone = timeZoneNamed(typed);
  if (!timeZone) return { ok: false, message: `“${typed}” is not an IANA time zone name (such as Europe/Berlin or UTC)` };
  await setWorkspaceTimeZone(db, workspaceId, timeZone);
  return { ok: true, timeZone };
}
