import type { Db } from '../../platform/db/knex';
import type { Role } from '../keys/scopes';
import { lockAccount, postLocked, SIGNUP_CREDIT_CENTS, SIGNUP_CREDIT_ENVIRONMENTS } from '../billing/ledger';

export interface Workspace {
  id: string;
  name: string;
  created_at: Date;
}

export interface User {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
}

/**
 * A workspace and its owner. The CLI and `npm run up` create owners whose address the operator
 * vouches for (verified now); a portal signup (src/domain/accounts/signup.ts) creates the owner
 * unverified (`ownerUnverified`) and, under SIGNUP_MODE=approval, the workspace awaiting an operator.
 */
export async function createWorkspace(
  db: Db,
  input: { name: string; ownerEmail: string; ownerUnverified?: boolean; awaitingApproval?: boolean },
): Promise<{ workspace: Workspace; owner: User }> {
  return db.transaction(async (trx) => {
    const [workspace] = await trx<Workspace & { approval_requested_at: unknown }>('workspaces')
      .insert({ name: input.name, approval_requested_at: input.awaitingApproval ? trx.fn.now() : null })
      .returning('*');
    const [owner] = await trx<User & { email_verified_at: unknown }>('users')
      .insert({
        workspace_id: workspace.id,
        email: input.ownerEmail.toLowerCase(),
        role: 'owner',
        email_verified_at: input.ownerUnverified ? null : trx.fn.now(),
      })
      .returning('*');
    // The test environment opens with the signup grant, as a ledger entry like any other. The live
    // environment opens empty (issue 27, H5): live money comes only from a verified card (auto-charge).
    for (const environment of ['test', 'live'] as const) {
      const tenant = { workspaceId: workspace.id, environment };
      await lockAccount(trx, tenant);
      if (!(SIGNUP_CREDIT_ENVIRONMENTS as readonly string[]).includes(environment)) continue;
      await postLocked(trx, {
        tenant,
        type: 'signup_credit',
        amountCents: SIGNUP_CREDIT_CENTS,
        description: 'Signup credit',
        idempotencyRef: `workspace:${workspace.id}:${environment}:signup_credit`,
        at: workspace.created_at,
      });
    }
    return { workspace, owner };
  });
}

/** A user the operator (CLI) added or who accepted an invitation mailed to the address: verified by either. */
export async function addUser(db: Db, input: { workspaceId: string; email: string; role: Role }): Promise<User> {
  const [user] = await db<User & { email_verified_at: unknown }>('users')
    .insert({ workspace_id: input.workspaceId, email: input.email.toLowerCase(), role: input.role, email_verified_at: db.fn.now() })
    .returning('*');
  return user;
}

/** A member of their workspace: one removed from it (`removed_at`) is no user any more. */
export async function findUser(db: Db, userId: string): Promise<User | undefined> {
  return db<User>('users').where({ id: userId }).whereNull('removed_at').first();
}

export async function workspaceOwner(db: Db, workspaceId: string): Promise<User | undefined> {
  return db<User>('users').where({ workspace_id: workspaceId, role: 'owner' }).whereNull('removed_at').orderBy('created_at').first();
}
