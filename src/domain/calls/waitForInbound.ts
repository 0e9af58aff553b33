import { setTimeout as sleep } from 'node:timers/promises';
import type { BillingTenant } from '../billing/ledger';
import type { UseCaseDeps } from '../useCaseDeps';
import { claimNextInboundCall, releaseInboundClaim, type CallRow } from './store';

/** A wait for the next inbound call is held at most this long: within the MCP SDK client's 60 s default request timeout. */
export const MAX_INBOUND_WAIT_SECONDS = 50;
export const DEFAULT_INBOUND_WAIT_SECONDS = 30;
/**
 * How often a waiting request looks at the calls table. The table is the source of truth every API
 * process shares (a call is recorded by whichever process the carrier reached), so a wait needs no
 * message from the process that recorded it; half a second is well inside a ring.
 */
export const INBOUND_WAIT_POLL_MS = 500;

/**
 * Waits for the line's next inbound call (`claimNextInboundCall`: one still active that no wait has
 * taken, or one that arrived since the wait began) and takes it, for up to `timeoutSeconds`.
 * Undefined when none came in time, or when `signal` aborted (the client went away: nothing is
 * taken after that, so the call goes to the next wait).
 */
export async function waitForInboundCall(
  deps: Pick<UseCaseDeps, 'db' | 'now'>,
  line: BillingTenant & { lineId: string },
  options: { timeoutSeconds: number; signal: AbortSignal },
): Promise<CallRow | undefined> {
  const arrivedSince = deps.now();
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  for (;;) {
    if (options.signal.aborted) return undefined;
    const at = deps.now();
    const claimed = await claimNextInboundCall(deps.db, line, { arrivedSince, at });
    // The client left while the call was being taken: it is the next wait's.
    if (claimed && options.signal.aborted) await releaseInboundClaim(deps.db, claimed.id, at);
    else if (claimed) return claimed;
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    try {
      await sleep(Math.min(INBOUND_WAIT_POLL_MS, left), undefined, { signal: options.signal });
    } catch {
      return undefined;
    }
  }
}
