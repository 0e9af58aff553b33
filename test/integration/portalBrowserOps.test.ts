import crypto from 'node:crypto';
import { verifySignature } from '../../src/domain/webhooks/signature';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { useChromium, watchPageProblems, pageChecker, signUpInBrowser } from '../support/browser';
import { useSuite } from '../support/suite';

const PASSWORD = 'a long enough password';

/**
 * Deliveries and the card in a real browser (headless Chromium): a failed webhook delivery
 * redelivered from its page and seen as a new, successful attempt at the receiver (signed);
 * a card added on the billing page and shown by brand and last 4. Each page is screenshotted into
 * test-artifacts/portal-ops/ and checked with axe-core; the page's own errors fail the test.
 */
describe('portal deliveries and card in a browser', () => {
  const { h, receiver } = useSuite({ portal: true, worker: true, receiver: true });
  const browser = useChromium();
  const email = `browser-ops+${crypto.randomBytes(4).toString('hex')}@example.test`;

  const check = pageChecker('portal-ops');

  it('redelivers a failed delivery and sees the new attempt; adds a card and sees its brand and last 4', async () => {
    const context = await browser.newContext({ baseURL: h.apiUrl });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    await signUpInBrowser(page, email, PASSWORD, h.mail);
    // An owner is offered the members page.
    await expect(page.getByRole('link', { name: 'Members' }).count()).resolves.toBe(1);

    // A webhook line whose receiver is down: its test event fails.
    await page.getByRole('link', { name: 'Lines', exact: true }).click();
    await page.getByLabel('Name').fill('Hooks');
    await page.getByLabel('Mode').selectOption('webhook');
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create line' }).click();
    const secret = (await page.locator('#webhook-secret').textContent())!;
    const lineId = (await page.locator('#lines tbody tr').first().getAttribute('data-line-id'))!;
    const user = (await h.db('users').where({ email }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'k' })).plaintext;
    receiver.script({ status: 503, body: 'maintenance' });
    const test = await h.request('POST', '/api/v1/webhooks/test', { key, body: { line_id: lineId } });
    expect(test.body.delivery).toMatchObject({ status: 'failed' });

    await page.getByRole('link', { name: 'Deliveries' }).click();
    await page.waitForURL('**/portal/deliveries?env=test');
    await expect(page.locator('#deliveries tbody tr[data-status="failed"]').count()).resolves.toBe(1);
    await check(page, '01-deliveries-failed', problems);

    await page.locator('#deliveries tbody tr').first().getByRole('link', { name: 'test' }).click();
    await page.waitForURL('**/portal/deliveries/*');
    await expect(page.locator('#attempts tbody tr').count()).resolves.toBe(1);
    await check(page, '02-delivery-failed', problems);

    // Redeliver: the receiver is back (answering after 3 s, so the page first shows the attempt under way); the event
    // arrives again, signed, as attempt 2.
    receiver.script({ status: 200, body: '{"ok":true}', delayMs: 3_000 });
    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.waitForURL(/started=2/);
    const [request] = (await receiver.waitForRequests(before + 1)).slice(before);
    expect(verifySignature({ secret, headers: request.headers as Record<string, string>, rawBody: request.rawBody })).toEqual({
      valid: true,
    });
    await expect(page.locator('#redelivery-started').isVisible()).resolves.toBe(true);
    // The page updates itself, without a reload, once the new attempt has finished.
    await page.locator('#attempts tr[data-attempt="2"][data-status="success"]').waitFor({ timeout: 20_000 });
    await expect(page.locator('#attempts tr[data-attempt="1"]').getAttribute('data-status')).resolves.toBe('failed');
    // The "started" notice goes once its attempt has finished.
    await expect(page.locator('#redelivery-started').count()).resolves.toBe(0);
    await check(page, '03-delivery-redelivered', problems);

    // The card: added on the billing page, shown by brand, last 4 and expiry; never the number.
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.waitForURL('**/portal/billing?env=test');
    await expect(page.locator('#payment-method').textContent()).resolves.toContain('No card on file');
    await check(page, '04-billing-no-card', problems);
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry (MM/YY)').fill('12/39');
    await page.getByRole('button', { name: 'Add card' }).click();
    await page.waitForURL(/card_saved=4242/);
    await expect(page.locator('#card-saved').textContent()).resolves.toContain('4242');
    const shown = (await page.locator('#payment-method').textContent())!.replace(/\s+/g, ' ');
    expect(shown).toContain('visa ending in 4242 (expires 12/2039)');
    await expect(page.content()).resolves.not.toContain('4242424242424242');
    await expect(page.getByRole('button', { name: 'Replace card' }).count()).resolves.toBe(1);
    await check(page, '05-billing-card-added', problems);
  });
});
