// `node --import tsx test/support/cpuReport.ts <log> [count]`: reads a JEST_CPU_LOG (test/support/cpuPerFile.ts) and prints each file's CPU seconds (own + children), longest first.
import fs from 'node:fs';

interface Mark {
  phase: 'start' | 'end';
  pid: number;
  file: string;
  at: number;
  ownMs: number;
  childrenMs: number;
}
const lines = fs
  .readFileSync(process.argv[2], 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Mark);
const byPid = new Map<number, Mark[]>();
for (const l of lines) byPid.set(l.pid, [...(byPid.get(l.pid) ?? []), l]);
const files: Array<{ file: string; own: number; children: number; wall: number }> = [];
for (const list of byPid.values()) {
  list.sort((a, b) => a.at - b.at);
  const starts = list.filter((l) => l.phase === 'start');
  starts.forEach((s, i) => {
    const next = starts[i + 1] ?? list.filter((l) => l.phase === 'end' && l.file === s.file).pop();
    if (!next) return;
    files.push({
      file: s.file.replace(/^.*\/test\//, 'test/'),
      own: (next.ownMs - s.ownMs) / 1000,
      children: (next.childrenMs - s.childrenMs) / 1000,
      wall: (next.at - s.at) / 1000,
    });
  });
}
files.sort((a, b) => b.own + b.children - (a.own + a.children));
let own = 0,
  children = 0;
for (const f of files) {
  own += f.own;
  children += f.children;
}
console.log(`${files.length} files: ${own.toFixed(0)} s own CPU + ${children.toFixed(0)} s children's`);
for (const f of files.slice(0, +(process.argv[3] || 40)))
  console.log(
    `${(f.own + f.children).toFixed(1).padStart(7)} s  (own ${f.own.toFixed(1)}, children ${f.children.toFixed(1)}, wall ${f.wall.toFixed(0)} s)  ${f.file}`,
  );
