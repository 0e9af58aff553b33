import fs from 'node:fs';

/** Seconds of CPU (user + system) in a `process.cpuUsage()` reading or difference. */
export const cpuSeconds = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1e6;

/** CPU time (user + system, ms) a process has used so far; undefined where /proc is not readable. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 Hz).
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** The fields after the command name of /proc/<pid>/stat, or undefined when the process is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU time (ms) the Postgres server listening on `port` has used so far: the postmaster, its
 * exited children (cutime + cstime) and its live backends. Undefined where /proc is not readable
 * or no such server runs on this machine.
 */
export function postgresCpuMs(port: number): number | undefined {
  let pids: number[];
  try {
    pids = fs
      .readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return undefined;
  }
  const postmaster = pids.find((pid) => {
    try {
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args[0].endsWith('/postgres') && args[args.indexOf('-p') + 1] === String(port);
    } catch {
      return false;
    }
  });
  const own = postmaster === undefined ? undefined : statFields(postmaster);
  if (postmaster === undefined || !own) return undefined;
  // utime, stime, cutime, cstime: the 12th to 15th fields after the name, in clock ticks (100 Hz).
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const pid of pids) {
    const fields = statFields(pid);
    // The parent pid is the 2nd field after the name.
    if (fields && Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/**
 * The pid of the process listening on TCP `port` on this machine (an external Temporal server a bench is pointed at
 * with TEMPORAL_ADDRESS, to read its CPU time); undefined when none is found or /proc is not readable.
 */
export function listeningPid(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = fs.readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      // sl local_address rem_address st ... inode: the local port is hex after the colon, state 0A is LISTEN.
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && fields[3] === '0A' && parseInt(fields[1].split(':')[1], 16) === port) inodes.add(fields[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const name of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${name}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = fs.readlinkSync(`/proc/${name}/fd/${fd}`);
        if (inodes.has(target.slice('socket:['.length, -1))) return Number(name);
      } catch {
        // the descriptor closed meanwhile
      }
    }
  }
  return undefined;
}

/** The port of a `host:port` address. */
export const portOf = (address: string): number => Number(address.slice(address.lastIndexOf(':') + 1));
