import crypto from 'node:crypto';
import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { lineReleased, lineUpdateError } from '../lineErrors';
import { runIdempotently } from '../middleware/idempotency';
import { componentSchemas } from '../openapi/schemas';
import { bodyProblems } from '../openapi/validator';
import { answeringOutboundRefusals } from '../outboundRefusals';
import { placeCall } from '../../src/domain/calls/place';
import { toCallRecord } from '../../src/domain/calls/store';
import { fingerprintOf } from '../../src/domain/idempotency/store';
import { fieldsOfMode, MODE_DEPENDENT_FIELDS } from '../../src/domain/lines/modeFields';
import type { LineUpdate } from '../../src/domain/lines/rules';
import { findLine, toLineRecord, type LineRow } from '../../src/domain/lines/store';
import { updateLineSettings } from '../../src/domain/lines/update';
import { sendTestEvent } from '../../src/domain/webhooks/sendTest';
import { refuse } from './answer';
import { spendPortalLimit } from './limits';
import { sendPage, wantsJson } from './http';
import { actorOf, navOf, operatorForm, roleAllows, tenantOf, getOperatorPage } from './operatorPages';
import { linePage, type LinePageInput, type TestDelivery } from './pages/line';
import { defaultWebhookUrlOf } from './workspaceRoutes';
import type { Operator } from './visitor';
import { noteAction } from './actionLog';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The idempotency scope of the portal's test call: its keys are the operator's own, apart from any API key's. */
const TEST_CALL_SCOPE = 'portal POST /portal/lines/{id}/calls';

export async function lineOf(deps: AppDeps, operator: Operator, id: string): Promise<LineRow> {
  const row = UUID.test(id) ? await findLine(deps.db, tenantOf(operator), id) : undefined;
  if (!row) throw errors.notFound('Line');
  return row;
}

async function pageInput(deps: AppDeps, operator: Operator, line: LineRow, extra: Partial<LinePageInput> = {}): Promise<LinePageInput> {
  return {
    line: toLineRecord(line),
    // As the API's routes: PATCH /lines/{id} needs connections:write, POST /calls calls:create, DELETE numbers:release,
    // POST /webhooks/test webhooks:write.
    mayEdit: roleAllows(operator, 'connections:write'),
    mayCall: roleAllows(operator, 'calls:create'),
    mayRelease: roleAllows(operator, 'numbers:release'),
    mayTest: roleAllows(operator, 'webhooks:write'),
    testDestination: line.webhook_url ?? (await defaultWebhookUrlOf(deps, operator)),
    callKey: crypto.randomUUID(),
    ...extra,
  };
}

/**
 * A signed-in post of one of a line's forms: what was typed, the operator, the line, and `again`, which answers a
 * refusal with the line's page showing it and what was typed back in the form it came from (`typedInto`).
 */
async function linePagePost(ctx: AppContext, deps: AppDeps, typedInto: 'form' | 'callForm' | 'testForm') {
  const signedIn = await operatorForm(ctx, deps);
  if (!signedIn) return undefined;
  const { form, operator } = signedIn;
  const line = await lineOf(deps, operator, ctx.params.id);
  const input = await pageInput(deps, operator, line, { [typedInto]: form });
  const again = (error: ApiError) => refuse(ctx, error, (shown) => linePage(navOf(operator, '/portal/lines'), { ...input, error: shown }));
  return { form, operator, line, again };
}

const NULLABLE_TEXT = [
  'display_name',
  'system_prompt',
  'begin_message',
  'voice',
  'webhook_url',
  'audio_handler_url',
  'status_callback_url',
] as const;
const INTEGERS = ['context_limit', 'endpointing_ms'] as const;
const SWITCHES = ['recording_enabled', 'compliance_enabled'] as const;

/**
 * The edit form as a PATCH body: only the fields whose value differs from the line's, so leaving
 * the language alone on a hosted line does not pin it, and only the fields the chosen mode uses
 * (`fieldsOfMode`): another mode's, hidden in the form, stay as they are. Empty text clears a field;
 * an unchecked box is false; a number that is not one stays text, for the schema to refuse.
 */
export function lineUpdateOfForm(line: LineRow, form: Record<string, string>): LineUpdate {
  const update: LineUpdate = {};
  const used = fieldsOfMode(form.mode || line.mode);
  const usedByMode = (field: string) =>
    !(MODE_DEPENDENT_FIELDS as readonly string[]).includes(field) || (used as readonly string[]).includes(field);
  const set = (field: string, value: unknown) => {
    if (usedByMode(field) && value !== (line as unknown as Record<string, unknown>)[field]) update[field] = value;
  };
  set('name', form.name ?? '');
  if (form.mode) set('mode', form.mode);
  if (form.language) set('language', form.language);
  for (const field of NULLABLE_TEXT) set(field, form[field]?.trim() ? form[field] : null);
  for (const field of INTEGERS) {
    const value = form[field]?.trim() ?? '';
    set(field, value === '' ? null : /^-?\d+$/.test(value) ? Number(value) : value);
  }
  for (const field of SWITCHES) set(field, form[field] === 'on' || form[field] === 'true');
  return update;
}

/** A line's own page: change it (PATCH /api/v1/lines/{id}'s use case) and place a test call from it (POST /api/v1/calls's). */
export function lineRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/lines/:id', deps, async (ctx, operator) => {
    const line = await lineOf(deps, operator, ctx.params.id);
    const notice = ctx.query.saved === '1' ? 'Line saved.' : ctx.query.released === '1' ? 'Line released.' : undefined;
    sendPage(ctx, 200, linePage(navOf(operator, '/portal/lines'), await pageInput(deps, operator, line, { notice })));
  });

  // A signed `test` event to the line's webhook, as POST /api/v1/webhooks/test sends it: its one attempt's result shown.
  router.post('/portal/lines/:id/test-event', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const post = await linePagePost(ctx, deps, 'testForm');
    if (!post) return;
    const { operator, line, again } = post;
    if (!roleAllows(operator, 'webhooks:write')) return again(errors.forbidden('Your role cannot send test events'));
    const limited = await spendPortalLimit(ctx, deps, operator, 'webhooks.test');
    if (limited) return again(limited);
    const outcome = await sendTestEvent(deps, { ...tenantOf(operator), keyId: null }, line.id);
    if (!outcome.ok) return again(outcome.refused === 'not_found' ? errors.notFound('Line') : lineReleased());
    const { eventId, finished, delivery } = outcome.attempt;
    ctx.state.log.info({ line_id: line.id, event_id: eventId, user_id: operator.user.id }, 'portal test event sent');
    const testResult = { eventId, finished, delivery: delivery as TestDelivery | undefined };
    if (wantsJson(ctx)) {
      ctx.status = finished ? 200 : 202;
      ctx.body = { event_id: eventId, finished, delivery: delivery ?? null };
      return;
    }
    sendPage(ctx, finished ? 200 : 202, linePage(navOf(operator, '/portal/lines'), await pageInput(deps, operator, line, { testResult })));
  });

  getOperatorPage(router, '/portal/lines/:id/test-event', deps, async (ctx, operator) => {
    // A reload of the result: the line's page (the attempt is in its deliveries).
    const line = await lineOf(deps, operator, ctx.params.id);
    ctx.redirect(`/portal/lines/${line.id}?env=${operator.environment}`);
  });

  router.post('/portal/lines/:id', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const post = await linePagePost(ctx, deps, 'form');
    if (!post) return;
    const { form, operator, line, again } = post;
    if (!roleAllows(operator, 'connections:write')) return again(errors.forbidden('Your role cannot change lines'));
    const update = lineUpdateOfForm(line, form);
    noteAction(ctx, { details: { changed: Object.keys(update).join(', ') || 'nothing' } });
    // The API's own check of the body first (its schema), then the use case's.
    const problems = bodyProblems(componentSchemas.LineUpdateRequest, update);
    if (problems.length > 0) return again(errors.validation(problems));
    const limited = await spendPortalLimit(ctx, deps, operator, 'lines.update');
    if (limited) return again(limited);
    const outcome = await updateLineSettings(deps, tenantOf(operator), line.id, update);
    if (!outcome.ok) return again(lineUpdateError(outcome));
    ctx.state.log.info({ line_id: line.id, fields: Object.keys(update), user_id: operator.user.id }, 'portal line changed');
    ctx.status = 303;
    ctx.redirect(`/portal/lines/${line.id}?env=${operator.environment}&saved=1`);
  });

  router.post('/portal/lines/:id/calls', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const post = await linePagePost(ctx, deps, 'callForm');
    if (!post) return;
    const { form, operator, line, again } = post;
    if (!roleAllows(operator, 'calls:create')) return again(errors.forbidden('Your role cannot place calls'));
    const idempotencyKey = form.idempotency_key?.trim() ?? '';
    if (!UUID.test(idempotencyKey))
      return again(errors.validation([{ field: 'idempotency_key', message: 'Reload the page: the form is stale' }]));
    const limited = await spendPortalLimit(ctx, deps, operator, 'calls.create');
    if (limited) return again(limited);
    const actor = actorOf(operator);
    const request = { lineId: line.id, toNumber: form.to_number ?? '', conversation: null };
    let placedId: string | undefined;
    try {
      const outcome = await runIdempotently(
        ctx,
        deps,
        {
          principalKeyId: operator.user.id,
          scope: TEST_CALL_SCOPE,
          idempotencyKey,
          fingerprint: fingerprintOf({ params: { id: line.id }, body: { to_number: request.toNumber } }),
        },
        async () => {
          const row = await answeringOutboundRefusals(
            ctx,
            deps,
            'call',
            () =>
              placeCall({ ...deps, log: ctx.state.log }, actor, request, (trx, inserted) =>
                ctx.state.idempotency!.completeInTransaction(trx, 201, { call: toCallRecord(inserted, deps.config.publicBaseUrl) }),
              ),
            actor,
          );
          placedId = row.id;
        },
      );
      if (outcome.replayed) placedId = (outcome.body as { call?: { id?: string } }).call?.id;
    } catch (err) {
      if (err instanceof ApiError) return again(err);
      throw err;
    }
    if (!placedId) return again(new ApiError(409, 'idempotency_key_reused', 'This form was already used; reload the page'));
    noteAction(ctx, { targetId: placedId, details: { line_id: line.id } });
    ctx.state.log.info({ call_id: placedId, line_id: line.id, user_id: operator.user.id }, 'portal test call placed');
    ctx.status = 303;
    ctx.redirect(`/portal/calls/${placedId}?env=${operator.environment}`);
  });
}
