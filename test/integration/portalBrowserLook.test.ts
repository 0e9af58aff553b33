import crypto from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { pageChecker, signUpInBrowser, useChromium, watchPageProblems } from '../support/browser';
import { CALLEE } from '../support/customer';
import { useSuite } from '../support/suite';

const PASSWORD = 'a long enough password';
const WIDTHS = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/**
 * Issue 30, item 7: every portal page in a real browser at desktop and at a 390-pixel phone width: a screenshot
 * of each into test-artifacts/look/, axe clean (WCAG 2.2 AA), no horizontal scrolling of the page, the test-mode
 * band on every signed-in page; and item 6's copy button and the overview's charts and checklist.
 */
describe('portal look in a browser, desktop and phone', () => {
  const { h, receiver } = useSuite({ portal: true, worker: true, receiver: true });
  const browser = useChromium();
  const check = pageChecker('look');
  const email = `look+${crypto.randomBytes(4).toString('hex')}@example.test`;

  async function open(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    return { page, problems: watchPageProblems(page) };
  }

  /**
   * The page's own width is the viewport's: only a table's or code's own box may scroll, never the page. On failure
   * the elements reaching past the right edge are named, innermost first.
   */
  async function noHorizontalScroll(page: Page, width: number): Promise<void> {
    const found = (await page.evaluate(`(() => {
      const wide = [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > ${width} + 1 && el.children.length === 0)
        .slice(0, 5)
        .map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' ' + Math.round(el.getBoundingClientRect().right));
      return { scrollWidth: document.documentElement.scrollWidth, wide };
    })()`)) as { scrollWidth: number; wide: string[] };
    expect({ page: page.url(), scrollWidth: found.scrollWidth, wide: found.wide }).toEqual({
      page: page.url(),
      scrollWidth: found.scrollWidth <= width ? found.scrollWidth : width,
      wide: [],
    });
  }

  /** Every WCAG 2.2 A and AA violation axe finds (any impact, not only serious ones); axe is in the page already (pageChecker). */
  async function wcagViolations(page: Page): Promise<Array<{ id: string; nodes: number }>> {
    const found = (await page.evaluate(
      `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } })` +
        `.then((result) => result.violations.map((v) => ({ id: v.id, nodes: v.nodes.length })))`,
    )) as Array<{ id: string; nodes: number }>;
    return found;
  }

  it('walks every page at both widths: axe clean, no horizontal scroll, the test-mode band, badges', async () => {
    const context = await browser.newContext({ baseURL: h.apiUrl, viewport: { width: 1366, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.apiUrl });
    const { page, problems } = await open(context);
    await signUpInBrowser(page, email, PASSWORD, h.mail);

    // The overview starts with its checklist: nothing done yet.
    await expect(page.locator('[data-stat="steps-done"]').textContent()).resolves.toBe('0');

    // A line made in the form: its one-time secret is copied with its button.
    await page.goto('/portal/lines?env=test');
    await page.getByLabel('Name').fill('Front desk');
    await page.getByLabel('Mode').selectOption('webhook');
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create line' }).click();
    const secret = (await page.locator('#webhook-secret').textContent())!;
    await page.getByRole('button', { name: 'Copy the signing secret' }).click();
    // The copy is asynchronous (navigator.clipboard): wait for the status it writes.
    await page.locator('#webhook-secret-copied', { hasText: 'Copied to the clipboard.' }).waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(secret);
    await check(page, 'desktop-lines-secret-copied', problems);
    const lineId = (await page.locator('#lines tbody tr').first().getAttribute('data-line-id'))!;

    // Calls and deliveries to show: a call hung up, a test event delivered.
    const user = (await h.db('users').where({ email }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'look' })).plaintext;
    const placed = await h.request('POST', '/api/v1/calls', { key, body: { line_id: lineId, to_number: CALLEE } });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call.id;
    await page.goto(`/portal/calls/${callId}?env=test`);
    await page.locator('[data-call-status="in_progress"]').waitFor({ timeout: 20_000 });
    expect((await h.request('POST', `/api/v1/calls/${callId}/hangup`, { key })).status).toBe(200);
    await page.locator('[data-call-status="completed"]').waitFor({ timeout: 10_000 });
    // The state reads as words in a badge, the raw value kept for the API-minded.
    await expect(page.locator('[data-call-status] .badge').textContent()).resolves.toBe('Completed');
    expect((await h.request('POST', '/api/v1/webhooks/test', { key, body: { line_id: lineId } })).status).toBe(200);
    await page.goto('/portal/deliveries?env=test');
    const deliveryHref = (await page.locator('#deliveries a[href^="/portal/deliveries/"]').first().getAttribute('href'))!;

    const pages: Array<[string, string]> = [
      ['overview', '/portal?env=test'],
      ['lines', '/portal/lines?env=test'],
      ['line', `/portal/lines/${lineId}?env=test`],
      ['calls', '/portal/calls?env=test'],
      ['call', `/portal/calls/${callId}?env=test`],
      ['conversations', '/portal/conversations?env=test'],
      ['deliveries', '/portal/deliveries?env=test'],
      ['delivery', deliveryHref],
      ['billing', '/portal/billing?env=test'],
      ['api-keys', '/portal/api-keys?env=test'],
      ['service-keys', '/portal/keys?env=test'],
      ['compliance', '/portal/compliance?env=test'],
      ['audit', '/portal/audit?env=test'],
      ['settings', '/portal/settings?env=test'],
      ['security', '/portal/security?env=test'],
      ['members', '/portal/members?env=test'],
      ['overview-live', '/portal?env=live'],
    ];
    for (const size of WIDTHS) {
      await page.setViewportSize({ width: size.width, height: size.height });
      for (const [name, path] of pages) {
        await page.goto(path);
        const environment = path.includes('env=live') ? 'live' : 'test';
        await expect(page.locator('#environment').getAttribute('data-environment')).resolves.toBe(environment);
        await expect(page.locator('#environment strong').textContent()).resolves.toBe(environment === 'test' ? 'Test mode' : 'Live');
        if (name.startsWith('overview') || name === 'billing') await page.locator('canvas[data-usage]').first().waitFor();
        await noHorizontalScroll(page, size.width);
        await check(page, `${size.name}-${name}`, problems);
        expect({ page: `${size.name}-${name}`, violations: await wcagViolations(page) }).toEqual({
          page: `${size.name}-${name}`,
          violations: [],
        });
      }
    }

    // The overview's four charts are drawn by the local chart.js; the checklist has ticked line, key and call.
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto('/portal?env=test');
    await page.waitForFunction(() => {
      const chart = (globalThis as unknown as { Chart?: { getChart(id: string): unknown } }).Chart;
      return ['chart-calls', 'chart-minutes', 'chart-cost', 'chart-deliveries'].every((id) => chart?.getChart(id) !== undefined);
    });
    await expect(page.locator('[data-total="calls"]').textContent()).resolves.toBe('1 call');
    await expect(page.locator('li[data-step="line"]').getAttribute('data-done')).resolves.toBe('true');
    await expect(page.locator('li[data-step="key"]').getAttribute('data-done')).resolves.toBe('true');
    await expect(page.locator('li[data-step="call"]').getAttribute('data-done')).resolves.toBe('true');

    // On a phone the navigation folds under the Menu button.
    await page.setViewportSize({ width: 390, height: 844 });
    const menu = page.getByRole('button', { name: 'Menu' });
    await expect(page.getByRole('link', { name: 'Calls', exact: true }).isVisible()).resolves.toBe(false);
    await menu.click();
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
    await page.getByRole('link', { name: 'Calls', exact: true }).click();
    await page.waitForURL('**/portal/calls?env=test');
    await context.close();
  });

  it('shows the sign-in pages at both widths without scrolling sideways', async () => {
    const context = await browser.newContext({ baseURL: h.apiUrl });
    const { page, problems } = await open(context);
    for (const size of WIDTHS) {
      await page.setViewportSize({ width: size.width, height: size.height });
      for (const [name, path] of [
        ['login', '/portal/login'],
        ['signup', '/portal/signup'],
      ]) {
        await page.goto(path);
        await noHorizontalScroll(page, size.width);
        await check(page, `${size.name}-${name}`, problems);
        expect({ page: `${size.name}-${name}`, violations: await wcagViolations(page) }).toEqual({
          page: `${size.name}-${name}`,
          violations: [],
        });
      }
    }
    await context.close();
  });
});
