import crypto from 'node:crypto';
import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { runIdempotently } from '../middleware/idempotency';
import { withRequestRules } from '../openapi/document';
import { boundIntegers, isUuid } from '../openapi/formats';
import { bodyProblems } from '../openapi/validator';
import { newestFirstPage } from '../pagination';
import { campaignRoutes as campaignOperations, createCampaignAnswering, RESULT_COLUMNS } from '../routes/campaigns';
import { allResults, campaignRecord, campaignRecords, resultsPage, visibleCampaigns } from '../../src/domain/campaigns/read';
import { CAMPAIGN_STATUSES, type CampaignStatus } from '../../src/domain/campaigns/rules';
import type { CampaignRow } from '../../src/domain/campaigns/store';
import { fingerprintOf } from '../../src/domain/idempotency/store';
import { noteAction } from './actionLog';
import { changed, refuse } from './answer';
import { campaignBodyOfForm } from './campaignForm';
import { sendCsv } from './csv';
import { sendPage } from './http';
import { linesByIds, linesForFilter } from './lineChoices';
import { spendPortalLimit } from './limits';
import { readFilters, type FilterRule } from './listFilters';
import { actorOf, getOperatorPage, navOf, operatorForm, roleAllows } from './operatorPages';
import { campaignLive, campaignPage, type CampaignLiveInput, type CampaignPageInput } from './pages/campaign';
import { campaignsPage, type CampaignListFilters, type CampaignsPageInput } from './pages/campaigns';
import { signedInOperator, type Operator } from './visitor';

const CAMPAIGNS = '/portal/campaigns';
const CAMPAIGNS_SHOWN = 50;
const RESULTS_SHOWN = 50;
/** The idempotency scope of the portal's create form: its keys are the operator's own, apart from any API key's. */
const CREATE_SCOPE = 'portal POST /portal/campaigns';
/**
 * The create form's body limit: the API's JSON body limit (MAX_BODY_BYTES), so that a list the API takes in one request
 * can be pasted here, rather than the 16 KiB of the portal's other forms.
 */
const createFormLimit = (deps: AppDeps) => deps.config.maxBodyBytes;

export const CAMPAIGN_FILTERS = { status: { oneOf: CAMPAIGN_STATUSES } } as const satisfies Record<keyof CampaignListFilters, FilterRule>;

/** The API's own check of the body: its operation's schema with the request rules the API adds (no NUL, safe integers). */
const CREATE_BODY_SCHEMA = (() => {
  const create = campaignOperations().find((route) => route.operationId === 'createCampaign')!;
  return boundIntegers(withRequestRules(create.doc)).requestBody!.content['application/json'].schema;
})();

/** What the page says after a change made from it (`?done=`). */
const NOTICES: Readonly<Record<string, string>> = {
  created: 'Campaign created: it calls its contacts from its start time.',
  pause: 'Campaign paused: no new call starts; calls in progress go on to their end.',
  resume: 'Campaign resumed: it calls its waiting contacts again.',
  cancel: 'Campaign cancelled: its waiting contacts will not be called; calls in progress go on to their end.',
};

const campaignNotFound = () => new ApiError(404, 'not_found', 'Campaign not found');

/** The operator's campaign as the API shows it (with its progress); 404 `not_found` for an unknown id or another tenant's. */
export async function campaignOf(deps: AppDeps, operator: Operator, id: string) {
  const campaign = isUuid(id) ? await campaignRecord(deps.db, actorOf(operator), id) : undefined;
  if (!campaign) throw campaignNotFound();
  return campaign;
}

/** The first row after which the page's contacts are shown (`?after=`), 0 when absent. */
function afterOf(value: unknown): number {
  if (value === undefined || value === '') return 0;
  if (typeof value === 'string' && /^[0-9]{1,6}$/.test(value)) return Number(value);
  throw errors.validation([{ field: 'after', message: 'Must be a row number of this campaign' }]);
}

/** What the campaign's live part shows: the campaign, a page of its results from row `after` + 1, whether the role may control it. */
async function campaignLiveInput(deps: AppDeps, operator: Operator, id: string, after: number): Promise<CampaignLiveInput> {
  const campaign = await campaignOf(deps, operator, id);
  const results = (await resultsPage(deps.db, actorOf(operator), id, after, RESULTS_SHOWN))!;
  return { campaign, results: results.results, after, nextAfter: results.next_cursor, mayControl: roleAllows(operator, 'calls:control') };
}

/** Everything the campaign's page shows: its live part, and its pool's lines for its settings. */
export async function campaignPageInput(
  deps: AppDeps,
  operator: Operator,
  id: string,
  after = 0,
  extra: Partial<CampaignPageInput> = {},
): Promise<CampaignPageInput> {
  const live = await campaignLiveInput(deps, operator, id, after);
  return { ...live, lines: await linesByIds(deps, operator, live.campaign.line_ids), ...extra };
}

/** The list page's input: a page of campaigns (filtered by status) and, for a role that may create, the create form. */
async function listInput(
  deps: AppDeps,
  operator: Operator,
  query: AppContext['query'],
  form?: Record<string, string>,
): Promise<CampaignsPageInput> {
  const read = readFilters(query, CAMPAIGN_FILTERS);
  if (read.error) throw read.error;
  const { page, next_cursor } = await newestFirstPage<CampaignRow>(
    visibleCampaigns(deps.db, actorOf(operator), (read.values.status || undefined) as CampaignStatus | undefined),
    typeof query.cursor === 'string' ? query.cursor : undefined,
    CAMPAIGNS_SHOWN,
  );
  const mayCreate = roleAllows(operator, 'calls:create');
  const typedKey = form?.idempotency_key;
  return {
    campaigns: await campaignRecords(deps.db, page),
    filters: read.values,
    olderCursor: next_cursor,
    pool: mayCreate ? (await linesForFilter(deps, operator)).filter((line) => line.status === 'active') : undefined,
    createKey: typedKey && isUuid(typedKey) ? typedKey : crypto.randomUUID(),
    form,
  };
}

/**
 * Campaigns (issue 31): the list (filtered by status, paged by cursor) with the create form, a campaign's page with its
 * live progress and per-contact results, and its results as CSV. Every role reads them; creating takes calls:create and
 * controlling (./campaignActions.ts) calls:control, as on the API (so every role, as calls).
 */
export function campaignRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, CAMPAIGNS, deps, async (ctx, operator) => {
    const nav = navOf(operator, CAMPAIGNS);
    try {
      sendPage(ctx, 200, campaignsPage(nav, await listInput(deps, operator, ctx.query)));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const fallback = await listInput(deps, operator, {});
      refuse(ctx, err, (error) => campaignsPage(nav, { ...fallback, error }));
    }
  });

  /** Creating a campaign: the form's fields as the API's body, checked by its schema, then the API's use case. */
  router.post(CAMPAIGNS, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const signedIn = await operatorForm(ctx, deps, createFormLimit(deps));
    if (!signedIn) return;
    const { form, operator } = signedIn;
    const again = async (error: ApiError) => {
      const input = await listInput(deps, operator, {}, form);
      refuse(ctx, error, (shown) => campaignsPage(navOf(operator, CAMPAIGNS), { ...input, error: shown }));
    };
    let campaignId: string | undefined;
    try {
      if (!roleAllows(operator, 'calls:create')) throw errors.forbidden('Your role cannot create campaigns');
      const idempotencyKey = form.idempotency_key?.trim() ?? '';
      if (!isUuid(idempotencyKey)) throw errors.validation([{ field: 'idempotency_key', message: 'Reload the page: the form is stale' }]);
      const { body, problems } = await campaignBodyOfForm(form);
      const schemaProblems = problems.length > 0 ? problems : bodyProblems(CREATE_BODY_SCHEMA, body);
      if (schemaProblems.length > 0) throw errors.validation(schemaProblems);
      const limited = await spendPortalLimit(ctx, deps, operator, 'campaigns.create');
      if (limited) throw limited;
      const outcome = await runIdempotently(
        ctx,
        deps,
        { principalKeyId: operator.user.id, scope: CREATE_SCOPE, idempotencyKey, fingerprint: fingerprintOf({ body }) },
        async () => {
          const created = await createCampaignAnswering(deps, ctx, actorOf(operator), body!);
          campaignId = created.id;
          // What a form sent again is answered with (the idempotency record keeps it).
          ctx.status = 201;
          ctx.state.replayBody = { campaign: { id: created.id } };
        },
      );
      if (outcome.replayed) campaignId = (outcome.body as { campaign?: { id?: string } }).campaign?.id;
    } catch (err) {
      if (err instanceof ApiError) return again(err);
      throw err;
    }
    if (!campaignId) return again(new ApiError(409, 'idempotency_key_reused', 'This form was already used; reload the page'));
    noteAction(ctx, { targetId: campaignId });
    ctx.state.log.info({ campaign_id: campaignId, user_id: operator.user.id }, 'portal campaign created');
    changed(ctx, `${CAMPAIGNS}/${campaignId}?env=${operator.environment}&done=created`, 201, { campaign: { id: campaignId } });
  });

  getOperatorPage(router, `${CAMPAIGNS}/:id`, deps, async (ctx, operator) => {
    const done = typeof ctx.query.done === 'string' ? ctx.query.done : '';
    const notice = Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined;
    const input = await campaignPageInput(deps, operator, ctx.params.id, afterOf(ctx.query.after), { notice });
    sendPage(ctx, 200, campaignPage(navOf(operator, CAMPAIGNS), input));
  });

  // The live part of a campaign's page, reloaded by htmx while its figures may change (pages/campaign.ts `campaignLive`).
  router.get(`${CAMPAIGNS}/:id/live`, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await signedInOperator(ctx, deps, typeof ctx.query.env === 'string' ? ctx.query.env : undefined);
    if (!operator) throw errors.unauthorized();
    const input = await campaignLiveInput(deps, operator, ctx.params.id, afterOf(ctx.query.after));
    sendPage(ctx, 200, campaignLive(input, navOf(operator, CAMPAIGNS)));
  });

  // Every contact's result, as GET /api/v1/campaigns/{id}/results.csv writes it.
  getOperatorPage(router, `${CAMPAIGNS}/:id/results.csv`, deps, async (ctx, operator) => {
    const campaign = await campaignOf(deps, operator, ctx.params.id);
    sendCsv(ctx, `campaign-${campaign.id}-results`, operator.environment, RESULT_COLUMNS, allResults(deps.db, campaign.id));
  });
}
