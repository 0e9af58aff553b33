import YAML from 'yaml';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS_DIR, useChromium, watchPageProblems } from '../support/browser';
import { useSuite } from '../support/suite';

type Operation = { summary: string; requestBody?: { content: Record<string, { example?: Record<string, unknown> }> } };

/**
 * The API reference at /docs in a real browser (headless Chromium): Scalar, served by the API itself,
 * renders every operation of the served OpenAPI document with its examples, under a CSP that admits
 * only this origin; the page's own errors (a CSP refusal included) and any request elsewhere fail it.
 */
describe('API reference page', () => {
  const { h } = useSuite({ tenant: 'none' });
  const browser = useChromium();

  /** What the reader sees (the viewport): the whole page is some 75,000 pixels tall. */
  async function screenshot(page: Page, name: string): Promise<void> {
    const dir = path.join(ARTIFACTS_DIR, 'reference');
    fs.mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, `${name}.png`) });
  }

  async function servedDocument(): Promise<{ paths: Record<string, Record<string, Operation>> }> {
    const res = await fetch(`${h.apiUrl}/api/openapi.yaml`);
    expect(res.status).toBe(200);
    return YAML.parse(await res.text());
  }

  it('is public, loads only files this process serves, and is not an operation of the document', async () => {
    const res = await fetch(`${h.apiUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-eval');
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect([...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1])).toEqual(['/docs/assets/scalar.js', '/docs/assets/reference.js']);

    const bundle = await fetch(`${h.apiUrl}/docs/assets/scalar.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await bundle.text()).toContain('createApiReference');
    expect((await fetch(`${h.apiUrl}/docs/assets/other.js`)).status).toBe(404);

    expect(Object.keys((await servedDocument()).paths).filter((path) => path.startsWith('/docs'))).toEqual([]);
  });

  it('renders every operation of the served document, with its request and response examples', async () => {
    const openApi = await servedDocument();
    const operations = Object.entries(openApi.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ slug: `/${method.toUpperCase()}${path}`, operation })),
    );
    expect(operations.length).toBeGreaterThan(50);

    const page = await (await browser.newContext({ baseURL: h.apiUrl })).newPage();
    const problems = watchPageProblems(page);
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(h.apiUrl)) elsewhere.push(request.url());
    });
    await page.goto('/docs');
    await page.waitForSelector('[id$="/GET/healthz"]');
    await screenshot(page, '01-top');
    // Scalar's hosted services (its AI agent, its MCP generator) are switched off.
    for (const control of ['Ask AI', 'Generate MCP']) await expect(page.getByText(control).count()).resolves.toBe(0);

    // Each operation has its anchor (`…/tag/<tag>/<METHOD>/<path>`) and its summary in the page.
    const ids = (await page.evaluate('[...document.querySelectorAll("[id]")].map((element) => element.id)')) as string[];
    const text = (await page.evaluate('document.body.textContent')) as string;
    const missing = operations.filter(({ slug, operation }) => !ids.some((id) => id.endsWith(slug)) || !text.includes(operation.summary));
    expect(missing.map((o) => o.slug)).toEqual([]);

    // The create-line operation shows its request example (in the request snippet) and its 201 example.
    const createLine = page.locator('[id$="/POST/api/v1/lines"]').last();
    await createLine.scrollIntoViewIfNeeded();
    const example = openApi.paths['/api/v1/lines'].post.requestBody?.content['application/json'].example ?? {};
    expect(example.system_prompt).toEqual(expect.any(String));
    const shown = `"system_prompt": ${JSON.stringify(example.system_prompt)}`;
    // Scalar renders the section's code panels once it is in view.
    await page.getByText(shown).first().waitFor();
    await expect(page.evaluate('document.body.textContent')).resolves.toContain('"webhook_secret": "');
    await screenshot(page, '02-create-line');

    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  }, 120_000);
});
