import { aptInstall, isExecutable, isRoot, which } from './proc';
import type { Log } from './toolVenv';

/** Where Debian's `chromium` package puts the browser. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * Headless Chromium for the portal's browser tests: `CHROMIUM` when set, else from PATH, else Debian's
 * `chromium` package, installed with apt-get when missing and running as root (as HAProxy is,
 * clusterStack.ts; `aptInstall` waits up to 10 minutes for a dpkg lock another installer holds).
 */
export async function ensureChromium(log: Log): Promise<string> {
  const configured = process.env.CHROMIUM;
  if (configured) {
    if (!isExecutable(configured)) throw new Error(`CHROMIUM=${configured} is not an executable`);
    return configured;
  }
  const found = [which('chromium'), DEBIAN_CHROMIUM].find((candidate) => candidate && isExecutable(candidate));
  if (found) return found;
  if (!isRoot()) throw new Error('Chromium is missing and this user cannot install it: run `apt-get install chromium` as root');
  await aptInstall(['chromium'], log);
  if (!isExecutable(DEBIAN_CHROMIUM)) throw new Error(`apt-get installed chromium but ${DEBIAN_CHROMIUM} is missing`);
  return DEBIAN_CHROMIUM;
}
