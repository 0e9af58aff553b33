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
import { optOut, optOutsOf } from '../../src/domain/compliance/optOuts';
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
export const complianceAttribution = (operator: Operator): PortalAttribution => ({ userId: operator.user.id, via: 'portal' });

export async function complianceInput(
  deps: AppDeps,
  operator: Operator,
  extra: Partial<CompliancePageInput> = {},
): Promise<CompliancePageInput> {
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
 * Opt-outs (add; remove: ./complianceActions.ts, as the CLI's `opt-out add|remove` through the same use cases), consent
 * records (grant; revoke: ./complianceActions.ts) and the AI disclosures (add) of the environment, written by the use cases
 * the API's compliance routes call. Changes need `consent:write`, the scope those routes need; every role may read.
 */
export function complianceRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get(PAGE, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
    sendPage(ctx, 200, compliancePage(navOf(operator, PAGE), await complianceInput(deps, operator)));
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
        const input = await complianceInput(deps, operator, { form });
        return (shown) => compliancePage(navOf(operator, PAGE), { ...input, error: shown });
      },
    });

  complianceChange(`${PAGE}/opt-outs`, async (_ctx, operator, form) => {
    const input = {
      tenant: tenantOf(operator),
      phoneNumber: phoneOf(form),
      source: 'portal' as const,
      by: complianceAttribution(operator),
      at: deps.now(),
    };
    return { phone_number: input.phoneNumber, opted_out: true, changed: await optOut(deps.db, input) };
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
        by: complianceAttribution(operator),
        at: deps.now(),
      });
      if (!row) throw errors.consentAlreadyGranted(consentType);
      return { consent: toConsentRecord(row) };
    },
    'consent.create',
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
      const author = { ...tenantOf(operator), keyId: null, by: complianceAttribution(operator) };
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
