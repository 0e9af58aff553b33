import fs from 'node:fs';
import path from 'node:path';
import { eventually } from '../support/eventually';
import { fixedPauses, POLLERS, testSources, unexplainedPauses, until } from '../support/waits';

/**
 * No flaky waits (issue 28): a test waits on a fact (an event received, a row settled, a
 * workflow's update admitted) through `until` or `eventually`. A fixed pause stays only with a
 * one-line comment saying what absence it waits out (`// waits out …`) or why the pacing is the
 * test (`// pacing: …`).
 */
describe('until and eventually', () => {
  it('resolve as soon as the fact holds, sync or async, and eventually answers what the probe found', async () => {
    let polls = 0;
    await until(() => ++polls === 3, 'the third poll', { intervalMs: 1 });
    expect(polls).toBe(3);
    await until(async () => true, 'at once');
    let tries = 0;
    expect(await eventually(async () => (++tries === 2 ? 'found' : undefined), 1_000)).toBe('found');
  });

  it('fail after the timeout, naming what they waited for and what was seen', async () => {
    await expect(until(() => false, 'the answer', { timeoutMs: 30, detail: () => 'got 2 events' })).rejects.toThrow(
      'timed out waiting for the answer; got 2 events',
    );
    await expect(eventually(async () => undefined, 30, 'the row')).rejects.toThrow('timed out waiting for the row');
  });
});

describe('fixed pauses in tests', () => {
  const root = path.resolve(__dirname, '../..');

  it('finds promise sleeps, local sleep helpers and timers/promises, wherever they are wrapped', () => {
    const source = [
      "import { setTimeout as wait } from 'node:timers/promises';",
      'const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));',
      'async function f() {',
      '  await new Promise((resolve) => setTimeout(resolve, 500));',
      '  await pause(100);',
      '  await new Promise((r) =>',
      '    setTimeout(r, 10),',
      '  );',
      '  setTimeout(() => child.kill(), 30_000);',
      '  await env.sleep(150_000);',
      '  await new Promise<void>((done) => { setTimeout(done, 50); });',
      '  await new Promise((resolve) => setTimeout(() => resolve(true), 50));',
      '  await wait(20);',
      '  await new Promise((resolve) => server.close(resolve));',
      '}',
    ].join('\n');
    expect(fixedPauses(source).map((pause) => pause.line)).toEqual([4, 5, 6, 11, 12, 13]);
    expect(unexplainedPauses(source).map((pause) => pause.line)).toEqual([4, 5, 6, 11, 12, 13]);
    const timers = "import { setTimeout } from 'node:timers/promises';\nawait setTimeout(200);";
    expect(unexplainedPauses(timers)).toEqual([{ line: 2, text: 'await setTimeout(200);', explained: false }]);
  });

  it('accepts a pause whose reason is on its line or in the comment just above', () => {
    const source = [
      'const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));',
      'await sleep(100); // waits out a second event after the hang-up',
      '// The restart lands mid-call:',
      '// pacing: the workers restart while calls are live',
      'await sleep(1_000);',
      '// waits out a second charge',
      '',
      'await sleep(300);',
      'await sleep(50); // give it a moment',
    ].join('\n');
    expect(fixedPauses(source).map((pause) => [pause.line, pause.explained])).toEqual([
      [2, true],
      [5, true],
      [8, false],
      [9, false],
    ]);
  });

  it('none in test/ lacks a reason (outside the pollers)', () => {
    const bare = testSources(root)
      // This file's own samples are pauses on purpose.
      .filter((file) => !POLLERS.includes(file) && file !== 'test/unit/testWaits.test.ts')
      .flatMap((file) =>
        unexplainedPauses(fs.readFileSync(path.join(root, file), 'utf8')).map((pause) => `${file}:${pause.line}: ${pause.text}`),
      );
    expect(bare).toEqual([]);
  });

  it('reads the whole tree (the scan cannot pass by reading nothing)', () => {
    const files = testSources(root);
    expect(files).toEqual(expect.arrayContaining(['test/unit/testWaits.test.ts', 'test/support/waits.ts']));
    expect(files.some((file) => file.startsWith('test/histories/'))).toBe(false);
  });
});
