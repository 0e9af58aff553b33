/** Legal holds on stored recordings and transcripts (issue 32; docs/decisions/recordings.md "Retention and legal hold"). */
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { assertUnrestrictedAdminKey } from '../lineAccess';
import { phoneOrFail } from '../phoneField';
import { phoneNumber } from '../openapi/fields';
import { arrayOf, boundedListParams, errorResponse, fields, jsonRequestBody, jsonResponse, ref, total } from '../openapi/schemas';
import { offsetPage } from '../pagination';
import type { PathParameter, RouteDef } from '../routeTable';
import {
  LEGAL_HOLD_REASON_MAX_LENGTH,
  placeLegalHold,
  releaseLegalHold,
  toLegalHoldRecord,
  type HoldSubject,
} from '../../src/domain/recordings/legalHolds';
import { legalHoldsOf } from '../../src/domain/recordings/store';

/** An unknown hold id, another tenant's, and one that cannot be an id at all answer alike. */
const holdNotFound = { code: 'legal_hold_not_found', message: 'No legal hold with this id' };
const holdIdParam: PathParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  'x-not-found': holdNotFound,
};
/**
 * What a hold names, from a request's `call_id` and `phone_number` (the API's body, the portal's form): exactly one of
 * them, else 422 naming both; the number in E.164, else 422 naming it. The call is checked by `placeLegalHold`.
 */
export function holdSubjectOrFail(body: { call_id?: string; phone_number?: string }): HoldSubject {
  if ((body.call_id === undefined) === (body.phone_number === undefined)) {
    const message = 'Name exactly one of call_id and phone_number';
    throw errors.validation([
      { field: 'call_id', message },
      { field: 'phone_number', message },
    ]);
  }
  return body.call_id !== undefined ? { callId: body.call_id } : { phoneNumber: phoneOrFail(body.phone_number!) };
}

export const callNotFound = () => new ApiError(404, 'call_not_found', 'No call with this id');

/** Holds keep recordings from the retention: workspace-wide compliance, so an unrestricted owner or admin key only. */
const adminAuth = { kind: 'standard' as const, scope: 'keys:admin' as const, verb: 'admin' as const };

async function create(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  await assertUnrestrictedAdminKey(deps, principal, 'legal holds');
  const body = ctx.state.body as { call_id?: string; phone_number?: string; reason: string };
  const outcome = await placeLegalHold(deps, { ...principal, keyId: principal.key.id }, holdSubjectOrFail(body), body.reason);
  if (!outcome.ok) throw callNotFound();
  ctx.status = 201;
  ctx.body = { legal_hold: toLegalHoldRecord(outcome.hold) };
}

async function list(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  await assertUnrestrictedAdminKey(deps, principal, 'legal holds');
  const q = ctx.state.query as { limit: number; offset: number; active?: boolean };
  const query = () => {
    const holds = legalHoldsOf(deps.db, principal);
    if (q.active === true) holds.whereNull('released_at');
    if (q.active === false) holds.whereNotNull('released_at');
    return holds;
  };
  const { rows, total } = await offsetPage(query, q);
  ctx.body = { legal_holds: rows.map(toLegalHoldRecord), total };
}

/** Releases the hold; one already released answers as it is (releasing is idempotent), its release time unchanged. */
async function release(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  await assertUnrestrictedAdminKey(deps, principal, 'legal holds');
  const id = ctx.params.id;
  const released = await releaseLegalHold(deps, { ...principal, keyId: principal.key.id }, id);
  const row = released ?? (await legalHoldsOf(deps.db, principal).andWhere({ id }).first());
  if (!row) throw new ApiError(404, holdNotFound.code, holdNotFound.message);
  ctx.body = { legal_hold: toLegalHoldRecord(row) };
}

const restrictedKey = errorResponse('`forbidden`: not an unrestricted owner or admin key');

export function legalHoldRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/legal-holds',
      operationId: 'createLegalHold',
      auth: adminAuth,
      rateLimit: 'settings.update',
      doc: {
        summary: 'Place a legal hold on a call or a phone number: its stored recordings and transcripts outlive the retention',
        description:
          'Name exactly one of `call_id` (one call) and `phone_number` (every call from or to it: a line’s number or a callee’s), else 422 naming both. ' +
          'While the hold is active, the daily retention (`recordings.retention_days` in the settings) skips the calls it covers. ' +
          'An unrestricted owner or admin key only (403 `forbidden` naming each restriction). Another workspace’s call is 404 `call_not_found`. ' +
          'Records a `legal_hold_placed` compliance event.',
        tags: ['compliance'],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['reason'],
          properties: {
            call_id: { type: 'string', format: 'uuid', description: 'The call to hold' },
            phone_number: phoneNumber('Hold every call from or to this number (E.164)'),
            reason: { type: 'string', minLength: 1, maxLength: LEGAL_HOLD_REASON_MAX_LENGTH, description: 'Why (kept for the audit)' },
          },
        }),
        responses: {
          '201': jsonResponse('`{legal_hold}`', fields({ legal_hold: ref('LegalHold') })),
          '403': restrictedKey,
          '404': errorResponse('`call_not_found`'),
        },
      },
      handler: create,
    },
    {
      method: 'get',
      path: '/api/v1/legal-holds',
      operationId: 'listLegalHolds',
      auth: adminAuth,
      rateLimit: 'reads',
      doc: {
        summary: 'Legal holds, active and released, newest first',
        description:
          'Offset pagination. `active=true` lists the holds in force, `active=false` the released ones. An unrestricted owner or admin key only.',
        tags: ['compliance'],
        parameters: [...boundedListParams(), { name: 'active', in: 'query', schema: { type: 'boolean' } }],
        responses: {
          '200': jsonResponse('`{legal_holds, total}`', fields({ legal_holds: arrayOf(ref('LegalHold')), total })),
          '403': restrictedKey,
        },
      },
      handler: list,
    },
    {
      method: 'delete',
      path: '/api/v1/legal-holds/{id}',
      operationId: 'releaseLegalHold',
      auth: adminAuth,
      rateLimit: 'settings.update',
      doc: {
        summary: 'Release a legal hold (kept, with `released_at`, for the audit)',
        description:
          'The calls it covered are deleted by the next retention run if they are past the retention and no other hold covers them. ' +
          'Releasing a released hold answers it unchanged. Records a `legal_hold_released` compliance event. An unrestricted owner or admin key only.',
        tags: ['compliance'],
        parameters: [holdIdParam],
        responses: {
          '200': jsonResponse('`{legal_hold}`', fields({ legal_hold: ref('LegalHold') })),
          '403': restrictedKey,
          '404': errorResponse('`legal_hold_not_found`'),
        },
      },
      handler: release,
    },
  ];
}
