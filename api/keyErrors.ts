import { ApiError, errors } from './errors';
import { GrantExceededError } from '../src/domain/keys/grants';
import { LineNotBindableError, mintAgentKey, type AgentKeyFields, type AgentKeyOwner } from '../src/domain/keys/agentKeys';
import type { ApiKeyRow } from '../src/domain/keys/store';
import { principalOf, type AppContext, type AppDeps } from './context';
import { MinterRevokedError } from '../src/domain/keys/ancestry';

/**
 * Runs a key-minting step and answers its refusals: beyond the minting key's grant is 403
 * `forbidden` with one detail per exceeding part; a line that cannot be bound is the spec's
 * binding 404; a minter revoked since it authenticated is 401 `invalid_api_key`.
 */
export async function answeringKeyRefusals<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof GrantExceededError) throw new ApiError(403, 'forbidden', err.message, err.excess);
    if (err instanceof LineNotBindableError) throw errors.notFound('Line');
    if (err instanceof MinterRevokedError) throw errors.invalidApiKey();
    throw err;
  }
}

/**
 * Mints an agent key for a request and answers its refusals. The idempotent replay (the record
 * without its plaintext) commits with the key; the plaintext is returned once, to this answer.
 * Raised inside the transaction, a refusal writes nothing and caches nothing.
 */
export async function mintAnsweringRefusals<R>(
  ctx: AppContext,
  deps: AppDeps,
  input: { owner: AgentKeyOwner; fields: AgentKeyFields },
  toRecord: (row: ApiKeyRow) => R,
): Promise<R & { plaintext_key: string }> {
  const principal = principalOf(ctx);
  const now = deps.now();
  return answeringKeyRefusals(() =>
    deps.db.transaction(async (trx) => {
      const minted = await mintAgentKey(trx, { ...input, minter: principal.key, now });
      const key = toRecord(minted.row);
      await ctx.state.idempotency?.completeInTransaction(trx, 201, { key });
      return { ...key, plaintext_key: minted.plaintext };
    }),
  );
}
