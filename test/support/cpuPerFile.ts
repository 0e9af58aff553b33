import fs from 'node:fs';

/**
 * With JEST_CPU_LOG set to a file, each test file appends one line as it starts and one as its own hooks are done:
 * the jest worker's pid, the file, the wall clock and the worker's cumulative CPU (its own and its reaped children's:
 * the servers and browsers a file starts). A file's cost is the worker's CPU from its start to the next file's start in
 * the same worker (test/support/cpuReport.ts reads it): what `npm test`'s time is spent on, file by file.
 */
const logPath = process.env.JEST_CPU_LOG;

function cumulativeCpuMs(): { ownMs: number; childrenMs: number } {
  const own = process.cpuUsage();
  // /proc/self/stat fields 16 and 17: cutime and cstime, in clock ticks (100 a second on Linux).
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return { ownMs: (own.user + own.system) / 1000, childrenMs: ((Number(fields[13]) + Number(fields[14])) * 1000) / 100 };
}

function note(phase: 'start' | 'end'): void {
  if (!logPath) return;
  const line = { phase, pid: process.pid, file: expect.getState().testPath, at: Date.now(), ...cumulativeCpuMs() };
  fs.appendFileSync(logPath, `${JSON.stringify(line)}\n`);
}

if (logPath) {
  note('start');
  afterAll(() => note('end'));
}
