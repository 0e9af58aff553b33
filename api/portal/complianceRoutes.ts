import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { errors } from '../errors';
import { isUuid } from '../openapi/formats';
import { phoneOrFail } from '../phoneField';
import {
  consentsOf,
  CONSENT_SOURCE_MAX_LENGTH,
  CONSENT_TYPES,
  grantConsent,
  revokeConsents,
  toConsentRecord,
  type ConsentType,
} from '../../src/domain/compliance/consent';
import {
  addDisclosure,
  DISCLOSURE_LANGUAGES,
  DISCLOSURE_LIMITS,
  disclosuresOf,
  toDisclosureRecord,
} from '../../src/domain/compliance/disclosures';
import type { PortalAttribution } from '../../src/domain/compliance/events';
import { OPT_IN_REASON_MAX_LENGTH, optIn, optOut, optOutsOf } from '../../src/domain/compliance/optOuts';
import { findLine, linesOf } from '../../src/domain/lines/store';
import { changed } from './answer';
import { sendPage } from './http';
import type { PortalLimit } from './limits';
import { gatedFormPost, navOf, operatorOrLogin, roleAllows, tenantOf } from './operatorPages';
import { compliancePage, type CompliancePageInput } from './pages/compliance';
import type { Operator } from './visitor';

const ROWS_SHOWN = 100;

const phoneOf = (form: Record<string, string>) => phoneOrFail(form.phone_number ?? '');
const PAGE = '/portal/compliance';
/** Every change made here names its portal user in the compliance log (issue 27, L21). */
const byOf = (operator: Operator): PortalAttribution => ({ userId: operator.user.id, via: 'portal' });

async function pageInput(deps: AppDeps, operator: Operator, extra: Partial<CompliancePageInput> = {}): Promise<CompliancePageInput> {
  const tenant = tenantOf(operator);
  const [consents, optOuts, disclosures, lines] = await Promise.all([
    consentsOf(deps.db, tenant).orderBy('granted_at', 'desc').limit(ROWS_SHOWN),
    optOutsOf(deps.db, tenant).orderBy('opted_out_at', 'desc').limit(ROWS_SHOWN),
    disclosuresOf(deps.db, tenant).orderBy('created_at', 'desc').limit(ROWS_SHOWN),
    linesOf(deps.db, tenant).orderBy('created_at').select('id', 'name', 'released_at'),
  ]);
  return {
    consents,
    optOuts,
    disclosures,
    lines,
    languages: DISCLOSURE_LANGUAGES,
    mayChange: roleAllows(operator, 'consent:write'),
    mayRemoveOptOuts: operator.user.role === 'owner',
    ...extra,
  };
}

/**
 * Opt-outs (add and remove, as the CLI's `opt-out add|remove` through the same use cases), consent
 * records (grant, revoke) and the AI disclosures (add) of the environment, written by the use cases
 * the API's compliance routes call. Changes need `consent:write`, the scope those routes need; every role may read.
 */
export function complianceRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get(PAGE, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
    sendPage(ctx, 200, compliancePage(navOf(operator, PAGE), await pageInput(deps, operator)));
  });

  /** A signed-in `consent:write` form post; its refusals are shown on the page again with what was typed. */
  const complianceChange = (
    path: string,
    act: (ctx: AppContext, operator: Operator, form: Record<string, string>) => Promise<unknown>,
    rateLimit?: PortalLimit,
  ) =>
    gatedFormPost(router, deps, {
      path,
      scope: 'consent:write',
      rateLimit,
      refusal: 'Your role cannot change compliance records',
      act: async (ctx, operator, form) => changed(ctx, `${PAGE}?env=${operator.environment}`, 200, await act(ctx, operator, form)),
      pageAgain: async (operator, form) => {
        const input = await pageInput(deps, operator, { form });
        return (shown) => compliancePage(navOf(operator, PAGE), { ...input, error: shown });
      },
    });

  complianceChange(`${PAGE}/opt-outs`, async (_ctx, operator, form) => {
    const input = { tenant: tenantOf(operator), phoneNumber: phoneOf(form), source: 'portal', by: byOf(operator), at: deps.now() };
    return { phone_number: input.phoneNumber, opted_out: true, changed: await optOut(deps.db, input) };
  });

  // Erasing a recipient's STOP is the owner's decision alone, with a reason on the record (issue 27, M14):
  // the API has no such operation, and otherwise only the recipient's START lifts it.
  complianceChange(`${PAGE}/opt-outs/remove`, async (ctx, operator, form) => {
    if (operator.user.role !== 'owner') throw errors.forbidden('Only an owner can remove an opt-out');
    const reason = (form.reason ?? '').trim();
    if (reason.length === 0 || reason.length > OPT_IN_REASON_MAX_LENGTH)
      throw errors.validation([{ field: 'reason', message: `Is required, at most ${OPT_IN_REASON_MAX_LENGTH} characters` }]);
    const input = { tenant: tenantOf(operator), phoneNumber: phoneOf(form), source: 'portal', reason, by: byOf(operator), at: deps.now() };
    if (!(await optIn(deps.db, input))) throw errors.notFound('Opt-out');
    ctx.state.log.warn({ user_id: operator.user.id, environment: operator.environment }, 'opt-out removed in the portal');
    return { phone_number: input.phoneNumber, opted_out: false, changed: true };
  });

  // Consent as `POST /api/v1/consent` records it (no acting key: the operator's), source `portal` unless named.
  complianceChange(
    `${PAGE}/consent`,
    async (_ctx, operator, form) => {
      const phoneNumber = phoneOf(form);
      const consentType = form.consent_type as ConsentType;
      if (!CONSENT_TYPES.includes(consentType)) throw errors.validation([{ field: 'consent_type', message: 'Choose a consent type' }]);
      const line = isUuid(form.line_id) ? await findLine(deps.db, tenantOf(operator), form.line_id) : undefined;
      if (!line) throw errors.notFound('Line');
      const source = (form.source ?? '').trim() || 'portal';
      if (source.length > CONSENT_SOURCE_MAX_LENGTH)
        throw errors.validation([{ field: 'source', message: `At most ${CONSENT_SOURCE_MAX_LENGTH} characters` }]);
      const row = await grantConsent(deps.db, {
        tenant: tenantOf(operator),
        lineId: line.id,
        phoneNumber,
        consentType,
        source,
        actorKeyId: null,
        by: byOf(operator),
        at: deps.now(),
      });
      if (!row) throw errors.consentAlreadyGranted(consentType);
      return { consent: toConsentRecord(row) };
    },
    'consent.create',
  );

  complianceChange(
    `${PAGE}/consent/revoke`,
    async (_ctx, operator, form) => {
      const revoked = await revokeConsents(deps.db, {
        tenant: tenantOf(operator),
        phoneNumber: phoneOf(form),
        lineIds: [form.line_id ?? ''].filter(isUuid),
        actorKeyId: null,
        by: byOf(operator),
        at: deps.now(),
      });
      if (revoked.length === 0) throw errors.notFound('Active consent');
      return { revoked: revoked.length };
    },
    'consent.revoke',
  );

  // A disclosure as `POST /api/v1/disclosures` adds it; a new default is its `disclosure_default_changed` event.
  complianceChange(
    `${PAGE}/disclosures`,
    async (_ctx, operator, form) => {
      const message = (form.message ?? '').trim();
      const problems: Array<{ field: string; message: string }> = [];
      const { messageMaxLength, jurisdictionMinLength, jurisdictionMaxLength } = DISCLOSURE_LIMITS;
      if (message.length === 0 || message.length > messageMaxLength)
        problems.push({ field: 'message', message: `Is required, at most ${messageMaxLength} characters` });
      const language = form.language || 'en';
      if (!DISCLOSURE_LANGUAGES.includes(language)) problems.push({ field: 'language', message: 'Choose a language' });
      const jurisdiction = (form.jurisdiction ?? '').trim() || 'US';
      if (jurisdiction.length < jurisdictionMinLength || jurisdiction.length > jurisdictionMaxLength)
        problems.push({ field: 'jurisdiction', message: `${jurisdictionMinLength} to ${jurisdictionMaxLength} characters` });
      if (problems.length > 0) throw errors.validation(problems);
      const author = { ...tenantOf(operator), keyId: null, by: byOf(operator) };
      const row = await addDisclosure(
        deps.db,
        author,
        { message, language, jurisdiction, is_default: form.is_default ? true : undefined },
        deps.now(),
      );
      return { disclosure: toDisclosureRecord(row) };
    },
    'disclosures.create',
  );
}
