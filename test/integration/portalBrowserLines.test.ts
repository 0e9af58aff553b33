import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { LINE_MODES } from '../../src/domain/lines/rules';
import { fieldsOfMode, type ModeDependentField } from '../../src/domain/lines/modeFields';
import { useChromium, watchPageProblems, pageChecker, signUpInBrowser } from '../support/browser';
import { useSuite } from '../support/suite';

const PASSWORD = 'a long enough password';

/**
 * Line management in a real browser (headless Chromium, issue 30 item 4): the create and edit forms show only the
 * chosen mode's fields, for every mode; a test event's result on the line's page; releasing asks first, on a phone too.
 * Each page is screenshotted into test-artifacts/portal-lines/ and checked with axe-core.
 */
describe('portal line management in a browser', () => {
  const { h, receiver } = useSuite({ portal: true, worker: true, receiver: true });
  const browser = useChromium();
  const email = `browser-lines+${crypto.randomBytes(4).toString('hex')}@example.test`;
  const check = pageChecker('portal-lines');
  // Other suites share this database and create lines named "Hooks" too: this one's line has a name of its own.
  const lineName = `Hooks ${crypto.randomBytes(3).toString('hex')}`;

  const visible = (page: Page, id: string) => page.locator(`#${id}`).isVisible();

  it('switches the form by mode, sends a test event, and releases a line only once confirmed', async () => {
    const context = await browser.newContext({ baseURL: h.apiUrl });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    await signUpInBrowser(page, email, PASSWORD, h.mail);
    await page.goto('/portal/lines?env=test');

    // Every mode of LINE_MODES is offered; each shows its own required field and hides the others'.
    const offered = await page.locator('#mode option').evaluateAll((options) => options.map((o) => (o as { value: string }).value));
    expect(offered).toEqual([...LINE_MODES]);
    const required = { hosted: 'system_prompt', webhook: 'webhook_url', audio: 'audio_handler_url' } as Record<string, string>;
    for (const mode of LINE_MODES) {
      await page.getByLabel('Mode').selectOption(mode);
      for (const [other, field] of Object.entries(required)) {
        if (LINE_MODES.includes(other as (typeof LINE_MODES)[number]))
          expect([mode, await visible(page, field)]).toEqual([mode, fieldsOfMode(mode).includes(field as ModeDependentField)]);
      }
      expect(await visible(page, 'begin_message')).toBe(true);
      expect(await visible(page, 'voice')).toBe(true);
    }
    await page.getByLabel('Mode').selectOption('webhook');
    await check(page, '01-create-webhook-form', problems);

    // A webhook line with a begin message and a catalog voice; the hidden prompt typed before is not sent.
    await page.getByLabel('Mode').selectOption('hosted');
    await page.getByLabel('System prompt').fill('Never sent');
    await page.getByLabel('Mode').selectOption('webhook');
    await page.getByLabel('Name').fill(lineName);
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByLabel('Begin message (spoken when the call is answered)').fill('Thanks for calling.');
    await page.getByLabel('Voice').selectOption('nova');
    await page.getByRole('button', { name: 'Create line' }).click();
    await expect(page.locator('#secret-title').textContent()).resolves.toContain(lineName);
    const row = await h.db('lines').where({ name: lineName }).first();
    expect(row).toMatchObject({ mode: 'webhook', begin_message: 'Thanks for calling.', voice: 'nova', system_prompt: null });

    // The edit form follows the line's mode, and switches with it.
    await page.goto(`/portal/lines/${row.id}?env=test`);
    expect(await visible(page, 'edit-webhook_url')).toBe(true);
    expect(await visible(page, 'edit-system_prompt')).toBe(false);
    expect(await visible(page, 'edit-language')).toBe(true);
    await page.getByLabel('Mode').selectOption('hosted');
    expect(await visible(page, 'edit-system_prompt')).toBe(true);
    expect(await visible(page, 'edit-language')).toBe(false);
    expect(await visible(page, 'edit-webhook_url')).toBe(false);
    await page.getByLabel('Mode').selectOption('webhook');

    // A test event from the line's page, its result shown there.
    receiver.script({ status: 200, body: '{"ok":true}' });
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.locator('#test-event-result').getAttribute('data-test-status')).resolves.toBe('success');
    await expect(page.locator('#test-event-result').textContent()).resolves.toContain('HTTP 200');
    expect(receiver.requests.at(-1)?.body).toMatchObject({ event: 'test' });
    await check(page, '02-test-event-sent', problems);

    // Releasing, at phone width: the confirmation says what happens; Cancel changes nothing; the button releases.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/portal/lines/${row.id}?env=test`);
    await page.getByRole('link', { name: 'Release line…' }).click();
    await expect(page.locator('#consequences').textContent()).resolves.toContain(row.phone_number);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await check(page, '03-release-confirmation-phone', problems);
    await page.locator('#cancel-link').click();
    await page.waitForURL(`**/portal/lines/${row.id}?env=test`);
    expect((await h.db('lines').where({ id: row.id }).first()).status).toBe('active');
    await page.getByRole('link', { name: 'Release line…' }).click();
    await page.getByRole('button', { name: 'Release line' }).click();
    await page.waitForURL(`**/portal/lines/${row.id}?env=test&released=1`);
    await expect(page.locator('[data-line-status]').textContent()).resolves.toBe('Released');
    await check(page, '04-line-released-phone', problems);
    await context.close();
  });
});
