import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { errors } from '../errors';
import { isUuid } from '../openapi/formats';
import { phoneOrFail } from '../phoneField';
import { consentsOf, revokeConsents } from '../../src/domain/compliance/consent';
import { OPT_IN_REASON_MAX_LENGTH, optIn, optOutsOf } from '../../src/domain/compliance/optOuts';
import { findLine } from '../../src/domain/lines/store';
import { changed } from './answer';
import { envFields, time } from './components';
import { confirmedAction } from './confirm';
import { html } from './html';
import { navOf, tenantOf } from './operatorPages';
import { compliancePage } from './pages/compliance';
import { complianceInput, complianceAttribution } from './complianceRoutes';
import type { Operator } from './visitor';

const PAGE = '/portal/compliance';
const back = (operator: Operator) => ({ href: `${PAGE}?env=${operator.environment}`, label: 'back to compliance' });

const complianceAgain = (deps: AppDeps) => async (operator: Operator) => {
  const input = await complianceInput(deps, operator);
  return (shown: Parameters<typeof compliancePage>[1]['error']) => compliancePage(navOf(operator, PAGE), { ...input, error: shown });
};

/**
 * Revoking a consent and removing an opt-out (the owner's decision, with a reason), each behind its confirmation step
 * (./confirm.ts); the number, line and reason the button carried ride along as hidden fields.
 */
export function complianceActions(router: Router<AppState>, deps: AppDeps): void {
  confirmedAction(router, deps, {
    path: `${PAGE}/consent/revoke`,
    navPath: PAGE,
    scope: 'consent:write',
    refusal: 'Your role cannot change compliance records',
    rateLimit: 'consent.revoke',
    staleCode: 'consent_not_active',
    describe: async (_ctx, operator, fields) => {
      const phoneNumber = phoneOrFail(fields.phone_number ?? '');
      const line = isUuid(fields.line_id) ? await findLine(deps.db, tenantOf(operator), fields.line_id) : undefined;
      if (!line) throw errors.notFound('Line');
      const latest = await consentsOf(deps.db, tenantOf(operator))
        .where({ phone_number: phoneNumber, line_id: line.id })
        .orderBy('granted_at', 'desc')
        .first();
      if (!latest) throw errors.notFound('Active consent');
      const base = {
        title: `Revoke the consent of ${phoneNumber} on ${line.name}?`,
        action: `${PAGE}/consent/revoke`,
        hidden: { ...envFields(navOf(operator, PAGE)), phone_number: phoneNumber, line_id: line.id },
        confirmLabel: 'Revoke consent',
        back: back(operator),
      };
      if (latest.status !== 'active')
        return {
          ...base,
          consequences: [],
          stale: {
            message: 'This consent is no longer active.',
            state: html`<p id="current-state">Revoked ${time(latest.revoked_at)}.</p>`,
          },
        };
      return {
        ...base,
        consequences: [
          html`Every active consent of <span class="mono">${phoneNumber}</span> on ${line.name} is revoked now.`,
          line.compliance_enabled
            ? 'The line checks consent: its calls to the number are refused (consent_required) until it is granted again.'
            : 'The line does not check consent before calling; the record is kept for your own checks.',
          'The revocation is recorded in the audit log with your name.',
        ],
      };
    },
    pageAgain: complianceAgain(deps),
    act: async (ctx, operator, form) => {
      const revoked = await revokeConsents(deps.db, {
        tenant: tenantOf(operator),
        phoneNumber: phoneOrFail(form.phone_number ?? ''),
        lineIds: [form.line_id ?? ''].filter(isUuid),
        actorKeyId: null,
        by: complianceAttribution(operator),
        at: deps.now(),
      });
      if (revoked.length === 0) throw errors.notFound('Active consent');
      changed(ctx, `${PAGE}?env=${operator.environment}`, 200, { revoked: revoked.length });
    },
  });

  // Erasing a recipient's STOP is the owner's decision alone, with a reason on the record (issue 27, M14):
  // the API has no such operation, and otherwise only the recipient's START lifts it.
  confirmedAction(router, deps, {
    path: `${PAGE}/opt-outs/remove`,
    navPath: PAGE,
    scope: 'consent:write',
    refusal: 'Your role cannot change compliance records',
    staleCode: 'not_opted_out',
    describe: async (_ctx, operator, fields) => {
      if (operator.user.role !== 'owner') throw errors.forbidden('Only an owner can remove an opt-out');
      const phoneNumber = phoneOrFail(fields.phone_number ?? '');
      const reason = (fields.reason ?? '').trim();
      if (reason.length === 0 || reason.length > OPT_IN_REASON_MAX_LENGTH)
        throw errors.validation([{ field: 'reason', message: `Is required, at most ${OPT_IN_REASON_MAX_LENGTH} characters` }]);
      const optOut = await optOutsOf(deps.db, tenantOf(operator)).where({ phone_number: phoneNumber }).first();
      const base = {
        title: `Remove the opt-out of ${phoneNumber}?`,
        action: `${PAGE}/opt-outs/remove`,
        hidden: { ...envFields(navOf(operator, PAGE)), phone_number: phoneNumber, reason },
        confirmLabel: 'Remove opt-out',
        back: back(operator),
      };
      // Never opted out and opted in since read alike here: the compliance page, showing the current list, says so.
      if (!optOut) throw errors.notFound('Opt-out');
      return {
        ...base,
        consequences: [
          html`<span class="mono">${phoneNumber}</span> opted out ${time(optOut.opted_out_at)} (${optOut.source}); from now on your lines
            may call and text it again.`,
          html`Your reason is recorded with your name: “${reason}”.`,
          'Only do this with the recipient’s own request on record: their STOP is otherwise lifted only by their START.',
        ],
      };
    },
    pageAgain: complianceAgain(deps),
    act: async (ctx, operator, form) => {
      const phoneNumber = phoneOrFail(form.phone_number ?? '');
      const reason = (form.reason ?? '').trim();
      const input = {
        tenant: tenantOf(operator),
        phoneNumber,
        source: 'portal' as const,
        reason,
        by: complianceAttribution(operator),
        at: deps.now(),
      };
      if (!(await optIn(deps.db, input))) throw errors.notFound('Opt-out');
      ctx.state.log.warn({ user_id: operator.user.id, environment: operator.environment }, 'opt-out removed in the portal');
      changed(ctx, `${PAGE}?env=${operator.environment}`, 200, { phone_number: phoneNumber, opted_out: false, changed: true });
    },
  });
}
