import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureChromium } from '../../dev/infra/chromium';
import { linkIn, type SmtpReceiver } from './smtpReceiver';

/** Where the browser tests leave their screenshots (gitignored; CI keeps it as an artifact). */
export const ARTIFACTS_DIR = path.join(__dirname, '..', '..', 'test-artifacts');

/** Headless Debian Chromium, installed by ensureChromium when missing (minutes, the first time only). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = await ensureChromium((line) => process.stderr.write(`[browser] ${line}\n`));
  // Root in a container has no user namespaces for Chromium's sandbox.
  return chromium.launch({ executablePath, headless: true, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
}

/**
 * A browser suite's Chromium: launched before the suite's tests (installing it may take minutes the first
 * time), closed after them. Declare it in the `describe`; tests use the returned browser once the hooks ran.
 */
export function useChromium(): Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 15 * 60_000);
  afterAll(async () => browser?.close());
  // The browser exists once the hook ran: tests read it through this stand-in (its methods bound to it).
  return new Proxy({} as Browser, {
    get: (_, name) => {
      const value = Reflect.get(browser!, name);
      return typeof value === 'function' ? value.bind(browser) : value;
    },
  });
}

/** Problems a page reports by itself: CSP refusals, script errors and console errors. */
export function watchPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.2 A and AA tags the portal walk holds every page to (issue 30, item 7). */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * One axe run in the page answering both questions the checks ask, each with the rules axe would have chosen for it
 * alone (axe-core's `ruleShouldRun`/`matchTags`): `serious` from a default run (the enabled rules without an excluded
 * tag such as `experimental`), and, with `wcag`, a run by WCAG tags (every rule with one of them, enabled by default
 * or not, without another excluded tag). A rule's result does not depend on which others run, so one run of the union
 * finds what the two runs found, at the cost of one. Only violations are aggregated (`resultTypes`); passes and
 * incomplete results, which no check reads, are not built in full.
 */
const AXE_SCAN = `(async (withWcag) => {
  const audit = axe._audit;
  if (!audit || !Array.isArray(audit.rules) || !Array.isArray(audit.tagExclude)) throw new Error('axe-core without _audit.rules/tagExclude: update the scan in test/support/browser.ts');
  const wcagTags = ${JSON.stringify(WCAG_TAGS)};
  const excluded = (tag) => audit.tagExclude.includes(tag);
  const byDefault = new Set(audit.rules.filter((r) => r.enabled !== false && !r.tags.some(excluded)).map((r) => r.id));
  const byWcag = new Set(withWcag ? audit.rules.filter((r) => r.tags.some((t) => wcagTags.includes(t)) && !r.tags.some((t) => excluded(t) && !wcagTags.includes(t))).map((r) => r.id) : []);
  const result = await axe.run(document, { runOnly: { type: 'rule', values: [...new Set([...byDefault, ...byWcag])] }, resultTypes: ['violations'] });
  return {
    serious: result.violations.filter((v) => byDefault.has(v.id) && (v.impact === 'serious' || v.impact === 'critical')),
    wcag: result.violations.filter((v) => byWcag.has(v.id)).map((v) => ({ id: v.id, nodes: v.nodes.length })),
  };
})`;

/**
 * Runs axe-core in the page: its serious and critical violations, and with `wcag` every WCAG 2.2 A and AA violation
 * (any impact). The portal's CSP refuses inline scripts, `page.addScriptTag({ content })` included, so axe is
 * evaluated through the DevTools protocol, which the page's CSP does not govern; the test's pages keep their CSP on.
 */
export async function accessibilityViolations(
  page: Page,
  { wcag = false } = {},
): Promise<{ serious: AxeViolation[]; wcag: Array<{ id: string; nodes: number }> }> {
  await page.evaluate(axeSource);
  // A string, evaluated in the page: this file is compiled without the DOM's types.
  return (await page.evaluate(`${AXE_SCAN}(${wcag})`)) as { serious: AxeViolation[]; wcag: Array<{ id: string; nodes: number }> };
}

export async function screenshot(page: Page, group: string, name: string): Promise<void> {
  const dir = path.join(ARTIFACTS_DIR, group);
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/**
 * The check each page of a browser test ends with: a screenshot into test-artifacts/<group>/, no serious
 * accessibility violation, and nothing the page reported by itself (see watchPageProblems); with `wcag`, also no
 * WCAG 2.2 A or AA violation of any impact (the portal walk).
 */
export function pageChecker(group: string, { wcag = false } = {}): (page: Page, name: string, problems: string[]) => Promise<void> {
  return async (page, name, problems) => {
    await screenshot(page, group, name);
    const violations = await accessibilityViolations(page, { wcag });
    expect(violations.serious).toEqual([]);
    expect(problems).toEqual([]);
    if (wcag) expect({ page: name, violations: violations.wcag }).toEqual({ page: name, violations: [] });
  };
}

/**
 * Signs up through the portal's form as a new operator does (SIGNUP_MODE=open), follows the
 * verification link mailed to `email` (read from the harness's SMTP receiver), confirms, and waits
 * for the overview.
 */
export async function signUpInBrowser(page: Page, email: string, password: string, mail: SmtpReceiver): Promise<void> {
  await page.goto('/portal/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password (at least 10 characters)').fill(password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await verifyInBrowser(page, email, mail);
}

/** After a signup: waits for the "Check your inbox" page, opens the mailed link, confirms, and waits for the overview. */
export async function verifyInBrowser(page: Page, email: string, mail: SmtpReceiver): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Check your inbox' }).waitFor();
  await page.goto(linkIn(await mail.waitForMail(email, { subject: /Confirm your email/ }), '/portal/verify'));
  await page.getByRole('button', { name: 'Confirm my address' }).click();
  await page.waitForURL('**/portal');
}

/**
 * The page's own width is the viewport's: only a table's or code's own box may scroll, never the page. On failure
 * the elements reaching past the right edge are named, innermost first.
 */
export async function expectNoHorizontalScroll(page: Page, width: number): Promise<void> {
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

/** Desktop and the 390-pixel phone every portal page is checked at (issue 30, item 7). */
export const LOOK_WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
