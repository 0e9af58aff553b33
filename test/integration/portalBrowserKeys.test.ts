import crypto from 'node:crypto';
import { useChromium, watchPageProblems, pageChecker, signUpInBrowser } from '../support/browser';
import { useSuite } from '../support/suite';

const PASSWORD = 'a long enough password';
const NUMBER = '+14155550166';

/**
 * API keys and compliance in a real browser (headless Chromium): a regular key and a delegated token
 * minted (each shown once) and used on the public API, the token revoked and refused; an opt-out
 * added and removed; consent and disclosures read, a disclosure added; the audit log filtered down to those actions.
 * Each page is screenshotted into test-artifacts/portal-keys/ and checked with axe-core.
 */
describe('portal keys and compliance in a browser', () => {
  const { h } = useSuite({ portal: true });
  const browser = useChromium();
  const email = `browser-keys+${crypto.randomBytes(4).toString('hex')}@example.test`;

  const check = pageChecker('portal-keys');

  it('mints a regular key and a delegated token, revokes the token, adds and removes an opt-out, and finds it all in the audit log', async () => {
    const context = await browser.newContext({ baseURL: h.apiUrl });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    await signUpInBrowser(page, email, PASSWORD, h.mail);

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL('**/portal/api-keys?env=test');
    await expect(page.locator('#no-regular-keys').count()).resolves.toBe(1);
    await check(page, '01-api-keys-empty', problems);

    // A regular key: the owner's preset is ticked; the plaintext is shown once and works on the API.
    await page.locator('#mint-regular').getByLabel('Name').fill('Operations');
    await expect(page.locator('#regular-keys\\:admin').isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Mint API key' }).click();
    const regularKey = (await page.locator('#minted-key').textContent())!;
    expect(regularKey).toMatch(/^sk_test_/);
    await check(page, '02-regular-key-minted', problems);
    expect((await h.request('GET', '/api/v1/lines', { key: regularKey })).status).toBe(200);

    // A delegated token below it, limited to reading numbers with a monthly spend limit.
    const delegate = page.locator('#mint-delegated');
    await delegate.getByLabel('Parent key').selectOption({ label: `Operations (${regularKey.slice(0, 16)})` });
    await delegate.getByLabel('Name').fill('Reader agent');
    await delegate.getByLabel('numbers:read').check();
    await delegate.getByLabel('Spend limit in cents').fill('250');
    await delegate.getByLabel('Spend limit resets').selectOption('monthly');
    await page.getByRole('button', { name: 'Mint delegated token' }).click();
    const token = (await page.locator('#minted-key').textContent())!;
    expect(token).toMatch(/^sk_test_/);
    expect(token).not.toBe(regularKey);
    await check(page, '03-delegated-token-minted', problems);
    expect((await h.request('GET', '/api/v1/lines', { key: token })).status).toBe(200);
    expect((await h.request('GET', '/api-tokens', { key: token })).status).toBe(403);

    // Loaded again, the page lists both and shows neither plaintext.
    await page.goto('/portal/api-keys?env=test');
    const content = await page.content();
    expect(content).not.toContain(regularKey);
    expect(content).not.toContain(token);
    await expect(page.locator('#delegated-tokens tbody tr').count()).resolves.toBe(1);
    await page.getByRole('link', { name: `Revoke Reader agent (${token.slice(0, 16)})` }).click();
    await check(page, '03b-token-revoke-confirmation', problems);
    await page.getByRole('button', { name: 'Revoke delegated token' }).click();
    await page.waitForURL('**/portal/api-keys?env=test');
    await expect(page.locator('#delegated-tokens tbody tr td[data-status]').textContent()).resolves.toMatch(/^Revoked \d{4}-/);
    await expect(page.locator('#regular-keys tbody tr td[data-status]').textContent()).resolves.toBe('Active');
    await check(page, '04-token-revoked', problems);
    const refused = await h.request('GET', '/api/v1/lines', { key: token });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    expect((await h.request('GET', '/api/v1/lines', { key: regularKey })).status).toBe(200);

    // Consent and a disclosure recorded on the API with the regular key, read on the compliance page.
    const line = await h.request('POST', '/api/v1/lines', {
      key: regularKey,
      body: { name: 'Reception', mode: 'hosted', system_prompt: 'x' },
    });
    expect(line.status).toBe(201);
    const consent = await h.request('POST', '/api/v1/consent', {
      key: regularKey,
      body: { line_id: line.body.line.id, phone_number: '+14155550167', consent_type: 'explicit_outbound' },
    });
    expect(consent.status).toBe(201);
    const disclosure = await h.request('POST', '/api/v1/disclosures', {
      key: regularKey,
      body: { message: 'You are speaking with an AI.' },
    });
    expect(disclosure.status).toBe(201);

    await page.getByRole('link', { name: 'Compliance' }).click();
    await page.waitForURL('**/portal/compliance?env=test');
    await expect(page.locator(`#consents tr[data-consent-id="${consent.body.consent.id}"] td`).nth(1).textContent()).resolves.toBe(
      'Reception',
    );
    await expect(page.locator('#disclosures tbody tr td').first().textContent()).resolves.toBe('You are speaking with an AI.');
    await check(page, '05-compliance', problems);
    await page.getByLabel('Disclosure message').fill('Esta llamada usa un asistente de IA.');
    await page.getByLabel('Language', { exact: true }).selectOption('es');
    await page.getByRole('button', { name: 'Add disclosure' }).click();
    await page.waitForURL('**/portal/compliance?env=test');
    await expect(page.locator('#disclosures tbody tr').count()).resolves.toBe(2);

    await page.getByLabel('Phone number to opt out').fill('+1 415 555 0166');
    await page.getByRole('button', { name: 'Add opt-out' }).click();
    await page.waitForURL('**/portal/compliance?env=test');
    await expect(page.locator(`#opt-outs tr[data-phone-number="${NUMBER}"]`).count()).resolves.toBe(1);
    await check(page, '06-opted-out', problems);
    // Only an owner may, giving a reason (issue 27, M14).
    await page.getByLabel(`Why the opt-out of ${NUMBER} is removed`).fill('The recipient asked by phone to hear from us again');
    await page.getByRole('button', { name: `Remove the opt-out of ${NUMBER}` }).click();
    await check(page, '06b-opt-out-removal-confirmation', problems);
    await page.getByRole('button', { name: 'Remove opt-out' }).click();
    await page.waitForURL('**/portal/compliance?env=test');
    await expect(page.locator('#no-opt-outs').count()).resolves.toBe(1);

    // The audit log, filtered by actor (the operator) and by action, holds each of those changes.
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.waitForURL('**/portal/audit?env=test');
    await page.getByLabel('Actor (key prefix or id, or operator)').fill('operator');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL('**/portal/audit?**actor=operator**');
    const operatorEvents = await page
      .locator('#audit tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-event-type')));
    expect(operatorEvents.sort()).toEqual(['disclosure_default_changed', 'opt_in', 'opt_out', 'scoped_key_minted', 'scoped_key_revoked']);
    await check(page, '07-audit-by-operator', problems);

    await page.getByLabel('Actor (key prefix or id, or operator)').fill(regularKey.slice(0, 16));
    await page.getByLabel('Event type').selectOption('scoped_key_minted');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL('**/portal/audit?**event_type=scoped_key_minted**');
    // The token was minted by the regular key, as `POST /api-tokens` records it.
    await expect(page.locator('#audit tbody tr').count()).resolves.toBe(1);
    await expect(page.locator('#audit tbody tr td').nth(2).innerText()).resolves.toBe(regularKey.slice(0, 16));
    await check(page, '08-audit-by-key', problems);

    // Issue 30, item 2: the operator's own actions, by person and action, name them, their address and browser.
    await page.getByLabel('Actor (key prefix or id, or operator)').fill('');
    await page.getByLabel('Person').selectOption({ label: email });
    await page.getByLabel('Action or event type').selectOption({ label: 'Added an opt-out' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL('**/portal/audit?**event_type=compliance.opt_out_added**');
    const action = page.locator('#audit tbody tr[data-action="compliance.opt_out_added"]');
    await expect(action.count()).resolves.toBe(1);
    await expect(action.locator('td[data-portal-user]').innerText()).resolves.toBe(email);
    await expect(action.locator('td[data-address]').innerText()).resolves.toMatch(/127\.0\.0\.1|::1/);
    await expect(action.locator('td[data-user-agent] summary').innerText()).resolves.toMatch(/^Headless Chrome \d+ on Linux$/);
    await expect(action.locator('td[data-details]').innerText()).resolves.toContain(`phone number: ${NUMBER}`);
    await check(page, '09-audit-portal-action', problems);
    await page.setViewportSize({ width: 390, height: 844 });
    await check(page, '09b-audit-portal-action-phone', problems);
    await context.close();
  });
});
