import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';

/**
 * The portal's action log (issue 30, item 2): who did what in the portal, from where, and how it ended. All SQL
 * of `portal_actions` (migration 0045). Rows are written by api/portal/actionLog.ts, one per action.
 */

export type PortalActionOutcome = 'succeeded' | 'refused' | 'failed';

export interface PortalActionInput {
  workspaceId: string;
  /** Null: a workspace-wide action (members, sign-ins, two-factor), shown in both environments. */
  environment: 'test' | 'live' | null;
  userId: string | null;
  email: string;
  action: string;
  outcome: PortalActionOutcome;
  refusalCode: string | null;
  targetId: string | null;
  details: Record<string, string | number | boolean>;
  clientAddress: string | null;
  userAgent: string | null;
  at: Date;
}

export interface PortalActionRow {
  id: string;
  environment: 'test' | 'live' | null;
  user_id: string | null;
  email: string;
  action: string;
  outcome: PortalActionOutcome;
  refusal_code: string | null;
  target_id: string | null;
  details: Record<string, string | number | boolean>;
  client_address: string | null;
  user_agent: string | null;
  created_at: Date;
}

/** Longest user agent kept: enough to name any browser, not a place to store a request's junk. */
const USER_AGENT_MAX_LENGTH = 512;

export async function recordPortalAction(db: Db | Knex.Transaction, action: PortalActionInput): Promise<void> {
  await db('portal_actions').insert({
    workspace_id: action.workspaceId,
    environment: action.environment,
    user_id: action.userId,
    email: action.email,
    action: action.action,
    outcome: action.outcome,
    refusal_code: action.refusalCode,
    target_id: action.targetId,
    details: action.details,
    client_address: action.clientAddress,
    user_agent: action.userAgent ? action.userAgent.slice(0, USER_AGENT_MAX_LENGTH) : null,
    created_at: action.at,
  });
}

/** Who a recorded action names: a user of any workspace by id (removed members too), or the account an email signs in. */
export interface ActingPerson {
  userId: string;
  workspaceId: string;
  email: string;
}

export async function personById(db: Db, userId: string): Promise<ActingPerson | undefined> {
  const row = await db('users')
    .where({ id: userId })
    .first<{ id: string; workspace_id: string; email: string } | undefined>('id', 'workspace_id', 'email');
  return row && { userId: row.id, workspaceId: row.workspace_id, email: row.email };
}

export async function personByEmail(db: Db, normalizedEmail: string): Promise<ActingPerson | undefined> {
  const row = await db('users')
    .where({ email: normalizedEmail })
    .first<{ id: string; workspace_id: string; email: string } | undefined>('id', 'workspace_id', 'email');
  return row && { userId: row.id, workspaceId: row.workspace_id, email: row.email };
}

export interface PortalActionFilters {
  userId?: string;
  action?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
}

/** The workspace's actions seen from one environment (its own and the workspace-wide ones), unordered: the caller pages them. */
export function portalActionsOf(db: Db, tenant: { workspaceId: string; environment: 'test' | 'live' }, filters: PortalActionFilters) {
  const query = db('portal_actions')
    .where({ workspace_id: tenant.workspaceId })
    .andWhere((scope) => scope.where({ environment: tenant.environment }).orWhereNull('environment'));
  if (filters.userId) query.andWhere({ user_id: filters.userId });
  if (filters.action) query.andWhere({ action: filters.action });
  if (filters.from) query.andWhere('created_at', '>=', filters.from);
  if (filters.to) query.andWhere('created_at', '<', filters.to);
  return query.select<PortalActionRow[]>(
    'id',
    'environment',
    'user_id',
    'email',
    'action',
    'outcome',
    'refusal_code',
    'target_id',
    'details',
    'client_address',
    'user_agent',
    'created_at',
  );
}
