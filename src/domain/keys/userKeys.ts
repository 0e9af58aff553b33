/**
 * Keys minted for a portal user by an operator (the CLI, the portal, `npm run up`): a regular key holds the
 * user's role preset or narrower scopes. Revoking and narrowing them lives beside, in ancestry.ts and memberKeys.ts.
 */
import type { Db } from '../../platform/db/knex';
import { recordComplianceEvent } from '../compliance/events';
import type { User } from '../workspaces/service';
import type { Environment, KeyKind } from './format';
import { ROLE_PRESETS, type Role, type Scope } from './scopes';
import { insertKey, type ApiKeyRow } from './store';

export class ScopeBeyondRoleError extends Error {
  constructor(role: Role, scopes: readonly string[]) {
    super(`role ${role} cannot hold scopes: ${scopes.join(', ')}`);
    this.name = 'ScopeBeyondRoleError';
  }
}

/**
 * Mints a key for a user. Standard keys get the user's role preset unless narrower
 * scopes are given; service keys carry no scopes (they only authenticate the keys plane).
 */
export async function mintUserKey(
  db: Db,
  input: { user: User; environment: Environment; kind: KeyKind; name: string; scopes?: readonly Scope[] },
): Promise<{ row: ApiKeyRow; plaintext: string }> {
  const preset = ROLE_PRESETS[input.user.role];
  const scopes = input.kind === 'service' ? [] : (input.scopes ?? preset);
  const beyondRole = scopes.filter((scope) => !preset.includes(scope));
  if (beyondRole.length > 0) throw new ScopeBeyondRoleError(input.user.role, beyondRole);
  return insertKey(db, {
    workspaceId: input.user.workspace_id,
    userId: input.user.id,
    environment: input.environment,
    kind: input.kind,
    name: input.name,
    scopes,
  });
}

/**
 * A regular (root) key minted by an operator (CLI, portal): the user's role preset or narrower
 * scopes (`ScopeBeyondRoleError` beyond it), recorded as `scoped_key_minted` with no actor key
 * and `via`, committed with the key.
 */
export async function mintRegularKey(
  db: Db,
  input: { user: User; environment: Environment; name: string; scopes?: readonly Scope[]; via: 'cli' | 'portal'; now: Date },
): Promise<{ row: ApiKeyRow; plaintext: string }> {
  return db.transaction(async (trx) => {
    const created = await mintUserKey(trx, { ...input, kind: 'standard' });
    await recordComplianceEvent(trx, {
      workspaceId: input.user.workspace_id,
      environment: input.environment,
      eventType: 'scoped_key_minted',
      actorKeyId: null,
      metadata: {
        key_id: created.row.id,
        key_prefix: created.row.key_prefix,
        scopes: created.row.scopes,
        via: input.via,
        ...(input.via === 'portal' ? { user_id: input.user.id } : {}),
      },
      at: input.now,
    });
    return created;
  });
}
