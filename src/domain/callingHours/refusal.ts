import type { Knex } from 'knex';
import { findSettings } from '../billing/settings';
import { refuseOutbound } from '../outbound/preflight';
import type { Db } from '../../platform/db/knex';
import { callingWindow, CallingWindowNeverOpensError, type CallingWindowVerdict, type WorkspaceCallingWindow } from './rules';

/** The workspace's own calling window in this environment (settings `calling_window`), null when it set none. */
export async function workspaceCallingWindow(
  db: Db | Knex.Transaction,
  tenant: { workspaceId: string; environment: 'test' | 'live' },
): Promise<WorkspaceCallingWindow | null> {
  const settings = await findSettings(db, tenant);
  return (settings?.calling_window as WorkspaceCallingWindow | null | undefined) ?? null;
}

/**
 * Refuses (`outside_calling_hours`, with when the window next opens) a call to `to` at `at` outside
 * the calling window: the legal one narrowed by the workspace's own (./rules.ts); when that window never
 * opens for the number, `calling_window_never_opens` (waiting would not help: the workspace's window must change).
 */
export async function refuseOutsideCallingHours(
  db: Db | Knex.Transaction,
  tenant: { workspaceId: string; environment: 'test' | 'live' },
  to: string,
  at: Date,
): Promise<void> {
  const narrowing = await workspaceCallingWindow(db, tenant);
  let verdict: CallingWindowVerdict;
  try {
    verdict = callingWindow(to, at, narrowing);
  } catch (err) {
    if (err instanceof CallingWindowNeverOpensError) refuseOutbound({ code: 'calling_window_never_opens', zone: err.zone, rule: err.rule });
    throw err;
  }
  if (!verdict.open)
    refuseOutbound({ code: 'outside_calling_hours', nextOpenAt: verdict.nextOpenAt, zone: verdict.zone, rule: verdict.rule });
}
