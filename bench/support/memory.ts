import fs from 'node:fs';

/** A process's resident memory now (VmRSS of /proc/<pid>/status), in MB; undefined once it has exited or off Linux. */
export function residentMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * Samples the resident memory of `pids` every `intervalMs` until stopped: each one's highest, in MB (a process's own
 * VmHWM would include its start-up, e.g. a worker bundling its workflows).
 */
export function sampleResidentMemory(pids: Record<string, number | undefined>, intervalMs = 500): { stop(): Record<string, number> } {
  const highest: Record<string, number> = {};
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const mb = residentMb(pid);
      if (mb !== undefined) highest[name] = Math.max(highest[name] ?? 0, mb);
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs); // pacing: the sampling interval
  return {
    stop() {
      clearInterval(timer);
      sample();
      return highest;
    },
  };
}
