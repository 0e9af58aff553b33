import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureChromium } from '../../dev/infra/chromium';
import { linkIn, type SmtpReceiver } from './smtpReceiver';

/** Where the browser tests leave their screenshots (gitignored; CI keeps it as an artifact). */
export const ARTIFACTS_DIR = path.join(__dirname, '..', '..', 'test-artifacts');

/** Headless Debian Chromium, installed by ensureChromium when missing (minutes, the first time only). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = ensureChromium((line) => process.stderr.write(`[browser] ${line}\n`));
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

/**
 * Runs axe-core in the page and returns its serious and critical violations. The portal's CSP refuses
 * inline scripts, `page.addScriptTag({ content })` included, so axe is evaluated through the DevTools
 * protocol, which the page's CSP does not govern; the test's pages keep their CSP on.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  // A string, evaluated in the page: this file is compiled without the DOM's types.
  const violations = (await page.evaluate('axe.run(document).then((result) => result.violations)')) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

export async function screenshot(page: Page, group: string, name: string): Promise<void> {
  const dir = path.join(ARTIFACTS_DIR, group);
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/**
 * The check each page of a browser test ends with: a screenshot into test-artifacts/<group>/, no serious
 * accessibility violation, and nothing the page reported by itself (see watchPageProblems).
 */
export function pageChecker(group: string): (page: Page, name: string, problems: string[]) => Promise<void> {
  return async (page, name, problems) => {
    await screenshot(page, group, name);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
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

/** Every WCAG 2.2 A and AA violation axe finds (any impact, not only serious ones); run after `pageChecker`'s check, which loads axe. */
export async function wcagViolations(page: Page): Promise<Array<{ id: string; nodes: number }>> {
  return (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } })` +
      `.then((result) => result.violations.map((v) => ({ id: v.id, nodes: v.nodes.length })))`,
  )) as Array<{ id: string; nodes: number }>;
}

/** Desktop and the 390-pixel phone every portal page is checked at (issue 30, item 7). */
export const LOOK_WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
