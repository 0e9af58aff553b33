import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { useChromium, watchPageProblems, pageChecker, signUpInBrowser } from '../support/browser';
import { CALLEE } from '../support/customer';
import { closedPort } from '../support/receiver';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

const PASSWORD = 'a long enough password';
const PHONE = { width: 390, height: 844 };

/** The page fits a phone: nothing wider than the viewport (no horizontal scrolling). */
async function scrollWidth(page: Page): Promise<number> {
  return (await page.evaluate('document.documentElement.scrollWidth')) as number;
}

/**
 * Issue 30, item 1, in a real browser: a call whose agent webhook is down tells its story on its page.
 * The operator places a test call from a webhook line whose receiver is down, the callee speaks, and the
 * call's page (never reloaded) shows the failed `message` delivery in plain words, with the running
 * seconds while it lasts; the failure links to its delivery, the delivery back to the call, and the call to
 * the list of its deliveries; the page stops polling once the call's story is settled. Screenshots at desktop
 * and phone width go to test-artifacts/portal-timeline/, each checked with axe-core.
 */
describe('a call tells its story in the portal', () => {
  const { h } = useSuite({ portal: true, worker: true });
  const browser = useChromium();
  const sim = simulator(() => h);
  const email = `browser-timeline+${crypto.randomBytes(4).toString('hex')}@example.test`;
  const check = pageChecker('portal-timeline');

  it("shows a failing webhook on the call's page, live, with links between the call and its deliveries", async () => {
    const context = await browser.newContext({ baseURL: h.apiUrl });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    await signUpInBrowser(page, email, PASSWORD, h.mail);

    // A webhook line whose receiver is down.
    const hook = `http://127.0.0.1:${await closedPort()}/hook`;
    await page.getByRole('link', { name: 'Lines', exact: true }).click();
    await page.getByLabel('Name').fill('Dead agent');
    await page.getByLabel('Mode').selectOption('webhook');
    await page.getByLabel(/^Webhook URL/).fill(hook);
    await page.getByRole('button', { name: 'Create line' }).click();
    await page.locator('#webhook-secret').waitFor();
    await page.getByRole('link', { name: 'Dead agent', exact: true }).click();
    await page.waitForURL('**/portal/lines/*?env=test');

    // A test call; the page is never reloaded from here on: htmx keeps its live part current.
    await page.getByLabel('To (E.164)').fill(CALLEE);
    await page.getByRole('button', { name: 'Place test call' }).click();
    await page.waitForURL('**/portal/calls/*?env=test');
    const callId = new URL(page.url()).pathname.split('/').pop()!;
    await page.locator('[data-call-status="in_progress"]').waitFor({ timeout: 20_000 });
    await page.locator('#timeline [data-kind="answered"]').waitFor();

    // The callee speaks; the agent's webhook cannot be reached, so the caller hears silence, and the page says so.
    expect((await sim.calls.say(callId, 'Hello? Is anyone there?')).status).toBe(202);
    const failure = page.locator('#timeline li[data-failed]', { hasText: 'message event' });
    await failure.waitFor({ timeout: 20_000 });
    await expect(failure.locator('.timeline-title').textContent()).resolves.toBe(
      'Agent webhook failed: connection refused; the caller heard silence',
    );
    await expect(failure.locator('.timeline-detail').textContent()).resolves.toMatch(
      /message event · attempt 1 · no HTTP answer · \d+ ms · connection_error: connect ECONNREFUSED/,
    );
    await expect(page.locator('#timeline-failures').textContent()).resolves.toMatch(/failed: see the marked entries below/);
    await expect(page.locator('#timeline [data-kind="said"]').textContent()).resolves.toContain(
      'The caller said “Hello? Is anyone there?”',
    );
    // The running seconds count up while the call lasts (the settled duration is only known at its end).
    await page.waitForFunction(
      'Number(document.querySelector("[data-call-seconds]")?.textContent) >= 1 && document.querySelector("[data-call-status=in_progress]") !== null',
      undefined,
      { timeout: 20_000 },
    );
    expect(problems).toEqual([]);
    await check(page, '01-call-live-failing-webhook', problems);
    await page.setViewportSize(PHONE);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await check(page, '02-call-live-failing-webhook-phone', problems);
    await page.setViewportSize({ width: 1366, height: 900 });

    // The callee hangs up: the end and the charge join the story, and once it is settled the page stops polling.
    expect((await sim.calls.hangUp(callId)).status).toBe(200);
    await page.locator('[data-call-status="completed"]').waitFor({ timeout: 20_000 });
    await page.locator('#timeline [data-kind="ended"]').waitFor({ timeout: 20_000 });
    await page.locator('#timeline [data-kind="charge"]').waitFor({ timeout: 20_000 });
    await expect(page.locator('#timeline [data-kind="ended"] .timeline-title').textContent()).resolves.toMatch(
      /^Ended after \d+ s: Caller hung up$/,
    );
    await page.locator('#call-live:not([data-unfolding])').waitFor({ timeout: 30_000 });
    await expect(page.locator('#call-live').getAttribute('hx-get')).resolves.toBeNull();
    await check(page, '03-call-ended', problems);

    // From the failure to its delivery, and from the delivery back to the call.
    await failure.getByRole('link', { name: 'View the delivery' }).click();
    await page.waitForURL('**/portal/deliveries/*?env=test');
    await expect(page.locator('#attempts tbody tr').first().getAttribute('data-status')).resolves.toBe('failed');
    await check(page, '04-delivery', problems);
    await page.locator('#delivery-call').click();
    await page.waitForURL(`**/portal/calls/${callId}?env=test`);
    await page.locator('#timeline li[data-failed]').first().waitFor();

    // The call's page leads to the list of its deliveries (the list's call filter).
    await expect(page.locator('#call-deliveries').getAttribute('href')).resolves.toBe(`/portal/deliveries?env=test&call_id=${callId}`);
    await context.close();
  });
});
