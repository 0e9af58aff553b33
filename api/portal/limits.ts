import type { AppContext, AppDeps, LimitSpend } from '../context';
import type { ApiError } from '../errors';
import { spendLimit } from '../middleware/rateLimit';
import type { LimitName } from '../../src/domain/limits/policies';
import type { Operator } from './visitor';

/**
 * The limits table's rows a portal change spends (issue 27, L15): the row of the API route that
 * makes the same change, in the same bucket (per workspace and environment), so the portal and
 * the API share one count and neither doubles the other's allowance. Redelivery has no API route:
 * it spends `webhooks.test`, the row of the other operator-triggered send to a customer's URL.
 */
export type PortalLimit = Extract<
  LimitName,
  | 'lines.create'
  | 'lines.update'
  | 'lines.secret_rotate'
  | 'lines.delete'
  | 'calls.create'
  | 'calls.control'
  | 'campaigns.create'
  | 'campaigns.control'
  | 'consent.create'
  | 'consent.revoke'
  | 'disclosures.create'
  | 'webhooks.test'
  | 'settings.update'
>;

const SPENT = Symbol('portal limit spent');
type WithSpend = AppContext & { [SPENT]?: LimitSpend };

/**
 * Counts this change against its row; the refusal (429 `rate_limited`, `Retry-After`) when the
 * workspace's environment spent it, through the API or here. Call it once the role may make the
 * change (a refused role spends nothing). A change then refused as malformed (400/422) gets its
 * hit back (`giveBackIfMalformed`, run by the portal router after every answer), as on the API.
 */
export async function spendPortalLimit(
  ctx: AppContext,
  deps: AppDeps,
  operator: Operator,
  name: PortalLimit,
): Promise<ApiError | undefined> {
  const [workspaceId, environment] = [operator.user.workspace_id, operator.environment];
  // workspace_env rows read neither the user nor the key.
  const spent = await spendLimit(deps, name, { workspaceId, environment, userId: operator.user.id, keyId: '' });
  for (const [header, value] of Object.entries(spent.headers)) ctx.set(header, value);
  if (spent.refusal) {
    ctx.state.log.warn({ limit: name, user_id: operator.user.id, environment }, 'portal change refused: rate limit spent');
    return spent.refusal;
  }
  (ctx as WithSpend)[SPENT] = spent;
  return undefined;
}

/** After a portal answer: a change refused as malformed did no work and does not use up the quota. */
export async function giveBackIfMalformed(ctx: AppContext): Promise<void> {
  const spent = (ctx as WithSpend)[SPENT];
  if (spent && (ctx.status === 400 || ctx.status === 422)) await spent.giveBack();
}
