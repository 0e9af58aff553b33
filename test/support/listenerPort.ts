import fs from 'node:fs';
import { canListen } from '../../dev/infra/proc';
import { freePort } from '../../src/platform/net/freePort';

/**
 * A port for a listener that starts later than the port is chosen (a worker's media listener, configured before the
 * worker exists). `freePort` draws from the kernel's ephemeral range, where every outgoing connection and every
 * `listen(0)` of the parallel test files draws too: in between, one of them can take the port, and the listener then
 * cannot bind (a CI run lost an audio call's stream that way). Below that range nothing takes a port by chance, so
 * this picks one there that is free now on both loopback and all addresses; where the range cannot be read (not
 * Linux), `freePort`.
 */
export async function listenerPort(): Promise<number> {
  const lowestEphemeral = ephemeralRangeStart();
  if (lowestEphemeral === undefined || lowestEphemeral <= FIRST_CANDIDATE + 1_000) return freePort();
  for (let tries = 0; tries < 50; tries += 1) {
    const port = FIRST_CANDIDATE + Math.floor(Math.random() * (lowestEphemeral - FIRST_CANDIDATE));
    if ((await canListen(port, '0.0.0.0')) && (await canListen(port, '127.0.0.1'))) return port;
  }
  return freePort();
}

/** Above the registered ports most local services use (Postgres 5432, the dev server's 7233, 8080...). */
const FIRST_CANDIDATE = 20_000;

function ephemeralRangeStart(): number | undefined {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}
