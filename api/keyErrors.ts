import { ApiError, errors } from './errors';
import { GrantExceededError } from '../src/domain/keys/grants';
import { LineNotBindableError } from '../src/domain/keys/agentKeys';
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
