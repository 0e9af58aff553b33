import crypto from 'node:crypto';
import fs from 'node:fs';
import { useChromium, watchPageProblems, pageChecker, signUpInBrowser } from '../support/browser';
import { completedCallRow } from '../support/callRows';
import { CALLEE } from '../support/customer';
import { eventually } from '../support/harness';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

const PASSWORD = 'a long enough password';
const TEMPORAL_UI = 'http://127.0.0.1:8233';

/**
 * Lines and calls in a real browser (headless Chromium): a line created and edited, a test call placed
 * from its page through the simulator, watched live (htmx) until the callee hangs up, its transcript
 * and recording shown, its history downloaded, its Temporal UI link shown, and the calls list filtered by the line.
 * Each page is screenshotted into test-artifacts/portal-calls/ and checked with axe-core.
 */
describe('portal lines and calls in a browser', () => {
  const { h } = useSuite({ portal: true, worker: true, overrides: { temporalUiUrl: TEMPORAL_UI } });
  const browser = useChromium();
  const sim = simulator(() => h);
  const email = `browser-calls+${crypto.randomBytes(4).toString('hex')}@example.test`;

  const check = pageChecker('portal-calls');

  it('creates and edits a line, places a test call and watches it live to its end, reads its transcript and history, filters the calls', async () => {
    await sim.model.reset();
    h.simulator.state.calls.wordsPerSecond = 20;
    const context = await browser.newContext({ baseURL: h.apiUrl, acceptDownloads: true });
    const page = await context.newPage();
    const problems = watchPageProblems(page);

    await signUpInBrowser(page, email, PASSWORD, h.mail);

    // A line, created on the lines page and opened from the list.
    await page.getByRole('link', { name: 'Lines', exact: true }).click();
    await page.getByLabel('Name').fill('Desk');
    await page.getByLabel('System prompt').fill('You answer the front desk of a dental clinic.');
    await page.getByRole('button', { name: 'Create line' }).click();
    await page.locator('#webhook-secret').waitFor();
    await page.getByRole('link', { name: 'Desk', exact: true }).click();
    await page.waitForURL('**/portal/lines/*?env=test');
    await check(page, '01-line', problems);

    // A bad edit shows the API's refusal and keeps what was typed; a good one is saved.
    await page.getByLabel('Context limit (turns, 1-500)').fill('900');
    await page.getByRole('button', { name: 'Save line' }).click();
    await expect(page.locator('.error .code').textContent()).resolves.toBe('validation_error');
    await expect(page.locator('.error li').first().textContent()).resolves.toContain('context_limit');
    // The page itself answered 422, which the browser reports; nothing else went wrong.
    await check(
      page,
      '02-line-edit-refused',
      problems.filter((line) => !line.includes('422')),
    );
    problems.length = 0;
    await page.getByLabel('Context limit (turns, 1-500)').fill('');
    await page.getByLabel('Name', { exact: true }).fill('Front desk');
    await page.getByLabel('Begin message').fill('Hello, front desk.');
    await page.getByLabel('Record calls').check();
    await page.getByRole('button', { name: 'Save line' }).click();
    await page.waitForURL('**/portal/lines/*saved=1');
    await expect(page.locator('.notice').textContent()).resolves.toBe('Line saved.');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Line Front desk');
    await expect(page.getByLabel('Begin message').inputValue()).resolves.toBe('Hello, front desk.');
    await expect(page.getByLabel('Record calls').isChecked()).resolves.toBe(true);
    await check(page, '03-line-saved', problems);
    const lineId = new URL(page.url()).pathname.split('/').pop()!;

    // A test call from the line to the simulator's callee: the call's page, live.
    await page.getByLabel('To (E.164)').fill(CALLEE);
    await page.getByRole('button', { name: 'Place test call' }).click();
    await page.waitForURL('**/portal/calls/*?env=test');
    const callId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await h.db('calls').where({ id: callId }).first()).toMatchObject({ line_id: lineId, to_number: CALLEE });
    await page.locator('[data-call-status="in_progress"]').waitFor({ timeout: 20_000 });
    await check(page, '04-call-live', problems);

    // The callee answers the greeting, the model replies; the page's transcript follows as htmx reloads it.
    const speech = () => h.simulator.state.calls.speechFor(callId) ?? [];
    await eventually(async () => (speech()[0]?.state === 'done' ? true : undefined), 20_000, 'the begin message');
    expect((await sim.calls.say(callId, 'Do you have an appointment tomorrow?')).status).toBe(202);
    await eventually(async () => (speech().some((s) => s.text.startsWith('You said') && s.state === 'done') ? true : undefined));
    expect((await sim.calls.hangUp(callId)).status).toBe(200);
    await page.locator('[data-call-status="completed"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-call-ended] time').waitFor({ timeout: 20_000 });
    const turns = await page.locator('#transcript li').allTextContents();
    expect(turns.map((turn) => turn.replace(/\s+/g, ' ').trim())).toEqual([
      expect.stringMatching(/^Agent .*: Hello, front desk\.$/),
      expect.stringMatching(/^Caller .*: Do you have an appointment tomorrow\?$/),
      expect.stringMatching(/^Agent .*: You said/),
    ]);
    // The recording the carrier made plays in the page (through the portal) once the call has ended.
    await page.reload();
    const recording = `/portal/calls/${callId}/recording?env=test`;
    await expect(page.locator('#recording').getAttribute('href')).resolves.toBe(recording);
    await expect(page.locator('audio#recording-player').getAttribute('src')).resolves.toBe(recording);
    const duration = await page.locator('audio#recording-player').evaluate(
      (audio: {
        duration: number;
        error: { code: number } | null;
        addEventListener(type: string, listener: () => void, options: { once: boolean }): void;
        load(): void;
      }) =>
        new Promise<number>((resolve, reject) => {
          audio.addEventListener('loadedmetadata', () => resolve(audio.duration), { once: true });
          audio.addEventListener('error', () => reject(new Error(`audio error ${audio.error?.code}`)), { once: true });
          audio.load();
        }),
    );
    expect(duration).toBeGreaterThan(0);
    await check(page, '05-call-ended', problems);

    // Once its copy is in the recordings store (issue 32), the player seeks: the browser asks for a range of it and
    // the portal answers 206 with that range.
    await eventually(
      async () => ((await h.db('call_objects').where({ call_id: callId, kind: 'recording' }).first()) ? true : undefined),
      30_000,
      'the recording to be stored',
    );
    const ranged: Array<{ status: number; contentRange: string | null }> = [];
    page.on('response', (response) => {
      if (response.url().includes(`/portal/calls/${callId}/recording`))
        ranged.push({ status: response.status(), contentRange: response.headers()['content-range'] ?? null });
    });
    await page.reload();
    const sought = await page.locator('audio#recording-player').evaluate(
      (audio: {
        duration: number;
        currentTime: number;
        error: { code: number } | null;
        addEventListener(type: string, listener: () => void, options: { once: boolean }): void;
        load(): void;
      }) =>
        new Promise<{ to: number; at: number }>((resolve, reject) => {
          audio.addEventListener('error', () => reject(new Error(`audio error ${audio.error?.code}`)), { once: true });
          audio.addEventListener(
            'loadedmetadata',
            () => {
              const to = audio.duration / 2;
              audio.addEventListener('seeked', () => resolve({ to, at: audio.currentTime }), { once: true });
              audio.currentTime = to;
            },
            { once: true },
          );
          audio.load();
        }),
    );
    expect(sought.at).toBeCloseTo(sought.to, 1);
    expect(ranged).toEqual(expect.arrayContaining([{ status: 206, contentRange: expect.stringMatching(/^bytes \d+-\d+\/\d+$/) }]));

    // Its history downloads as JSON (a Temporal history with events); the Temporal UI link names its workflow.
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#history').click()]);
    expect(download.suggestedFilename()).toBe(`${callId}.history.json`);
    const exported = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    expect(exported.workflowId).toBe(callId);
    expect(exported.history.events[0].eventType).toMatch(/WORKFLOW_EXECUTION_STARTED/);
    expect(exported.history.events.length).toBeGreaterThan(5);
    await expect(page.locator('#temporal-ui').getAttribute('href')).resolves.toBe(
      `${TEMPORAL_UI}/namespaces/${h.config.temporalNamespace}/workflows/${callId}`,
    );

    // The calls list filtered by the line: a second line's call is not in it.
    await page.getByRole('link', { name: 'Lines', exact: true }).click();
    await page.getByLabel('Name').fill('Back office');
    await page.getByLabel('System prompt').fill('You answer the back office.');
    await page.getByRole('button', { name: 'Create line' }).click();
    await page.locator('#webhook-secret').waitFor();
    const otherLine = (await page.locator('#lines tbody tr').first().getAttribute('data-line-id'))!;
    expect(otherLine).not.toBe(lineId);
    const { workspace_id: workspaceId } = await h.db('calls').where({ id: callId }).first();
    await h.db('calls').insert(completedCallRow({ workspaceId, lineId: otherLine }));
    await page.getByRole('link', { name: 'Calls', exact: true }).click();
    await expect(page.locator('#calls tbody tr').count()).resolves.toBe(2);
    await page.getByLabel('Line', { exact: true }).selectOption(lineId);
    await page.getByLabel('Direction').selectOption('outbound');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(`**/portal/calls?**line_id=${lineId}**`);
    await expect(page.locator('#calls tbody tr').count()).resolves.toBe(1);
    await expect(page.locator(`#calls tr[data-call-id="${callId}"]`).count()).resolves.toBe(1);
    await check(page, '06-calls-filtered', problems);
    await context.close();
  });

  it('a campaign created with its form shows its progress changing as it runs, without a reload, until it ends (issue 31)', async () => {
    const context = await browser.newContext({ baseURL: h.apiUrl });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    await signUpInBrowser(page, `browser-campaign+${crypto.randomBytes(4).toString('hex')}@example.test`, PASSWORD, h.mail);
    await page.getByRole('link', { name: 'Lines', exact: true }).click();
    await page.getByLabel('Name').fill('Callbacks');
    await page.getByLabel('System prompt').fill('You call back people who asked for it.');
    await page.getByRole('button', { name: 'Create line' }).click();
    await page.locator('#webhook-secret').waitFor();
    const lineId = (await page.locator('#lines tbody tr').first().getAttribute('data-line-id'))!;
    await eventually(async () => ((await h.db('lines').where({ id: lineId }).first())?.status === 'active' ? true : undefined), 20_000);

    // The form, as an operator fills it in: the pool's one line, one number to call.
    const callee = `+1415557${crypto.randomInt(1000, 9999)}`;
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByLabel('Name (optional)').fill('Callback list');
    await page.locator(`input[name="line.${lineId}"]`).check();
    await page.getByLabel(/^Contacts/).fill(callee);
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.waitForURL('**/portal/campaigns/*?env=test&done=created');
    const campaignId = new URL(page.url()).pathname.split('/').pop()!;

    // Marked now: a reload or navigation would lose the mark, so the figures below changed in place (htmx).
    await page.evaluate('window.campaignPageMark = true');
    await page.locator('[data-count="dialing"]', { hasText: '1' }).waitFor({ timeout: 20_000 });
    await check(page, '07-campaign-running', problems);
    const callId = await eventually(
      async () =>
        (
          await h
            .db('calls')
            .where({ to_number: callee })
            .whereIn('id', h.db('campaign_attempts').where({ campaign_id: campaignId }).select('call_id'))
            .first()
        )?.id as string | undefined,
    );
    await eventually(
      async () => ((await h.db('calls').where({ id: callId }).first())?.status === 'in_progress' ? true : undefined),
      20_000,
    );
    expect((await sim.calls.hangUp(callId)).status).toBe(200);
    await page.locator('[data-campaign-status="completed"]').waitFor({ timeout: 20_000 });
    await expect(page.locator('[data-count="done"]').textContent()).resolves.toBe('1');
    await expect(page.locator('#outcome-counts [data-outcome="answered"]').textContent()).resolves.toBe('1');
    // The contact's row changed in place too, with a link to its call.
    await expect(page.locator('#results tr[data-row="1"]').getAttribute('data-outcome')).resolves.toBe('answered');
    await expect(page.locator(`#results a[href="/portal/calls/${callId}?env=test"]`).count()).resolves.toBe(1);
    await expect(page.locator('#campaign-progress').getAttribute('value')).resolves.toBe('1');
    await expect(page.evaluate('window.campaignPageMark')).resolves.toBe(true);
    // Ended: the live part no longer reloads itself.
    await expect(page.locator('#campaign-live').getAttribute('hx-get')).resolves.toBeNull();
    await check(page, '08-campaign-ended', problems);
    await context.close();
  });
});
