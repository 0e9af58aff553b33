import crypto from 'node:crypto';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import type { AppDeps } from '../../api/context';
import { portalRouter } from '../../api/portal/router';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { expectNoHorizontalScroll, LOOK_WIDTHS, pageChecker, useChromium, watchPageProblems } from '../support/browser';
import { CALLEE } from '../support/customer';
import { eventually } from '../support/eventually';
import { mailedInvitationToken } from '../support/portalClient';
import { closedPort } from '../support/receiver';
import { simulator } from '../support/simulatorControl';
import { linkIn } from '../support/smtpReceiver';
import { useSuite } from '../support/suite';

const PASSWORD = 'a long enough password';

/** The GET routes of the portal that are not pages a person reads, each with why and what it answers instead. */
const NOT_PAGES: Readonly<Record<string, { why: string; answers: 'not html' | 'fragment' | 'redirect' }>> = {
  '/portal/assets/:file': { why: 'the stylesheet and scripts', answers: 'not html' },
  '/portal/overview/stats': { why: "the overview's numbers, swapped into it by htmx", answers: 'fragment' },
  '/portal/calls/:id/live': { why: "a call's live part, swapped into its page by htmx", answers: 'fragment' },
  '/portal/campaigns/:id/live': {
    why: "a campaign's progress and contacts, reloaded into its page by htmx while it runs",
    answers: 'fragment',
  },
  '/portal/campaigns/:id/results.csv': { why: 'a download', answers: 'not html' },
  '/portal/deliveries/:id/live': { why: "a delivery's attempts, reloaded into its page by htmx during a redelivery", answers: 'fragment' },
  '/portal/calls/:id/recording': { why: "the call's audio", answers: 'not html' },
  '/portal/calls/:id/history.json': { why: "the call's Temporal history, a download", answers: 'not html' },
  '/portal/calls.csv': { why: 'a download', answers: 'not html' },
  '/portal/deliveries.csv': { why: 'a download', answers: 'not html' },
  '/portal/billing/usage.csv': { why: 'a download', answers: 'not html' },
  '/portal/audit.csv': { why: 'a download', answers: 'not html' },
  '/portal/lines/:id/test-event': { why: "a reload after a test event: back to the line's page", answers: 'redirect' },
};

/** Every GET route the portal's router serves, by its path pattern, with a matcher of concrete paths. */
function portalGetRoutes(): Array<{ path: string; matches: (pathname: string) => boolean }> {
  return portalRouter({} as AppDeps)
    .stack.filter((layer) => layer.methods.includes('GET'))
    .map((layer) => ({ path: layer.path as string, matches: (pathname: string) => layer.match(pathname) }));
}

/**
 * Issue 30's "Done when": EVERY page of the portal, signed in and signed out, in a real browser at 1280 and 390
 * pixels: axe finds no WCAG 2.2 A/AA violation, the page never scrolls sideways, a signed-in page shows its
 * environment's band, and a screenshot of each goes to test-artifacts/walk/. The pages are found from the
 * portal's router: a GET route added without being walked here (or listed as not a page, with why) fails the test.
 */
describe('every portal page in a browser, desktop and phone', () => {
  const { h, receiver } = useSuite({ portal: true, worker: true, receiver: true });
  const browser = useChromium();
  const sim = simulator(() => h);
  const check = pageChecker('walk', { wcag: true });
  const tag = crypto.randomBytes(4).toString('hex');
  const email = `walk+${tag}@example.test`;

  it(
    'walks every page route at both widths: axe clean, no sideways scroll, the band; the rest answer as listed',
    async () => {
      const routes = portalGetRoutes();
      const walked = new Set<string>();
      const routeOf = (url: string) => {
        const pathname = new URL(url, h.apiUrl).pathname;
        const found = routes.filter((route) => route.matches(pathname));
        expect({ url, routes: found.length }).toEqual({ url, routes: 1 });
        return found[0].path;
      };

      /** Opens `url` at each width and checks it; a page of the console (`band`) also shows its environment's band. */
      async function walk(page: Page, problems: string[], name: string, url: string, band = true): Promise<void> {
        walked.add(routeOf(url));
        for (const size of LOOK_WIDTHS) {
          await page.setViewportSize({ width: size.width, height: size.height });
          const response = await page.goto(url);
          // The page itself, not a redirect to sign in or elsewhere, and not an error page.
          expect({ name, status: response?.status(), path: new URL(page.url()).pathname }).toEqual({
            name,
            status: 200,
            path: new URL(url, h.apiUrl).pathname,
          });
          if (band) {
            const environment = new URL(url, h.apiUrl).searchParams.get('env') ?? 'test';
            await expect(page.locator('#environment').getAttribute('data-environment')).resolves.toBe(environment);
          }
          if (url.startsWith('/portal?') || url.startsWith('/portal/billing?')) await page.locator('canvas[data-usage]').first().waitFor();
          // No choice offered by its enum value (issue 30, item 7: api/portal/labels.ts gives every value words).
          const rawChoices = await page.evaluate(
            `[...document.querySelectorAll('option')].map((o) => o.textContent.trim()).filter((text) => /^[a-z]+(_[a-z]+)+$/.test(text))`,
          );
          expect({ name, rawChoices }).toEqual({ name, rawChoices: [] });
          await expectNoHorizontalScroll(page, size.width);
          await check(page, `${size.name}-${name}`, problems);
        }
      }

      // Signed out: sign-up, the mailed confirmation link's page, then signed in.
      const visitor = await browser.newContext({ baseURL: h.apiUrl });
      const out = await visitor.newPage();
      const outProblems = watchPageProblems(out);
      await walk(out, outProblems, 'signup', '/portal/signup', false);
      await walk(out, outProblems, 'login', '/portal/login', false);
      await walk(out, outProblems, 'password-forgot', '/portal/password/forgot', false);

      const context = await browser.newContext({ baseURL: h.apiUrl });
      const page = await context.newPage();
      const problems = watchPageProblems(page);
      await page.goto('/portal/signup');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password (at least 10 characters)').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.getByRole('heading', { level: 1, name: 'Check your inbox' }).waitFor();
      const verifyLink = linkIn(await h.mail.waitForMail(email, { subject: /Confirm your email/ }), '/portal/verify');
      // The link's GET only shows its form (nothing is used up), so the visitor's browser can show it too.
      await walk(out, outProblems, 'verify', verifyLink, false);
      await page.goto(verifyLink);
      await page.getByRole('button', { name: 'Confirm my address' }).click();
      await page.waitForURL('**/portal');

      // What the pages show: two lines (one whose agent is down), keys, a failed and an active call, a text, deliveries.
      const user = (await h.db('users').where({ email }).first())!;
      const minted = await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'walk' });
      const key = minted.plaintext;
      const serviceKey = await mintUserKey(h.db, { user, environment: 'test', kind: 'service', name: 'walk service' });
      /** Waits until the row `id` of `table` (this test's own) has `status`. */
      const reaches = (table: 'lines' | 'calls', id: string, status: string) =>
        eventually(
          async () => ((await h.db(table).where({ id }).first())?.status === status ? true : undefined),
          30_000,
          `${table} ${status}`,
        );
      const newLine = async (name: string, webhookUrl: string): Promise<string> => {
        const created = await h.request('POST', '/api/v1/lines', {
          key,
          body: { name, mode: 'webhook', webhook_url: webhookUrl, recording_enabled: true },
        });
        expect(created.status).toBe(201);
        const id: string = created.body.line.id;
        await reaches('lines', id, 'active');
        return id;
      };
      const frontDesk = await newLine('Front desk', receiver.url);
      const deadAgent = await newLine('Dead agent', `http://127.0.0.1:${await closedPort()}/hook`);
      const placeCall = async (lineId: string): Promise<string> => {
        const placed = await h.request('POST', '/api/v1/calls', { key, body: { line_id: lineId, to_number: CALLEE } });
        expect(placed.status).toBe(201);
        const id: string = placed.body.call.id;
        await reaches('calls', id, 'in_progress');
        return id;
      };
      // The callee speaks to the dead agent: its `message` delivery fails (the caller hears silence), then it hangs up.
      const failedCall = await placeCall(deadAgent);
      expect((await sim.calls.say(failedCall, 'Hello? Is anyone there?')).status).toBe(202);
      const failedDelivery = await eventually(
        async () => h.db('webhook_deliveries').where({ call_id: failedCall, event_type: 'message', status: 'failed' }).first(),
        30_000,
        'a failed delivery',
      );
      expect((await h.request('POST', `/api/v1/calls/${failedCall}/hangup`, { key })).status).toBe(200);
      await eventually(
        async () => ((await h.db('calls').where({ id: failedCall }).first())?.recording_url ? true : undefined),
        30_000,
        'recording',
      );
      const activeCall = await placeCall(frontDesk);
      expect((await h.request('POST', '/api/v1/webhooks/test', { key, body: { line_id: frontDesk } })).status).toBe(200);
      const consent = { line_id: frontDesk, phone_number: CALLEE, consent_type: 'explicit_outbound' };
      expect((await h.request('POST', '/api/v1/consent', { key, body: consent })).status).toBe(201);
      const text = { line_id: frontDesk, to: CALLEE, text: 'Your appointment is at 3 pm.' };
      expect((await h.request('POST', '/api/v1/messages', { key, body: text })).status).toBe(201);

      // A campaign from both lines, starting tomorrow (nobody is called during the walk): one contact skipped at once.
      const campaign = await h.request('POST', '/api/v1/campaigns', {
        key,
        body: {
          name: 'Walk reminders',
          line_ids: [frontDesk, deadAgent],
          contacts: [{ to_number: '+14155550177', variables: { name: 'Ada' } }, { to_number: 'not a number' }],
          start_at: new Date(Date.now() + 86_400_000).toISOString(),
          answering_machine: { action: 'voicemail', voicemail_message: 'Please call us back.' },
          retry: { max_attempts: 3, backoff_seconds: 900 },
        },
      });
      expect(campaign.status).toBe(201);
      const campaignId: string = campaign.body.campaign.id;

      // Made in the portal as an operator does: an opt-out and a pending invitation.
      const optedOut = '+14155550142';
      await page.goto('/portal/compliance?env=test');
      await page.getByLabel('Phone number to opt out').fill(optedOut);
      await page.getByRole('button', { name: 'Add opt-out' }).click();
      await page.locator(`#opt-outs tr[data-phone-number="${optedOut}"]`).waitFor();
      const invitee = `walk-invitee+${tag}@example.test`;
      await page.goto('/portal/members?env=test');
      await page.getByLabel('Email').fill(invitee);
      await page.getByLabel('Role', { exact: true }).selectOption('member');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.locator('#invite-mailed').waitFor();
      const invitationToken = await mailedInvitationToken(h.mail, invitee);
      const invitationId = (await page.locator('#invitations tbody tr').first().getAttribute('data-invitation-id'))!;
      // And a legal hold on the callee's number (every call to it), listed on the settings page with its release.
      await page.goto('/portal/settings?env=test');
      await page.getByLabel('or phone number').fill(CALLEE);
      await page.getByLabel('Reason (kept for the audit)').fill('Walk case 1');
      await page.getByRole('button', { name: 'Place legal hold' }).click();
      const holdId = (await page.locator('#legal-holds tbody tr').first().getAttribute('data-legal-hold-id'))!;

      const env = 'env=test';
      const signedInPages: Array<[string, string]> = [
        ['overview', `/portal?${env}`],
        ['overview-live', '/portal?env=live'],
        ['lines', `/portal/lines?${env}`],
        ['line', `/portal/lines/${frontDesk}?${env}`],
        ['line-rotate-confirm', `/portal/lines/${frontDesk}/rotate-secret?${env}`],
        ['line-release-confirm', `/portal/lines/${deadAgent}/release?${env}`],
        ['calls', `/portal/calls?${env}`],
        ['calls-filtered', `/portal/calls?${env}&status=completed&direction=outbound`],
        ['call-failed-webhook', `/portal/calls/${failedCall}?${env}`],
        ['call-active', `/portal/calls/${activeCall}?${env}`],
        ['call-hangup-confirm', `/portal/calls/${activeCall}/hangup?${env}`],
        ['campaigns', `/portal/campaigns?${env}`],
        ['campaigns-filtered', `/portal/campaigns?${env}&status=scheduled`],
        ['campaign', `/portal/campaigns/${campaignId}?${env}`],
        ['campaign-cancel-confirm', `/portal/campaigns/${campaignId}/cancel?${env}`],
        ['conversations', `/portal/conversations?${env}`],
        ['conversation', `/portal/conversations/${frontDesk}/${encodeURIComponent(CALLEE)}?${env}`],
        ['deliveries', `/portal/deliveries?${env}`],
        ['deliveries-filtered', `/portal/deliveries?${env}&status=failed&event_type=message`],
        ['delivery-failed', `/portal/deliveries/${failedDelivery.id}?${env}`],
        ['search-results', `/portal/search?${env}&q=${encodeURIComponent(CALLEE)}`],
        ['search-nothing', `/portal/search?${env}&q=nothing+named+so`],
        ['billing', `/portal/billing?${env}`],
        ['api-keys', `/portal/api-keys?${env}`],
        ['api-key-revoke-confirm', `/portal/api-keys/${minted.row.id}/revoke?${env}`],
        ['service-keys', `/portal/keys?${env}`],
        ['service-key-revoke-confirm', `/portal/keys/${serviceKey.row.id}/revoke?${env}`],
        ['compliance', `/portal/compliance?${env}`],
        [
          'consent-revoke-confirm',
          `/portal/compliance/consent/revoke?${env}&phone_number=${encodeURIComponent(CALLEE)}&line_id=${frontDesk}`,
        ],
        [
          'opt-out-remove-confirm',
          `/portal/compliance/opt-outs/remove?${env}&phone_number=${encodeURIComponent(optedOut)}&reason=asked+again`,
        ],
        ['audit', `/portal/audit?${env}`],
        ['audit-filtered', `/portal/audit?${env}&person=${user.id}&event_type=compliance.opt_out_added`],
        ['settings', `/portal/settings?${env}`],
        ['legal-hold-release-confirm', `/portal/settings/legal-holds/${holdId}/release?${env}`],
        ['security', `/portal/security?${env}`],
        ['members', `/portal/members?${env}`],
        ['member-role-confirm', `/portal/members/${user.id}/role?${env}&role=admin`],
        ['member-remove-confirm', `/portal/members/${user.id}/remove?${env}`],
        ['invitation-revoke-confirm', `/portal/invitations/${invitationId}/revoke?${env}`],
      ];
      for (const [name, url] of signedInPages) await walk(page, problems, name, url);
      // The failing webhook is found on the call's page, in words.
      await page.goto(`/portal/calls/${failedCall}?${env}`);
      await expect(
        page.locator('#timeline li[data-failed]', { hasText: 'message event' }).locator('.timeline-title').textContent(),
      ).resolves.toBe('Agent webhook failed: connection refused; the caller heard silence');

      // An MCP client asking for access: the consent page (the authorization request made as a host makes it).
      const registered = await fetch(new URL('/oauth/register', h.apiUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Walk host',
          redirect_uris: ['http://127.0.0.1:9/callback'],
          token_endpoint_auth_method: 'none',
        }),
      });
      expect(registered.status).toBe(201);
      const challenge = crypto.createHash('sha256').update(crypto.randomBytes(32).toString('base64url')).digest('base64url');
      const authorize = new URLSearchParams({
        response_type: 'code',
        client_id: ((await registered.json()) as { client_id: string }).client_id,
        redirect_uri: 'http://127.0.0.1:9/callback',
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: new URL('/mcp', h.apiUrl).href,
      });
      const started = await fetch(new URL(`/oauth/authorize?${authorize}`, h.apiUrl), { redirect: 'manual' });
      expect(started.status).toBe(302);
      // A page of its own for the person asked, outside the console (no navigation, no band).
      await walk(page, problems, 'oauth-consent', `${started.headers.get('location')!}&${env}`, false);

      // Signed out again: the invitation's and a password reset's link pages.
      await walk(out, outProblems, 'invite', `/portal/invite?token=${invitationToken}`, false);
      await out.goto('/portal/password/forgot');
      await out.getByLabel('Email').fill(email);
      await out.getByRole('button', { name: 'Mail me a reset link' }).click();
      const resetLink = linkIn(await h.mail.waitForMail(email, { subject: /Reset your/ }), '/portal/password/reset');
      await walk(out, outProblems, 'password-reset', resetLink, false);

      // What is not a page answers as listed: a file, a fragment, or a redirect.
      const samples: Record<string, string> = {
        '/portal/assets/:file': '/portal/assets/portal.css',
        '/portal/overview/stats': `/portal/overview/stats?${env}`,
        '/portal/calls/:id/live': `/portal/calls/${failedCall}/live?${env}`,
        '/portal/campaigns/:id/live': `/portal/campaigns/${campaignId}/live?${env}`,
        '/portal/campaigns/:id/results.csv': `/portal/campaigns/${campaignId}/results.csv?${env}`,
        '/portal/deliveries/:id/live': `/portal/deliveries/${failedDelivery.id}/live?${env}`,
        '/portal/calls/:id/recording': `/portal/calls/${failedCall}/recording?${env}`,
        '/portal/calls/:id/history.json': `/portal/calls/${failedCall}/history.json?${env}`,
        '/portal/calls.csv': `/portal/calls.csv?${env}`,
        '/portal/deliveries.csv': `/portal/deliveries.csv?${env}`,
        '/portal/billing/usage.csv': `/portal/billing/usage.csv?${env}`,
        '/portal/audit.csv': `/portal/audit.csv?${env}`,
        '/portal/lines/:id/test-event': `/portal/lines/${frontDesk}/test-event?${env}`,
      };
      for (const [route, { answers }] of Object.entries(NOT_PAGES)) {
        const url = samples[route];
        expect({ route, sampled: url !== undefined && routeOf(url) === route }).toEqual({ route, sampled: true });
        const answer = await page.request.get(url, { maxRedirects: 0 });
        const type = answer.headers()['content-type'] ?? '';
        const body = answers === 'redirect' ? '' : await answer.text();
        const seen =
          answer.status() >= 300 && answer.status() < 400
            ? 'redirect'
            : answer.status() === 200 && type.startsWith('text/html')
              ? body.includes('<html')
                ? 'page'
                : 'fragment'
              : answer.status() === 200
                ? 'not html'
                : `status ${answer.status()}`;
        expect({ route, seen }).toEqual({ route, seen: answers });
      }

      // Last, the second factor's page: two-factor turned on in the portal, then a new sign-in asks for the code.
      await page.goto(`/portal/security?${env}`);
      await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
      const secret = (await page.locator('[data-totp-secret]').textContent())!;
      await walk(page, problems, 'security-enrolling', `/portal/security?${env}`);
      await page
        .getByLabel('Then type the 6-digit code it shows')
        .fill(await generate({ secret, epoch: Math.floor(h.clock.now().getTime() / 1000) }));
      await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
      await page.locator('[data-recovery-codes]').waitFor();
      await walk(page, problems, 'security-on', `/portal/security?${env}`);
      await walk(page, problems, 'two-factor-off-confirm', `/portal/security/two-factor/remove?${env}`);
      await walk(page, problems, 'recovery-codes-confirm', `/portal/security/recovery-codes?${env}`);
      await out.goto('/portal/login');
      await out.getByLabel('Email').fill(email);
      await out.getByLabel('Password').fill(PASSWORD);
      await out.getByRole('button', { name: 'Log in' }).click();
      await out.waitForURL('**/portal/login/code');
      await walk(out, outProblems, 'login-code', '/portal/login/code', false);

      expect((await h.request('POST', `/api/v1/calls/${activeCall}/hangup`, { key })).status).toBe(200);
      await visitor.close();
      await context.close();

      // Every GET route of the router is walked as a page or listed as not one; nothing listed is gone.
      const unwalked = routes.map((route) => route.path).filter((path) => !walked.has(path) && !(path in NOT_PAGES));
      const listedButGone = Object.keys(NOT_PAGES).filter((path) => !routes.some((route) => route.path === path));
      expect({ unwalked, listedButGone, walkedAndListed: [...walked].filter((path) => path in NOT_PAGES) }).toEqual({
        unwalked: [],
        listedButGone: [],
        walkedAndListed: [],
      });
    },
    20 * 60_000,
  );
});
