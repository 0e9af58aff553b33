/** Consent, disclosures and the compliance audit (spec "Compliance"). */
import { principalOf, type AppContext, type AppDeps } from '../context';
import { errors } from '../errors';
import { phoneOrFail } from '../phoneField';
import { allowedLineIds, assertLineAllowed, assertWorkspaceWide } from '../lineAccess';
import { auditFiltersOf } from '../auditFilters';
import { phoneNumber } from '../openapi/fields';
import {
  arrayOf,
  boundedListParams,
  errorResponse,
  fields,
  jsonResponse,
  offsetPaginationParams,
  jsonRequestBody,
  ref,
  total,
} from '../openapi/schemas';
import { offsetPage } from '../pagination';
import type { RouteDef } from '../routeTable';
import {
  addDisclosure,
  DISCLOSURE_LANGUAGES,
  DISCLOSURE_LIMITS,
  disclosuresOf,
  toDisclosureRecord,
} from '../../src/domain/compliance/disclosures';
import { auditEvents } from '../../src/domain/compliance/auditLog';
import {
  consentsOf,
  CONSENT_SOURCE_MAX_LENGTH,
  CONSENT_TYPES,
  grantConsent,
  revokeConsents,
  toConsentRecord,
  type ConsentType,
} from '../../src/domain/compliance/consent';
import { findLine } from '../../src/domain/lines/store';

async function grant(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const body = ctx.state.body as { line_id: string; phone_number: string; consent_type: ConsentType; source?: string };
  const phoneNumber = phoneOrFail(body.phone_number);
  assertLineAllowed(principal, body.line_id);
  const line = await findLine(deps.db, principal, body.line_id);
  if (!line) throw errors.notFound('Line');
  const row = await grantConsent(deps.db, {
    tenant: principal,
    lineId: line.id,
    phoneNumber,
    consentType: body.consent_type,
    source: body.source ?? 'api',
    actorKeyId: principal.key.id,
    at: deps.now(),
  });
  if (!row) throw errors.consentAlreadyGranted(body.consent_type);
  ctx.status = 201;
  ctx.body = { consent: toConsentRecord(row) };
}

async function check(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as {
    phone_number?: string;
    line_id?: string;
    consent_type?: ConsentType;
    status?: 'active' | 'revoked';
    limit: number;
    offset: number;
  };
  const allowed = allowedLineIds(principal);
  if (q.line_id) assertLineAllowed(principal, q.line_id);
  const scoped = () => {
    const query = consentsOf(deps.db, principal);
    if (q.line_id) query.andWhere({ line_id: q.line_id });
    else if (allowed) query.whereIn('line_id', [...allowed]);
    if (q.consent_type) query.andWhere({ consent_type: q.consent_type });
    return query;
  };
  if (q.phone_number) {
    // A check for one number (optionally on one line): the current state, unwrapped.
    const active = await scoped()
      .andWhere({ phone_number: phoneOrFail(q.phone_number), status: 'active' })
      .orderBy('granted_at', 'desc')
      .first();
    ctx.body = { status: active ? 'active' : 'none', consent: active ? toConsentRecord(active) : null };
    return;
  }
  const filtered = () => (q.status ? scoped().andWhere({ status: q.status }) : scoped());
  const { rows, total } = await offsetPage(filtered, q, 'granted_at');
  ctx.body = { consents: rows.map(toConsentRecord), total };
}

async function revoke(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { phone_number: string; line_id?: string };
  const phoneNumber = phoneOrFail(q.phone_number);
  if (q.line_id) assertLineAllowed(principal, q.line_id);
  const lineIds = q.line_id ? [q.line_id] : allowedLineIds(principal);
  const revoked = await revokeConsents(deps.db, { tenant: principal, phoneNumber, lineIds, actorKeyId: principal.key.id, at: deps.now() });
  if (revoked.length === 0) throw errors.notFound('Active consent');
  ctx.body = { consent: toConsentRecord(revoked[0]), revoked: revoked.length };
}

/**
 * Disclosures belong to the workspace, and a language's default is played on every
 * compliance-enabled line: a key restricted to particular lines may not write them.
 */
async function createDisclosure(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  assertWorkspaceWide(principal, {
    lineScoped: 'A line-scoped key cannot write workspace-wide disclosures',
    allowListed: 'A key limited to a number allow-list cannot write workspace-wide disclosures',
  });
  const body = ctx.state.body as { message: string; language?: string; jurisdiction?: string; is_default?: boolean };
  const row = await addDisclosure(deps.db, { ...principal, keyId: principal.key.id }, body, deps.now());
  ctx.status = 201;
  ctx.body = { disclosure: toDisclosureRecord(row) };
}

async function listDisclosures(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { limit: number; offset: number };
  const { rows, total } = await offsetPage(() => disclosuresOf(deps.db, principal), q);
  ctx.body = { disclosures: rows.map(toDisclosureRecord), total };
}

export function toComplianceEvent(row: Record<string, unknown>) {
  return {
    id: row.id,
    line_id: row.line_id ?? null,
    call_id: row.call_id ?? null,
    phone_number: row.phone_number ?? null,
    event_type: row.event_type,
    actor_key_id: row.actor_key_id ?? null,
    metadata: row.metadata ?? null,
    created_at: (row.created_at as Date).toISOString(),
  };
}

async function audit(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as {
    line_id?: string;
    phone_number?: string;
    event_type?: string;
    from?: string;
    to?: string;
    limit: number;
    offset: number;
  };
  if (q.line_id) assertLineAllowed(principal, q.line_id);
  const allowed = allowedLineIds(principal);
  // The validator admitted only times these parse (a leap second is the next minute's start): a phone number is what may not.
  const parsed = auditFiltersOf(q);
  if (parsed.problems.length > 0) throw errors.validation(parsed.problems);
  const filters = { lineId: q.line_id, allowedLineIds: allowed, eventType: q.event_type, ...parsed.filters };
  const filtered = () => auditEvents(deps.db, principal, filters);
  const { rows, total } = await offsetPage(filtered, q);
  ctx.body = { events: rows.map(toComplianceEvent), total };
}

const phoneParam = (required: boolean) => ({
  name: 'phone_number',
  in: 'query' as const,
  required,
  schema: phoneNumber(),
});
/** A date is 10 characters; the bound is the date-time's, where a generator can reach it (docs/decisions/api.md, "Bounds on the branch that needs them"). */
const dateOrDateTime = { type: 'string', anyOf: [{ format: 'date-time', maxLength: 64 }, { format: 'date' }] };
const lineParam = { name: 'line_id', in: 'query' as const, schema: { type: 'string', format: 'uuid' } };
const auditParams = [
  lineParam,
  phoneParam(false),
  { name: 'event_type', in: 'query' as const, schema: { type: 'string', maxLength: 64 } },
  {
    name: 'from',
    in: 'query' as const,
    schema: dateOrDateTime,
    description: 'Inclusive: an RFC 3339 date-time, or a date meaning 00:00 UTC that day',
  },
  {
    name: 'to',
    in: 'query' as const,
    schema: dateOrDateTime,
    description: 'Exclusive: an RFC 3339 date-time, or a date meaning 00:00 UTC that day',
  },
  ...offsetPaginationParams(),
];
const readAuth = { kind: 'standard' as const, scope: 'read' as const, verb: 'read' as const };
const auditDoc = {
  summary: 'Compliance events, newest first: consent, opt-outs, disclosures played, audit reads, key lifecycle',
  tags: ['compliance'],
  parameters: auditParams,
  responses: {
    '200': jsonResponse(
      '`{events: [{id, line_id, call_id, phone_number, event_type, actor_key_id, metadata, created_at}], total}`',
      fields({ events: arrayOf(ref('ComplianceEvent')), total }),
    ),
  },
};

export function complianceRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/consent',
      operationId: 'grantConsent',
      auth: { kind: 'standard', scope: 'consent:write', verb: 'admin' },
      rateLimit: 'consent.create',
      idempotency: { required: false },
      doc: {
        summary: 'Record consent for a (line, phone number)',
        tags: ['compliance'],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['line_id', 'phone_number', 'consent_type'],
          properties: {
            line_id: { type: 'string', format: 'uuid' },
            phone_number: phoneNumber(),
            consent_type: { type: 'string', enum: [...CONSENT_TYPES] },
            source: {
              type: 'string',
              minLength: 1,
              maxLength: CONSENT_SOURCE_MAX_LENGTH,
              description: 'Where the consent came from, e.g. "api", "web_form"; default "api"',
            },
          },
        }),
        responses: {
          '201': jsonResponse('`{consent}`', fields({ consent: ref('Consent') })),
          '404': errorResponse('`not_found`: the line'),
          '409': errorResponse('`consent_already_granted`'),
        },
      },
      handler: grant,
    },
    {
      method: 'get',
      path: '/api/v1/consent',
      operationId: 'checkConsent',
      auth: readAuth,
      doc: {
        summary: 'With phone_number: the consent state of that number (unwrapped `{status, consent}`); without: a list',
        tags: ['compliance'],
        parameters: [
          phoneParam(false),
          lineParam,
          { name: 'consent_type', in: 'query', schema: { type: 'string', enum: [...CONSENT_TYPES] } },
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['active', 'revoked'] } },
          ...offsetPaginationParams(),
        ],
        responses: {
          '200': jsonResponse('`{status: "active"|"none", consent}` for a number, `{consents, total}` otherwise', {
            oneOf: [
              fields({ status: { type: 'string', enum: ['active', 'none'] }, consent: { oneOf: [ref('Consent'), { type: 'null' }] } }),
              fields({ consents: arrayOf(ref('Consent')), total }),
            ],
          }),
        },
      },
      handler: check,
    },
    {
      method: 'delete',
      path: '/api/v1/consent',
      operationId: 'revokeConsent',
      rateLimit: 'consent.revoke',
      auth: { kind: 'standard', scope: 'consent:write', verb: 'admin' },
      doc: {
        summary: 'Revoke the active consents of a number (on one line, or on every line the key may act on)',
        tags: ['compliance'],
        parameters: [phoneParam(true), lineParam],
        responses: {
          '200': jsonResponse(
            '`{consent, revoked}`: the (first) revoked record and how many were revoked',
            fields({ consent: ref('Consent'), revoked: { type: 'integer', minimum: 1 } }),
          ),
          '404': errorResponse('`not_found`: no active consent'),
        },
      },
      handler: revoke,
    },
    {
      method: 'post',
      path: '/api/v1/disclosures',
      operationId: 'createDisclosure',
      auth: { kind: 'standard', scope: 'consent:write', verb: 'admin' },
      rateLimit: 'disclosures.create',
      doc: {
        summary: 'Add an AI disclosure; the default of a language is played at the start of calls on compliance-enabled lines',
        description:
          'Workspace-wide: a line-scoped key gets 403 `agent_scope_error`, a key limited to a number allow-list 403 `forbidden`. A new default records a `disclosure_default_changed` compliance event.',
        tags: ['compliance'],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['message'],
          properties: {
            message: { type: 'string', minLength: 1, maxLength: DISCLOSURE_LIMITS.messageMaxLength },
            language: { type: 'string', enum: [...DISCLOSURE_LANGUAGES], default: 'en' },
            jurisdiction: {
              type: 'string',
              minLength: DISCLOSURE_LIMITS.jurisdictionMinLength,
              maxLength: DISCLOSURE_LIMITS.jurisdictionMaxLength,
              default: 'US',
            },
            is_default: { type: 'boolean', description: 'Defaults to true for the first disclosure of a language' },
          },
        }),
        responses: {
          '201': jsonResponse('`{disclosure}`', fields({ disclosure: ref('Disclosure') })),
          '403': errorResponse('`agent_scope_error` or `forbidden`: a key restricted to particular lines'),
        },
      },
      handler: createDisclosure,
    },
    {
      method: 'get',
      path: '/api/v1/disclosures',
      operationId: 'listDisclosures',
      rateLimit: 'reads',
      auth: readAuth,
      doc: {
        summary: 'Disclosures, newest first',
        description: 'Offset pagination; the default page (100) holds every disclosure of most workspaces.',
        tags: ['compliance'],
        parameters: boundedListParams(),
        responses: { '200': jsonResponse('`{disclosures, total}`', fields({ disclosures: arrayOf(ref('Disclosure')), total })) },
      },
      handler: listDisclosures,
    },
    {
      method: 'get',
      path: '/api/v1/compliance/audit',
      operationId: 'complianceAudit',
      auth: readAuth,
      rateLimit: 'reads',
      doc: auditDoc,
      handler: audit,
    },
    {
      method: 'get',
      path: '/api/v1/compliance/events',
      operationId: 'complianceEvents',
      auth: readAuth,
      rateLimit: 'reads',
      doc: { ...auditDoc, description: 'Alias of /api/v1/compliance/audit.' },
      handler: audit,
    },
  ];
}
