/** Scoped-key delegation (`/api-tokens`): a `keys:admin` key mints children within its own grant. */
import type { Knex } from 'knex';
import { recordComplianceEvent } from '../compliance/events';
import type { Db } from '../../platform/db/knex';
import { lockLiveChain, managedBy, revokeWithDescendants } from './ancestry';
import { assertWithin, authorityExcess, authorityOf, GRANT_FIELDS, type Grant, type GrantExcess } from './grants';
import type { Role, Scope } from './scopes';
import { insertKey, isKeyId, type ApiKeyRow } from './store';

export function grantOf(row: ApiKeyRow): Grant {
  return {
    scopes: row.scopes as Scope[],
    numbers: row.grant_numbers,
    spendLimit: row.spend_limit_cents === null ? null : { amountCents: Number(row.spend_limit_cents), resetPeriod: row.spend_reset_period },
  };
}

export function toScopedTokenRecord(row: ApiKeyRow) {
  const grant = grantOf(row);
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    environment: row.environment,
    grant: {
      scopes: grant.scopes,
      ...(grant.numbers ? { resources: { numbers: grant.numbers } } : {}),
      spendLimit: grant.spendLimit,
    },
    parent_key_id: row.parent_key_id,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    last_used_at: row.last_used_at ? row.last_used_at.toISOString() : null,
  };
}

/** Keys managed through `/api-tokens`: the workspace's regular (non-agent, non-service) keys in one environment. */
export function scopedTokensOf(db: Db | Knex.Transaction, tenant: { workspaceId: string; environment: 'test' | 'live' }) {
  return db<ApiKeyRow>('api_keys')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment, kind: 'standard' })
    .whereNull('created_by_service_key_id');
}

/** The keys `manager` manages there: all of them for a root key, else itself and its descendants. */
export function tokensManagedBy(db: Db | Knex.Transaction, manager: ApiKeyRow) {
  return managedBy(scopedTokensOf(db, { workspaceId: manager.workspace_id, environment: manager.environment }), manager);
}

/**
 * Mints a child of `parent` with exactly the requested grant, refused (`GrantExceededError`,
 * nothing written) beyond the parent's authority. The child keeps the parent's permission tier.
 * `mintedBy`: the signed-in portal user who asked (stored on the key and named by its event);
 * absent when the parent key itself asked on the API.
 */
export async function mintScopedToken(
  trx: Knex.Transaction,
  input: { parent: ApiKeyRow; role: Role; name: string; grant: Grant; now: Date; mintedBy?: { userId: string; via: 'portal' } },
): Promise<{ row: ApiKeyRow; plaintext: string }> {
  const { parent, grant } = input;
  await lockLiveChain(trx, parent, input.now);
  const permissions = parent.permissions === 'legacy_full' ? 'full' : parent.permissions;
  const child = {
    kind: 'standard' as const,
    scopes: grant.scopes,
    grant_numbers: grant.numbers,
    line_id: null,
    spend_limit_cents: grant.spendLimit?.amountCents ?? null,
    spend_reset_period: grant.spendLimit?.resetPeriod ?? null,
    monthly_cap_cents: null,
    permissions,
  };
  assertWithin(authorityOf(parent, input.role), authorityOf(child), GRANT_FIELDS);
  const minted = await insertKey(trx, {
    workspaceId: parent.workspace_id,
    userId: parent.user_id,
    environment: parent.environment,
    kind: 'standard',
    name: input.name,
    scopes: grant.scopes,
    grantNumbers: grant.numbers,
    spendLimitCents: child.spend_limit_cents,
    spendResetPeriod: child.spend_reset_period,
    permissions,
    minter: parent,
    mintedByUserId: input.mintedBy?.userId ?? null,
    createdAt: input.now,
  });
  await recordComplianceEvent(trx, {
    workspaceId: minted.row.workspace_id,
    environment: minted.row.environment,
    eventType: 'scoped_key_minted',
    actorKeyId: parent.id,
    metadata: {
      key_id: minted.row.id,
      key_prefix: minted.row.key_prefix,
      scopes: grant.scopes,
      ...(input.mintedBy ? { user_id: input.mintedBy.userId, via: input.mintedBy.via } : {}),
    },
    at: input.now,
  });
  return minted;
}

/** Revokes the key and, in the same transaction, its whole subtree (children minted by it, theirs, ...). */
export async function revokeScopedToken(
  trx: Knex.Transaction,
  input: { target: ApiKeyRow; actor: ApiKeyRow; now: Date },
): Promise<ApiKeyRow> {
  const { row } = await revokeWithDescendants(trx, {
    key: input.target,
    actorKeyId: input.actor.id,
    now: input.now,
    targetEvent: 'scoped_key_revoked',
  });
  return row;
}

/** One of the tenant's `/api-tokens` keys by id (undefined for anything else, another workspace's included). */
export async function findScopedToken(
  db: Db,
  tenant: { workspaceId: string; environment: 'test' | 'live' },
  keyId: string,
): Promise<ApiKeyRow | undefined> {
  return isKeyId(keyId) ? scopedTokensOf(db, tenant).andWhere({ id: keyId }).first() : undefined;
}

/**
 * An operator (owner or admin, whose preset holds every scope) revokes a regular key or delegated
 * token of the tenant with its subtree; `via` is recorded on its `scoped_key_revoked` event.
 */
export async function revokeScopedTokenAsOperator(
  db: Db,
  input: {
    tenant: { workspaceId: string; environment: 'test' | 'live' };
    keyId: string;
    via: 'cli' | 'portal';
    /** The portal user who revoked it (the CLI's operator has no user). */
    userId?: string;
    now: Date;
  },
): Promise<{ ok: true; row: ApiKeyRow; descendants: ApiKeyRow[] } | { ok: false; refused: 'not_found' }> {
  const target = await findScopedToken(db, input.tenant, input.keyId);
  if (!target) return { ok: false, refused: 'not_found' };
  const revoked = await db.transaction((trx) =>
    revokeWithDescendants(trx, {
      key: target,
      actorKeyId: null,
      now: input.now,
      targetEvent: 'scoped_key_revoked',
      metadata: { via: input.via, ...(input.userId ? { user_id: input.userId } : {}) },
    }),
  );
  return { ok: true, ...revoked };
}

export type TokenRevocation =
  { ok: true; row: ApiKeyRow } | { ok: false; refused: 'not_found' } | { ok: false; refused: 'exceeds_grant'; excess: GrantExcess[] };

/**
 * Revokes a key `manager` manages (else not found: existence is not leaked) with its subtree.
 * Revoking is as powerful as minting: only a key within the manager's own grant (`roleOf` reads the
 * manager's user's current role), else refused naming each exceeding part of the grant.
 */
export async function revokeManagedToken(
  db: Db,
  input: { manager: ApiKeyRow; roleOf: () => Promise<Role>; tokenId: string; now: () => Date },
): Promise<TokenRevocation> {
  const target = await tokensManagedBy(db, input.manager).andWhere({ id: input.tokenId }).first();
  if (!target) return { ok: false, refused: 'not_found' };
  const excess = authorityExcess(authorityOf(input.manager, await input.roleOf()), authorityOf(target));
  if (excess.length > 0) {
    return { ok: false, refused: 'exceeds_grant', excess: excess.map((e) => ({ field: GRANT_FIELDS[e.part], message: e.message })) };
  }
  return { ok: true, row: await db.transaction((trx) => revokeScopedToken(trx, { target, actor: input.manager, now: input.now() })) };
}
