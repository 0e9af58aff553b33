import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { AppContext, AppState } from '../context';
import { pageContentSecurityPolicy } from '../contentSecurityPolicy';
import { ApiError } from '../errors';

/** Where the page finds the document it renders: the one this process serves. */
export const OPENAPI_DOCUMENT_PATH = '/api/openapi.yaml';

/** Scalar's standalone browser bundle, beside the package's entry (its `exports` do not list the file). */
const SCALAR_BUNDLE = path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');

/**
 * The browser files of the page, all served by this process (no CDN): Scalar's standalone bundle
 * from node_modules and the few lines that mount it. Read once at startup, so a missing file stops
 * the API from starting instead of breaking the page later.
 */
function loadAssets(): Map<string, Buffer> {
  return new Map([
    ['scalar.js', fs.readFileSync(SCALAR_BUNDLE)],
    ['reference.js', fs.readFileSync(path.join(__dirname, 'assets', 'reference.js'))],
  ]);
}

/**
 * The page's CSP: scripts, requests, fonts and images from this origin only. Styles also inline:
 * Scalar (Vue) adds several `<style>` elements and style attributes at run time that no nonce or
 * hash can name (docs/decisions/api.md, "API reference page (issue 18)"). No `'unsafe-eval'` is needed.
 */
export const REFERENCE_CONTENT_SECURITY_POLICY = pageContentSecurityPolicy([
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
]);

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Switchboard API reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="reference" data-url="${OPENAPI_DOCUMENT_PATH}"></div>
    <script src="/docs/assets/scalar.js"></script>
    <script src="/docs/assets/reference.js"></script>
  </body>
</html>
`;

/**
 * The API reference at /docs (issue 18): a page for people, public like the document it renders,
 * outside the route table and so not an operation of that document.
 */
export function referenceRouter(): Router<AppState> {
  const assets = loadAssets();
  const router = new Router<AppState>();
  router.get('/docs', (rawCtx) => {
    const ctx = rawCtx as AppContext;
    ctx.set('Content-Security-Policy', REFERENCE_CONTENT_SECURITY_POLICY);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get('/docs/assets/:file', (ctx) => {
    const asset = assets.get(ctx.params.file);
    if (!asset) throw new ApiError(404, 'not_found', 'No such file');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('X-Content-Type-Options', 'nosniff');
    // The files change only with a release: a browser may keep them for an hour.
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = asset;
  });
  return router;
}
