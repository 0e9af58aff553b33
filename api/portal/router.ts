import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError } from '../errors';
import { accountRoutes } from './accountRoutes';
import { portalActionLog } from './actionLog';
import { apiKeyRoutes } from './apiKeyRoutes';
import { auditRoutes } from './auditRoutes';
import { billingRoutes } from './billingRoutes';
import { callActions } from './callActions';
import { callRoutes } from './callRoutes';
import { campaignActions } from './campaignActions';
import { campaignRoutes } from './campaignRoutes';
import { complianceActions } from './complianceActions';
import { complianceRoutes } from './complianceRoutes';
import { conversationRoutes } from './conversationRoutes';
import { deliveryRoutes } from './deliveryRoutes';
import { giveBackIfMalformed } from './limits';
import { refuse } from './answer';
import { html } from './html';
import { keyRoutes } from './keyRoutes';
import { lineActions } from './lineActions';
import { lineRoutes } from './lineRoutes';
import { memberActions } from './memberActions';
import { memberRoutes } from './memberRoutes';
import { oauthRoutes } from './oauthRoutes';
import { exportRoutes } from './exportRoutes';
import { searchRoutes } from './searchRoutes';
import { securityActions } from './securityActions';
import { settingsRoutes } from './settingsRoutes';
import { inRenderScope } from './timeZoneScope';
import { securityHeaders } from './http';
import { errorBox, layout } from './layout';
import { twoFactorGate } from './twoFactorGate';
import { twoFactorRoutes } from './twoFactorRoutes';
import { verificationRoutes } from './verificationRoutes';
import { workspaceRoutes } from './workspaceRoutes';

/**
 * Files the portal serves, all from this process (no CDN): its stylesheet and htmx from node_modules.
 * Read once at startup: a missing one stops the API from starting rather than breaking pages later.
 */
function loadAssets(): Map<string, { type: string; body: Buffer }> {
  return new Map([
    ['portal.css', { type: 'text/css; charset=utf-8', body: fs.readFileSync(path.join(__dirname, 'assets', 'portal.css')) }],
    ['htmx.min.js', { type: 'text/javascript; charset=utf-8', body: fs.readFileSync(require.resolve('htmx.org/dist/htmx.min.js')) }],
    // chart.js exports no subpath for its UMD build: it sits beside the CommonJS entry.
    [
      'chart.umd.js',
      {
        type: 'text/javascript; charset=utf-8',
        body: fs.readFileSync(path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.js')),
      },
    ],
    ['portal.js', { type: 'text/javascript; charset=utf-8', body: fs.readFileSync(path.join(__dirname, 'assets', 'portal.js')) }],
    ['usage-chart.js', { type: 'text/javascript; charset=utf-8', body: fs.readFileSync(path.join(__dirname, 'assets', 'usage-chart.js')) }],
    ['line-form.js', { type: 'text/javascript; charset=utf-8', body: fs.readFileSync(path.join(__dirname, 'assets', 'line-form.js')) }],
  ]);
}

/**
 * The operator portal under /portal (issue 17): server-rendered pages for signed-in operators,
 * outside the route table (it is not the public API: a session cookie never authenticates /api/v1,
 * and these pages never take an API key). Every answer carries the strict CSP of ./http.ts.
 */
export function portalRouter(deps: AppDeps): Router<AppState> {
  const assets = loadAssets();
  const router = new Router<AppState>();
  // Outside the error answering below: a refusal is recorded with its code.
  router.use(portalActionLog(deps));
  router.use(async (rawCtx, next) => {
    const ctx = rawCtx as AppContext;
    securityHeaders(ctx, deps);
    try {
      await next();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      refuse(ctx, err, (shown) =>
        layout(
          'Something went wrong',
          html`${errorBox(shown)}
            <p><a href="/portal">Back to the portal</a></p>`,
        ),
      );
    }
    await giveBackIfMalformed(ctx);
  });
  // Each request renders its times in its own scope (the operator's workspace's zone once known: ./timeZoneScope.ts).
  router.use((_ctx, next) => inRenderScope(next));
  router.use(twoFactorGate(deps));
  router.get('/portal/assets/:file', (ctx) => {
    const asset = assets.get(ctx.params.file);
    if (!asset) throw new ApiError(404, 'not_found', 'No such file');
    ctx.type = asset.type;
    // Assets change only with a release: a browser may keep them for an hour.
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = asset.body;
  });
  accountRoutes(router, deps);
  twoFactorRoutes(router, deps);
  securityActions(router, deps);
  verificationRoutes(router, deps);
  workspaceRoutes(router, deps);
  lineRoutes(router, deps);
  lineActions(router, deps);
  callRoutes(router, deps);
  callActions(router, deps);
  campaignRoutes(router, deps);
  campaignActions(router, deps);
  conversationRoutes(router, deps);
  billingRoutes(router, deps);
  deliveryRoutes(router, deps);
  searchRoutes(router, deps);
  exportRoutes(router, deps);
  settingsRoutes(router, deps);
  keyRoutes(router, deps);
  apiKeyRoutes(router, deps);
  complianceRoutes(router, deps);
  complianceActions(router, deps);
  auditRoutes(router, deps);
  memberRoutes(router, deps);
  memberActions(router, deps);
  oauthRoutes(router, deps);
  return router;
}
