import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { CampaignEndedError, controlCampaign, type CampaignControl } from '../../src/domain/campaigns/control';
import { LIVE_CAMPAIGN_STATUSES } from '../../src/domain/campaigns/rules';
import { changed, refuse } from './answer';
import { campaignOf, campaignPageInput } from './campaignRoutes';
import { envFields, stateBadge, time, type ConfirmationView } from './components';
import { confirmedAction } from './confirm';
import { html } from './html';
import { spendPortalLimit } from './limits';
import { actorOf, navOf, postOperatorForm, roleAllows } from './operatorPages';
import { campaignName, doneOf, type CampaignRecord } from './pages/campaigns';
import { campaignPage } from './pages/campaign';
import type { Operator } from './visitor';

const CAMPAIGNS = '/portal/campaigns';

/** The API's 409 for a campaign that has ended (api/routes/campaigns.ts answers it alike). */
const endedError = (status: string) =>
  new ApiError(409, 'campaign_ended', `The campaign is ${status}: it cannot be paused, resumed or cancelled`);

/** Makes `control` of the operator's campaign as POST /api/v1/campaigns/{id}/{control} does (its use case, scope and limit). */
async function control(deps: AppDeps, operator: Operator, id: string, action: CampaignControl): Promise<void> {
  try {
    await controlCampaign(deps, actorOf(operator), id, action);
  } catch (err) {
    if (err instanceof CampaignEndedError) throw endedError(err.status);
    throw err;
  }
}

/** Cancelling: who is never called, and what goes on; or, once it has ended, how it stands. */
function cancelView(campaign: CampaignRecord, operator: Operator): ConfirmationView {
  const page = `${CAMPAIGNS}/${campaign.id}?env=${operator.environment}`;
  const base = {
    title: `Cancel the campaign ${campaignName(campaign)}?`,
    action: `${CAMPAIGNS}/${campaign.id}/cancel`,
    hidden: envFields(navOf(operator, CAMPAIGNS)),
    confirmLabel: 'Cancel campaign',
    back: { href: page, label: 'back to the campaign' },
  };
  if (!LIVE_CAMPAIGN_STATUSES.includes(campaign.status))
    return {
      ...base,
      consequences: [],
      stale: {
        message: `This campaign has already ended (${campaign.status}).`,
        code: 'campaign_ended',
        state: html`<p id="current-state">
          Status ${stateBadge(campaign.status)}, ended ${time(campaign.ended_at)}; ${doneOf(campaign)}.
          <a href="${page}">See the campaign</a>.
        </p>`,
      },
    };
  const { pending, dialing } = campaign.progress;
  return {
    ...base,
    consequences: [
      pending
        ? `The ${pending} contact${pending === 1 ? '' : 's'} still waiting ${pending === 1 ? 'is' : 'are'} recorded as cancelled and never called.`
        : 'No contact is waiting to be called.',
      dialing
        ? `The ${dialing} call${dialing === 1 ? '' : 's'} in progress go${dialing === 1 ? 'es' : ''} on to ${dialing === 1 ? 'its' : 'their'} end, and ${dialing === 1 ? 'its outcome is' : 'their outcomes are'} recorded.`
        : 'No call of it is in progress.',
      'Its results stay on its page and in its CSV. A cancelled campaign cannot be resumed: to stop for a while, pause it instead.',
    ],
  };
}

/**
 * Pausing and resuming a campaign from its page (one button each, as the status allows: neither calls nor hangs up on
 * anyone), and cancelling it behind its confirmation (./confirm.ts: it cannot be undone). Each as its API route: the
 * scope calls:control, the limit `campaigns.control`, 409 `campaign_ended` once it has ended.
 */
export function campaignActions(router: Router<AppState>, deps: AppDeps): void {
  for (const action of ['pause', 'resume'] as const)
    postOperatorForm(router, `${CAMPAIGNS}/:id/${action}`, deps, async (ctx, { operator }) => {
      const id = ctx.params.id;
      try {
        await campaignOf(deps, operator, id);
        if (!roleAllows(operator, 'calls:control')) throw errors.forbidden('Your role cannot pause or resume campaigns');
        const limited = await spendPortalLimit(ctx, deps, operator, 'campaigns.control');
        if (limited) throw limited;
        await control(deps, operator, id, action);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status === 404) throw err;
        const input = await campaignPageInput(deps, operator, id);
        return refuse(ctx, err, (error) => campaignPage(navOf(operator, CAMPAIGNS), { ...input, error }));
      }
      ctx.state.log.info({ campaign_id: id, user_id: operator.user.id, action }, `portal campaign ${action}d`);
      changed(ctx, `${CAMPAIGNS}/${id}?env=${operator.environment}&done=${action}`, 200, {
        campaign: await campaignOf(deps, operator, id),
      });
    });

  confirmedAction(router, deps, {
    path: `${CAMPAIGNS}/:id/cancel`,
    navPath: CAMPAIGNS,
    scope: 'calls:control',
    refusal: 'Your role cannot cancel campaigns',
    rateLimit: 'campaigns.control',
    staleCode: 'campaign_ended',
    describe: async (ctx, operator) => cancelView(await campaignOf(deps, operator, ctx.params.id), operator),
    // No pageAgain: an unknown campaign (or another workspace's) is the portal's 404 `not_found`, as on its page.
    act: async (ctx, operator) => {
      const id = ctx.params.id;
      await control(deps, operator, id, 'cancel');
      ctx.state.log.info({ campaign_id: id, user_id: operator.user.id }, 'portal campaign cancelled');
      changed(ctx, `${CAMPAIGNS}/${id}?env=${operator.environment}&done=cancel`, 200, { campaign: await campaignOf(deps, operator, id) });
    },
  });
}
