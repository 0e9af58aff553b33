import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';

/**
 * Waiting on facts instead of time (docs/decisions/layout.md, "Tests wait on facts; a fixed pause says
 * why"). `until` polls a check that reads what the test can see (an event received, a record's
 * state, a counter); `eventually` (./eventually.ts) answers the value an async probe finds. The scanner below is
 * the rule's guard: test/unit/testWaits.test.ts fails when a fixed pause appears in test/ without
 * a one-line comment saying what it waits out (`// waits out …`: the absence it proves) or why
 * the pacing is the test (`// pacing: …`).
 */

/** Polls `check` (sync or async) every `intervalMs` until it holds; fails naming `what` after `timeoutMs`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  options: { timeoutMs?: number; intervalMs?: number; detail?: () => string } = {},
): Promise<void> {
  const { timeoutMs = 3_000, intervalMs = 10, detail } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${detail ? `; ${detail()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs)); // pacing: the poll interval of the suite's one polling loop
  }
}

/**
 * Waits until a workflow has nothing left to do on what it has been told so far: closed, or
 * running with no workflow task pending (every signal it received has been handled) and no
 * activity scheduled or retrying. After this, nothing more happens until something new reaches
 * it (a signal, a timer firing), which is what a test asserting "it did not charge twice" needs.
 */
export async function untilWorkflowSettled(handle: WorkflowHandle, what = `${handle.workflowId} to settle`, timeoutMs = 20_000) {
  await until(
    async () => {
      const { status, raw } = await handle.describe();
      if (status.name !== 'RUNNING') return true;
      return !raw.pendingWorkflowTask && (raw.pendingActivities ?? []).length === 0;
    },
    what,
    { timeoutMs, intervalMs: 100 },
  );
}

/** Waits until the workflow's pending activity `activityType` is on its `attempt`-th try or later (it is being retried). */
export async function untilActivityAttempt(handle: WorkflowHandle, activityType: string, attempt: number, timeoutMs = 20_000) {
  await until(
    async () =>
      ((await handle.describe()).raw.pendingActivities ?? []).some(
        (a) => a.activityType?.name === activityType && (a.attempt ?? 0) >= attempt,
      ),
    `${activityType} attempt ${attempt}`,
    { timeoutMs, intervalMs: 100 },
  );
}

/** A fixed pause found in a test source: the line it starts on (1-based), and whether a comment gives its reason. */
export interface FixedPause {
  line: number;
  text: string;
  explained: boolean;
}

/** A comment that says what the pause waits out, or that the pacing is what the test is about. */
const REASON = /\/\/\s*(waits out\b|pacing:)/i;

/**
 * The fixed pauses in one source text: a promise resolved by `setTimeout`
 * (`new Promise((resolve) => setTimeout(resolve, ms))`), `timers/promises`' `setTimeout(ms)`, and
 * every call of a local helper defined as such a promise (`const pause = (ms) => new Promise(…)`).
 * The reason sits on the pause's line or on the comment lines just above it. Time-skipping
 * (`env.sleep`) is not wall time and is not a pause here.
 */
export function fixedPauses(source: string): FixedPause[] {
  const lines = source.split('\n');
  const lineOf = (index: number) => source.slice(0, index).split('\n').length;
  const starts = new Set<number>();
  const helperLines = new Set<number>();

  // `(resolve) => setTimeout(resolve, ms)`, `r => { setTimeout(r, ms); }`, `(resolve) => setTimeout(() => resolve(), ms)`.
  const promiseSleep = /new Promise(?:<[^>]+>)?\(\s*\(?\s*(\w+)[^)=]*\)?\s*=>\s*\{?\s*setTimeout\(\s*(?:\1\s*,|\(\)\s*=>\s*\1\()/g;
  for (const match of source.matchAll(promiseSleep)) starts.add(lineOf(match.index!));

  const helper =
    /(?:const|let|function)\s+(\w+)\s*=?\s*(?:async\s*)?\(\s*\w+(?:\s*:\s*number)?\s*\)\s*(?::\s*Promise<\w+>\s*)?(?:=>|\{)\s*(?:return\s+)?new Promise/g;
  for (const match of source.matchAll(helper)) {
    // A helper that sleeps: its promise is resolved by a timer (not, say, a server's close).
    if (!/^[^;]*?setTimeout\(/.test(source.slice(match.index! + match[0].length).split('\n')[0])) continue;
    const line = lineOf(match.index!);
    helperLines.add(line);
    starts.delete(line);
    const calls = new RegExp(`(?<![.\\w])${match[1]}\\(`, 'g');
    for (const call of source.matchAll(calls)) if (lineOf(call.index!) !== line) starts.add(lineOf(call.index!));
  }

  const timers = /import\s*\{([^}]*)\}\s*from\s*['"](?:node:)?timers\/promises['"]/.exec(source);
  const timerSleep = timers && /\bsetTimeout(?:\s+as\s+(\w+))?/.exec(timers[1]);
  if (timerSleep)
    for (const match of source.matchAll(new RegExp(`(?<![.\\w])${timerSleep[1] ?? 'setTimeout'}\\(`, 'g')))
      starts.add(lineOf(match.index!));

  const explained = (line: number) => {
    if (REASON.test(lines[line - 1])) return true;
    for (let above = line - 2; above >= 0 && /^\s*\/\//.test(lines[above]); above -= 1) if (REASON.test(lines[above])) return true;
    return false;
  };
  return [...starts]
    .filter((line) => !helperLines.has(line))
    .sort((a, b) => a - b)
    .map((line) => ({ line, text: lines[line - 1].trim(), explained: explained(line) }));
}

/** The fixed pauses in `source` that carry no reason. */
export const unexplainedPauses = (source: string) => fixedPauses(source).filter((pause) => !pause.explained);

/** Where polling is implemented (`until`): the only place a bare timer wait belongs. */
export const POLLERS = ['test/support/waits.ts'];

/** Every test source under `root`/test (recorded histories and fixtures aside), relative to `root`. */
export function testSources(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['histories', 'fixtures', 'node_modules'].includes(entry.name)) walk(relative);
      } else if (/\.[cm]?[tj]s$/.test(entry.name)) found.push(relative.split(path.sep).join('/'));
    }
  };
  walk('test');
  return found.sort();
}
