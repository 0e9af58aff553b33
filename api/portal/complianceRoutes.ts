import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { consentsOf } from '../../src/domain/compliance/consent';
import { disclosuresOf } from '../../src/domain/compliance/disclosures';
import { optIn, optOut, optOutsOf } from '../../src/domain/compliance/optOuts';
import { linesOf } from '../../src/domain/lines/store';
import { toE164 } from '../../src/platform/phone';
import { changed, refuse } from './answer';
import { sendPage } from './http';
import { navOf, operatorForm, operatorOrLogin, roleAllows, tenantOf } from './operatorPages';
import { compliancePage, type CompliancePageInput } from './pages/compliance';
import type { Operator } from './visitor';

const ROWS_SHOWN = 100;
const PAGE = '/portal/compliance';

async function pageInput(deps: AppDeps, operator: Operator, extra: Partial<CompliancePageInput> = {}): Promise<CompliancePageInput> {
  const tenant = tenantOf(operator);
  const [consents, optOuts, disclosures, lines] = await Promise.all([
    consentsOf(deps.db, tenant).orderBy('granted_at', 'desc').limit(ROWS_SHOWN),
    optOutsOf(deps.db, tenant).orderBy('opted_out_at', 'desc').limit(ROWS_SHOWN),
    disclosuresOf(deps.db, tenant).orderBy('created_at', 'desc').limit(ROWS_SHOWN),
    linesOf(deps.db, tenant).select('id', 'name'),
  ]);
  return {
    consents,
    optOuts,
    disclosures,
    lineNames: new Map(lines.map((line) => [line.id, line.name])),
    mayChange: roleAllows(operator, 'consent:write'),
    ...extra,
  };
}

/**
 * Consent records, opt-outs (add and remove, as the CLI's `opt-out add|remove` through the same
 * use cases) and the AI disclosures of the environment. Changing opt-outs needs `consent:write`,
 * the scope the API's consent writes need; every role may read.
 */
export function complianceRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get(PAGE, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
    sendPage(ctx, 200, compliancePage(navOf(operator, PAGE), await pageInput(deps, operator)));
  });

  for (const action of ['add', 'remove'] as const) {
    router.post(action === 'add' ? `${PAGE}/opt-outs` : `${PAGE}/opt-outs/remove`, async (rawCtx) => {
      const ctx = rawCtx as AppContext;
      const signedIn = await operatorForm(ctx, deps);
      if (!signedIn) return;
      const { form, operator } = signedIn;
      try {
        if (!roleAllows(operator, 'consent:write')) throw errors.forbidden('Your role cannot change opt-outs');
        const phoneNumber = toE164(form.phone_number ?? '');
        if (!phoneNumber)
          throw errors.validation([{ field: 'phone_number', message: 'Must be a valid phone number, preferably E.164 (+14155550123)' }]);
        const input = { tenant: tenantOf(operator), phoneNumber, source: 'portal', at: deps.now() };
        const didChange = action === 'add' ? await optOut(deps.db, input) : await optIn(deps.db, input);
        if (action === 'remove' && !didChange) throw errors.notFound('Opt-out');
        changed(ctx, `${PAGE}?env=${operator.environment}`, 200, {
          phone_number: phoneNumber,
          opted_out: action === 'add',
          changed: didChange,
        });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const input = await pageInput(deps, operator, { form });
        refuse(ctx, err, (shown) => compliancePage(navOf(operator, PAGE), { ...input, error: shown }));
      }
    });
  }
}
