import crypto from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { pageChecker, signUpInBrowser, useChromium, watchPageProblems } from '../support/browser';
import { CALLEE } from '../support/customer';
import { useSuite } from '../support/suite';

const PASSWORD = 'a long enough password';

/**
 * Issue 30, items 6 and 7, in a real browser: the copy button of a one-time secret, a state as a badge in words, the
 * overview's charts and checklist, and the phone's folded menu. Every page's look at both widths (axe, no sideways
 * scroll, the band) is walked by test/integration/portalBrowserWalk.test.ts.
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

  it('copies a secret, shows a state in words, draws the charts, ticks the checklist and folds the menu on a phone', async () => {
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

    // A call to show: placed, then hung up.
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
});
