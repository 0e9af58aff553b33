import type { CheckResult, Verdict } from './runner';

/**
 * The smoke run's report: one row per check (its id, PASS / FAIL / SKIP, how long it took and
 * why), the reason wrapped to the width, then a summary line. Plain text, so it reads the same
 * in a terminal, a CI log or a pasted issue.
 */

const LABEL: Record<Verdict, string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' };

/** Splits `text` into lines of at most `width` characters, at spaces where it can. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      for (let rest = word; rest.length > 0;) {
        const room = line === '' ? width : width - line.length - 1;
        if (rest.length <= room) {
          line = line === '' ? rest : `${line} ${rest}`;
          rest = '';
        } else if (line !== '') {
          lines.push(line);
          line = '';
        } else {
          lines.push(rest.slice(0, width));
          rest = rest.slice(width);
        }
      }
    }
    lines.push(line);
  }
  return lines;
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export function summaryOf(results: CheckResult[]): string {
  const count = (verdict: Verdict) => results.filter((r) => r.verdict === verdict).length;
  const skipped = count('skip') > 0 ? `, ${count('skip')} skipped (not proven)` : '';
  return `${count('pass')} passed, ${count('fail')} failed${skipped}`;
}

/** The table for `results`, at most `width` characters wide (the reason column takes what is left). */
export function renderTable(results: CheckResult[], width = 110): string {
  const idWidth = Math.max(5, ...results.map((r) => r.id.length));
  const timeWidth = Math.max(4, ...results.map((r) => seconds(r.ms).length));
  const whyWidth = Math.max(20, width - idWidth - timeWidth - 4 - 6 - 3);
  const row = (id: string, verdict: string, time: string, why: string) =>
    `${id.padEnd(idWidth)}  ${verdict.padEnd(4)}  ${time.padStart(timeWidth)}  ${why}`.trimEnd();
  const lines = [row('check', 'res', 'time', 'why'), row('-'.repeat(idWidth), '----', '-'.repeat(timeWidth), '-'.repeat(whyWidth))];
  for (const result of results) {
    const [first, ...more] = wrap(`${result.title}: ${result.why}`, whyWidth);
    lines.push(row(result.id, LABEL[result.verdict], seconds(result.ms), first));
    for (const line of more) lines.push(row('', '', '', line));
  }
  lines.push('', summaryOf(results));
  return `${lines.join('\n')}\n`;
}
