import type { Db } from '../../platform/db/knex';
import { recordComplianceEvent } from '../compliance/events';
import type { User } from '../workspaces/service';
import { revokeWithDescendants } from './ancestry';
import type { Environment } from './format';
import { isKeyId, type ApiKeyRow } from './store';
import { mintUserKey } from './userKeys';

export type ServiceKeyRevocation = { ok: true; row: ApiKeyRow; descendants: ApiKeyRow[] } | { ok: false; refused: 'not_found' };

/**
 * Revokes a service key of the workspace, and with it, in the same transaction, every agent key it
 * minted and anything below them; `via` (the CLI or the portal) is recorded on its compliance event.
 * Operators only: no API path reaches it (spec: service keys are managed in the portal).
 */
export async function revokeServiceKey(
  db: Db,
  input: { workspaceId: string; keyId: string; via: 'cli' | 'portal'; userId?: string; now: Date },
): Promise<ServiceKeyRevocation> {
  const row = isKeyId(input.keyId)
    ? await db<ApiKeyRow>('api_keys').where({ id: input.keyId, workspace_id: input.workspaceId, kind: 'service' }).first()
    : undefined;
  if (!row) return { ok: false, refused: 'not_found' };
  const revoked = await db.transaction((trx) =>
    revokeWithDescendants(trx, {
      key: row,
      actorKeyId: null,
      now: input.now,
      targetEvent: 'service_key_revoked',
      metadata: { via: input.via, ...(input.userId ? { user_id: input.userId } : {}) },
    }),
  );
  return { ok: true, ...revoked };
}

/** Service keys are minted only by operators (CLI, portal); the event commits with the key. */
export async function mintServiceKey(
  db: Db,
  input: { user: User; environment: Environment; name: string; via?: 'cli' | 'portal'; now: Date },
): Promise<{ row: ApiKeyRow; plaintext: string }> {
  return db.transaction(async (trx) => {
    const created = await mintUserKey(trx, { user: input.user, environment: input.environment, kind: 'service', name: input.name });
    await recordComplianceEvent(trx, {
      workspaceId: input.user.workspace_id,
      environment: input.environment,
      eventType: 'service_key_created',
      actorKeyId: null,
      metadata: {
        key_id: created.row.id,
        key_prefix: created.row.key_prefix,
        ...(input.via === 'portal' ? { via: 'portal', user_id: input.user.id } : {}),
      },
      at: input.now,
    });
    return created;
  });
}
