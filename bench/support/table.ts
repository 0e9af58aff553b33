/** The benchmarks' tables: a header, a rule, then rows; the first column left-aligned, the rest right-aligned. */

/** `value` with `digits` decimals, or `n/a` when it is not a finite number (no samples, a division by zero). */
export const fmt = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** The first cell of the row comparing the project with its baseline. */
export const RATIO_LABEL = 'ratio switchboard/baseline';

/** One cell of that row: how many times the baseline's figure the project's is. */
export const ratio = (project: number, baseline: number, digits: number): string => `${fmt(project / baseline, digits)}x`;

export function printTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((cells) => cells[i].length)));
  const pad = (cell: string, i: number) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]));
  const line = (cells: readonly string[]) => cells.map(pad).join('  ');
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const cells of rows) console.log(line(cells));
}
