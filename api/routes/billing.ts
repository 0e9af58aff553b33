/** Billing, settings, usage and voices (spec "Billing, settings, usage, voices"). */
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { allowedLineIds, assertUnrestrictedAdminKey } from '../lineAccess';
import { arrayOf, cursorFields, errorResponse, fields, jsonResponse, ref, jsonRequestBody } from '../openapi/schemas';
import { httpUrl, nullable } from '../openapi/fields';
import { beforeCursor, cursorPage, cursorPaginationParams, parseCursor } from '../pagination';
import type { RouteDef } from '../routeTable';
import { balanceOf, toTransactionRecord, transactionsOf } from '../../src/domain/billing/ledger';
import { readSettings, type AccountSettings } from '../../src/domain/billing/settings';
import { updateSettings } from '../../src/domain/billing/updateSettings';
import { usageByPeriod, type UsageUnit } from '../../src/domain/billing/usage';
import { VOICES } from '../../src/domain/voices/catalog';
import { CALLING_DAYS, type WorkspaceCallingWindow } from '../../src/domain/callingHours/rules';
import { recordingSettingsOf } from '../../src/domain/recordings/rules';
import { RECORDINGS_SETTINGS } from '../openapi/fields';

const read = { kind: 'standard' as const, scope: 'billing:read' as const, verb: 'read' as const };

async function balance(ctx: AppContext, deps: AppDeps): Promise<void> {
  const { balanceCents, heldCents } = await balanceOf(deps.db, principalOf(ctx));
  // `credits` is the legacy name (it has always held US cents); `cents` is the preferred one.
  ctx.body = {
    credits: balanceCents,
    cents: balanceCents,
    currency: 'USD',
    held_cents: heldCents,
    available_cents: balanceCents - heldCents,
  };
}

async function transactions(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  if (principal.key.line_id) {
    throw new ApiError(403, 'agent_scope_error', 'A line-scoped key cannot read the account’s transactions', [
      { field: 'line_id', message: principal.key.line_id },
    ]);
  }
  const { limit, cursor } = ctx.state.query as { limit: number; cursor?: string };
  // A key limited to a number allow-list sees the transactions of those lines only.
  const query = transactionsOf(deps.db, principal, allowedLineIds(principal));
  beforeCursor(query, parseCursor(cursor), 'created_at', 'id');
  const rows = await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit + 1);
  const { page, has_more, next_cursor } = cursorPage(rows, limit, (row) => ({ at: row.created_at, id: row.id }));
  ctx.body = { transactions: page.map(toTransactionRecord), has_more, next_cursor };
}

async function usage(ctx: AppContext, deps: AppDeps, unit: UsageUnit): Promise<void> {
  const principal = principalOf(ctx);
  const count = Number((ctx.state.query as Record<string, number>)[unit === 'day' ? 'days' : 'months']);
  const buckets = await usageByPeriod(deps.db, principal, { unit, count, now: deps.now(), lineIds: allowedLineIds(principal) });
  const rows = buckets.map((bucket) => ({
    [unit === 'day' ? 'date' : 'month']: bucket.key,
    calls: bucket.calls,
    minutes: bucket.minutes,
    sms_inbound: bucket.smsInbound,
    sms_outbound: bucket.smsOutbound,
    // `cost_credits` is the legacy name of `cost_cents`.
    cost_credits: bucket.costCents,
    cost_cents: bucket.costCents,
  }));
  ctx.body = unit === 'day' ? { daily: rows } : { monthly: rows };
}

function toSettings(account: AccountSettings) {
  return {
    default_webhook_url: account.default_webhook_url ?? null,
    auto_recharge_enabled: account.auto_recharge_enabled,
    auto_recharge_threshold_cents: Number(account.auto_recharge_threshold_cents),
    auto_recharge_amount_cents: Number(account.auto_recharge_amount_cents),
    calling_window: (account.calling_window as WorkspaceCallingWindow | null | undefined) ?? null,
    recordings: recordingSettingsOf(account.recordings),
  };
}

async function getSettings(ctx: AppContext, deps: AppDeps): Promise<void> {
  ctx.body = toSettings(await readSettings(deps.db, principalOf(ctx)));
}

/**
 * Settings are workspace-wide money (how the owner's card is charged) and routing (where every
 * line without its own webhook sends its events): an unrestricted owner or admin key only.
 */
async function changeSettings(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  await assertUnrestrictedAdminKey(deps, principal, 'workspace settings');
  const outcome = await updateSettings(deps, { ...principal, keyId: principal.key.id }, ctx.state.body as Record<string, unknown>);
  if (!outcome.ok) throw errors.validation(outcome.problems);
  ctx.body = toSettings(outcome.settings);
}

/** The most one automatic recharge may charge, and the highest threshold: $1,000 (docs/decisions/billing.md, Billing). */
export const AUTO_RECHARGE_MAX_CENTS = 100_000;
/** The least one automatic recharge may charge: $5. */
export const AUTO_RECHARGE_MIN_AMOUNT_CENTS = 500;

const settingsSchema = {
  type: 'object',
  properties: {
    default_webhook_url: nullable({
      ...httpUrl,
      description: 'Receives webhook events of lines without a webhook_url. Must lead to a public address (https in live).',
    }),
    auto_recharge_enabled: {
      type: 'boolean',
      description: 'Charge the card on file (of this environment) when the balance runs low; on by default in live, off in test',
    },
    auto_recharge_threshold_cents: {
      type: 'integer',
      minimum: 0,
      maximum: AUTO_RECHARGE_MAX_CENTS,
      description: 'Charge the card when the balance falls below this (at most $1,000)',
    },
    auto_recharge_amount_cents: {
      type: 'integer',
      minimum: AUTO_RECHARGE_MIN_AMOUNT_CENTS,
      maximum: AUTO_RECHARGE_MAX_CENTS,
      description: 'How much each automatic recharge adds (at most $1,000)',
    },
    calling_window: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['start', 'end', 'days'],
      description:
        'This environment’s own calling window, in the callee’s local time: it narrows the legal window (08:00–21:00, and stricter national and state rules) and never widens it ' +
        '(a start before 08:00 or an end after 21:00 is refused 422 naming the field). Null: the legal window alone. Outside it, calls are refused 403 `outside_calling_hours`.',
      properties: {
        // The patterns state the legal window (no widening); that start comes before end is the server's check.
        start: {
          type: 'string',
          pattern: '^(0[89]|1[0-9]|20):[0-5][0-9]$',
          'x-pattern-message': 'Must be a time HH:MM from 08:00: a calling window can only narrow the legal 08:00–21:00 (callee-local)',
          description: 'First minute calls may be placed, HH:MM, from 08:00 (earlier is a widening, refused 422 naming the field)',
          example: '09:00',
        },
        end: {
          type: 'string',
          pattern: '^((0[89]|1[0-9]|20):[0-5][0-9]|21:00)$',
          'x-pattern-message': 'Must be a time HH:MM until 21:00: a calling window can only narrow the legal 08:00–21:00 (callee-local)',
          description:
            'End of the window (excluded), HH:MM, 21:00 at the latest (later is a widening, refused 422 naming the field); after start',
          example: '20:00',
        },
        days: {
          type: 'array',
          minItems: 1,
          maxItems: 7,
          uniqueItems: true,
          items: { type: 'string', enum: [...CALLING_DAYS] },
          description: 'The days calls may be placed on (callee-local)',
          example: ['mon', 'tue', 'wed', 'thu', 'fri'],
        },
      },
    }),
    recordings: RECORDINGS_SETTINGS,
  },
};

export function billingRoutes(): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/api/v1/billing/balance',
      operationId: 'getBalance',
      auth: read,
      rateLimit: 'reads',
      doc: {
        summary: 'The balance in US cents (`credits` is the legacy name of `cents`)',
        tags: ['billing'],
        responses: { '200': jsonResponse('`{credits, cents, currency: "USD", held_cents, available_cents}`', ref('Balance')) },
      },
      handler: balance,
    },
    {
      method: 'get',
      path: '/api/v1/billing/transactions',
      operationId: 'listTransactions',
      auth: read,
      rateLimit: 'reads',
      doc: {
        summary: 'Ledger transactions, newest first (cursor pagination)',
        tags: ['billing'],
        parameters: cursorPaginationParams(),
        responses: {
          '200': jsonResponse(
            '`{transactions, has_more, next_cursor}`',
            fields({ transactions: arrayOf(ref('Transaction')), ...cursorFields }),
          ),
          '403': errorResponse(
            '`agent_scope_error` for line-scoped keys (a key limited to a number allow-list sees those lines’ transactions only)',
          ),
        },
      },
      handler: transactions,
    },
    {
      method: 'get',
      path: '/api/v1/usage/daily',
      operationId: 'usageDaily',
      auth: read,
      rateLimit: 'reads',
      doc: {
        summary: 'Usage per UTC day, oldest first, one row per day',
        tags: ['billing'],
        parameters: [{ name: 'days', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 366, default: 30 } }],
        responses: {
          '200': jsonResponse(
            '`{daily: [{date, calls, minutes, sms_inbound, sms_outbound, cost_credits, cost_cents}]}`',
            fields({ daily: arrayOf(ref('UsageDay')) }),
          ),
        },
      },
      handler: (ctx, deps) => usage(ctx, deps, 'day'),
    },
    {
      method: 'get',
      path: '/api/v1/usage/monthly',
      operationId: 'usageMonthly',
      auth: read,
      rateLimit: 'reads',
      doc: {
        summary: 'Usage per UTC month, oldest first, one row per month',
        tags: ['billing'],
        parameters: [{ name: 'months', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 36, default: 12 } }],
        responses: {
          '200': jsonResponse(
            '`{monthly: [{month, calls, minutes, sms_inbound, sms_outbound, cost_credits, cost_cents}]}`',
            fields({ monthly: arrayOf(ref('UsageMonth')) }),
          ),
        },
      },
      handler: (ctx, deps) => usage(ctx, deps, 'month'),
    },
    {
      method: 'get',
      path: '/api/v1/settings',
      operationId: 'getSettings',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'reads',
      doc: {
        summary: 'Workspace settings for this environment',
        tags: ['settings'],
        responses: { '200': jsonResponse('Unwrapped settings', ref('Settings')) },
      },
      handler: getSettings,
    },
    {
      method: 'patch',
      path: '/api/v1/settings',
      operationId: 'updateSettings',
      rateLimit: 'settings.update',
      auth: { kind: 'standard', scope: 'keys:admin', verb: 'admin' },
      doc: {
        summary: 'Change settings (how the card is charged, where lines without a webhook send events, the calling window)',
        description:
          'Workspace-wide money and routing: needs `keys:admin` on an unrestricted key of an owner or admin (not minted by another key; no line, allow-list, spend limit, ' +
          'monthly cap or tier below full), else 403 `forbidden` naming each restriction. Each change records a `settings_changed` compliance event.',
        tags: ['settings'],
        requestBody: jsonRequestBody({ ...settingsSchema, additionalProperties: false }),
        responses: {
          '200': jsonResponse('Unwrapped settings', ref('Settings')),
          '403': errorResponse('`forbidden`: not an unrestricted owner or admin key'),
        },
      },
      handler: changeSettings,
    },
    {
      method: 'get',
      path: '/api/v1/voices',
      operationId: 'listVoices',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      doc: {
        summary: 'The voice catalog; a line’s `voice` is one of these slugs',
        tags: ['voices'],
        responses: {
          '200': jsonResponse(
            '`{voices: [{slug, name, gender, accent, description, languages}]}`',
            fields({ voices: arrayOf(ref('Voice')) }),
          ),
        },
      },
      handler: async (ctx) => {
        ctx.body = { voices: VOICES };
      },
    },
  ];
}
