import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { useChromium, watchPageProblems, pageChecker, verifyInBrowser } from '../support/browser';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { CALLEE } from '../support/customer';
import { useSuite } from '../support/suite';

const PASSWORD = 'a long enough password';

/**
 * The portal in a real browser (headless Chromium): signup, a second signup of the address, a wrong
 * password, a new line and its signing secret, a call watched live until it ends and its
 * history downloaded, a service key minted, used on /v1/keys and revoked, both found in the audit log, billing
 * (the usage chart drawn, auto-charge turned on) and an SMS conversation. Each page is screenshotted into test-artifacts/portal/
 * and checked with axe-core; the page's own errors (a CSP refusal included) fail the test.
 */
describe('portal in a browser', () => {
  const { h } = useSuite({ portal: true, worker: true });
  const browser = useChromium();
  const email = `browser+${crypto.randomBytes(4).toString('hex')}@example.test`;

  /** A fresh browser profile (no cookies) with its page, and the problems the page reports. */
  async function visitor(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ baseURL: h.apiUrl, acceptDownloads: true });
    const page = await context.newPage();
    return { page, problems: watchPageProblems(page) };
  }

  const check = pageChecker('portal');

  async function signUp(page: Page): Promise<void> {
    await page.goto('/portal/signup');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password (at least 10 characters)').fill(PASSWORD);
    await page.getByLabel('Workspace name (optional)').fill('Browser Co');
    await page.getByRole('button', { name: 'Sign up' }).click();
  }

  it('signs up, creates a line (secret shown once), watches a call live, mints and revokes a service key, finds both in the audit log', async () => {
    const { page, problems } = await visitor();
    await page.goto('/portal/signup');
    // The CSP refuses inline script, even one a test injects.
    await expect(page.addScriptTag({ content: 'document.title = "injected"' })).rejects.toThrow(/Content Security Policy/);
    problems.length = 0;
    await check(page, '01-signup', problems);

    await signUp(page);
    // Issue 27, H5: no session until the address is verified through the link mailed to it.
    await page.getByRole('heading', { level: 1, name: 'Check your inbox' }).waitFor();
    await check(page, '01b-check-inbox', problems);
    await verifyInBrowser(page, email, h.mail);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Overview');
    await expect(page.locator('[data-stat="balance"]').textContent()).resolves.toBe('$5.00');
    await expect(page.locator('[data-stat="calls-today"]').textContent()).resolves.toBe('0');
    // htmx (served from node_modules, allowed by the CSP) refreshes the figures in place.
    await page.waitForFunction(() => 'htmx' in globalThis);
    await check(page, '02-overview', problems);

    await page.getByRole('link', { name: 'Lines', exact: true }).click();
    await page.waitForURL('**/portal/lines?env=test');
    await check(page, '03-lines-empty', problems);

    await page.getByLabel('Name').fill('Front desk');
    await page.getByLabel('Mode').selectOption('hosted');
    await page.getByLabel('System prompt').fill('You answer the front desk of a dental clinic.');
    await page.getByRole('button', { name: 'Create line' }).click();
    const secret = page.locator('#webhook-secret');
    await expect(secret.textContent()).resolves.toMatch(/^[0-9a-f]{64}$/);
    const row = page.locator('#lines tbody tr');
    await expect(row.count()).resolves.toBe(1);
    await expect(row.locator('td').nth(0).textContent()).resolves.toBe('Front desk');
    await check(page, '04-line-created', problems);

    // Shown once: the list, loaded again, has the line but no secret.
    const shown = await secret.textContent();
    await page.goto('/portal/lines?env=test');
    await expect(page.locator('#webhook-secret').count()).resolves.toBe(0);
    await expect(page.content()).resolves.not.toContain(shown!);

    // Rotating asks first, with the two-secret window; only its own button stages the new secret.
    await page.getByRole('link', { name: 'Rotate secret of Front desk' }).click();
    await expect(page.locator('#consequences').textContent()).resolves.toContain('The current secret keeps signing');
    await check(page, '05a-rotate-confirmation', problems);
    await page.getByRole('button', { name: 'Stage a new secret' }).click();
    await expect(page.locator('#webhook-secret').textContent()).resolves.toMatch(/^[0-9a-f]{64}$/);
    await expect(page.locator('#webhook-secret').textContent()).resolves.not.toBe(shown);
    await check(page, '05-secret-rotated', problems);

    // A call placed through the API goes live and ends on its page (htmx polls it); its history downloads.
    const user = (await h.db('users').where({ email }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'browser' })).plaintext;
    const lineId = await page.locator('#lines tbody tr').first().getAttribute('data-line-id');
    const placed = await h.request('POST', '/api/v1/calls', { key, body: { line_id: lineId, to_number: CALLEE } });
    expect(placed.status).toBe(201);
    await page.getByRole('link', { name: 'Calls', exact: true }).click();
    await page.locator(`#calls tr[data-call-id="${placed.body.call.id}"] a[href^="/portal/calls/"]`).click();
    await page.locator('[data-call-status="in_progress"]').waitFor({ timeout: 20_000 });
    await check(page, '05b-call-live', problems);
    expect((await h.request('POST', `/api/v1/calls/${placed.body.call.id}/hangup`, { key })).status).toBe(200);
    await page.locator('[data-call-status="completed"]').waitFor({ timeout: 10_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#history').click()]);
    expect(download.suggestedFilename()).toBe(`${placed.body.call.id}.history.json`);
    const exported = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    expect(exported.history.events.length).toBeGreaterThan(0);
    await check(page, '05c-call-ended', problems);
    await page.getByRole('link', { name: 'Deliveries' }).click();
    await page.waitForURL('**/portal/deliveries?env=test');
    await check(page, '05d-deliveries', problems);

    // A service key minted here works on the keys plane until it is revoked here.
    await page.getByRole('link', { name: 'Service keys' }).click();
    await page.waitForURL('**/portal/keys?env=test');
    await check(page, '06-keys-empty', problems);
    await page.getByLabel('Name').fill('Agent fleet');
    await page.getByRole('button', { name: 'Mint service key' }).click();
    const serviceKey = (await page.locator('#minted-key').textContent())!;
    expect(serviceKey).toMatch(/^sk_svc_test_/);
    await check(page, '07-key-minted', problems);
    expect((await h.request('GET', '/v1/keys', { key: serviceKey })).status).toBe(200);
    await page.getByRole('link', { name: 'Revoke key Agent fleet' }).click();
    await check(page, '07b-revoke-confirmation', problems);
    await page.getByRole('button', { name: 'Revoke service key' }).click();
    await page.waitForURL('**/portal/keys?env=test');
    await expect(page.locator('#keys tbody tr td').nth(4).textContent()).resolves.toMatch(/^Revoked \d{4}-/);
    expect((await h.request('GET', '/v1/keys', { key: serviceKey })).status).toBe(401);
    await check(page, '08-key-revoked', problems);

    // Both actions are in the audit log; the filter narrows it to one.
    await page.getByRole('link', { name: 'Audit log' }).click();
    await expect(page.locator('#audit tbody tr[data-event-type="service_key_created"]').count()).resolves.toBe(1);
    await expect(page.locator('#audit tbody tr[data-event-type="service_key_revoked"]').count()).resolves.toBe(1);
    await page.getByLabel('Event type').selectOption('service_key_revoked');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL('**/portal/audit?**event_type=service_key_revoked**');
    await expect(page.locator('#audit tbody tr').count()).resolves.toBe(1);
    await check(page, '08b-audit-log', problems);

    // Billing: the chart is drawn by the local chart.js and script; the owner turns auto-charge on.
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.waitForURL('**/portal/billing?env=test');
    await page.waitForFunction(() => {
      const chart = (globalThis as unknown as { Chart?: { getChart(id: string): unknown } }).Chart;
      return chart?.getChart('usage-chart') !== undefined;
    });
    await check(page, '08c-billing', problems);
    await page.getByLabel('Charge the card automatically').check();
    await page.getByLabel('Threshold (US dollars)').fill('10');
    await page.getByLabel('Amount charged each time (US dollars, $5 to $1,000)').fill('25');
    await page.getByRole('button', { name: 'Save auto-charge' }).click();
    await page.waitForURL('**/portal/billing?env=test');
    await expect(page.locator('[data-stat="auto-charge"]').textContent()).resolves.toBe('on');

    // Conversations: a sent SMS's conversation and its page.
    const consent = await h.request('POST', '/api/v1/consent', {
      key,
      body: { line_id: lineId, phone_number: CALLEE, consent_type: 'explicit_outbound' },
    });
    expect(consent.status).toBe(201);
    const sent = await h.request('POST', '/api/v1/messages', {
      key,
      body: { line_id: lineId, to: CALLEE, text: 'Your appointment is at 3 pm.' },
    });
    expect(sent.status).toBe(201);
    await page.getByRole('link', { name: 'Conversations' }).click();
    await page.waitForURL('**/portal/conversations?env=test');
    await page.locator('#conversations tbody a').first().click();
    await expect(page.locator('#messages .message-text').first().textContent()).resolves.toBe('Your appointment is at 3 pm.');
    await check(page, '08d-conversation', problems);

    await page.getByRole('link', { name: 'Settings' }).click();
    await check(page, '09-settings', problems);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/portal/login?signed_out=1');
    await expect(page.getByRole('status').textContent()).resolves.toBe('You are logged out.');
    await check(page, '10-logged-out', problems);
  });

  it('shows email_taken to a second signup of the address', async () => {
    const { page, problems } = await visitor();
    await signUp(page);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('email_taken');
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe(email);
    // The browser shows the 409 as a page; its console reports the status, which is expected here.
    await check(
      page,
      '11-signup-email-taken',
      problems.filter((line) => !line.includes('409')),
    );
  });

  it('shows invalid_credentials for a wrong password, then logs in with the right one', async () => {
    const { page, problems } = await visitor();
    await page.goto('/portal/login');
    await check(page, '12-login', problems);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('invalid_credentials');
    await check(
      page,
      '13-login-invalid-credentials',
      problems.filter((line) => !line.includes('401')),
    );

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/portal');
    // The first test's call spent a little of the signup credit.
    await expect(page.locator('[data-stat="balance"]').textContent()).resolves.toMatch(/^\$4\.\d\d$/);
  });
});
