import type { Logger } from '../../platform/logger';
import type { Environment } from '../keys/format';

/**
 * The environments a verified carrier callback may act on: those its carrier serves
 * (CARRIER_PROVIDER_TEST / _LIVE). The API names it from the verifier that accepted the callback:
 * the simulator's signature reaches the simulator's environments, a Telnyx webhook the live one
 * (Telnyx has no test mode), a Twilio callback its account's environment. A callback about a line,
 * call or message of another environment changes nothing, as if the row did not exist, and is logged.
 */
export type CarrierReach = readonly Environment[];

/** Whether `row` (a line, call or message) is of an environment in `reach`; a refusal is logged with `about`. */
export function withinCarrierReach(
  log: Logger,
  reach: CarrierReach,
  row: { environment: string },
  about: Record<string, unknown>,
): boolean {
  if ((reach as readonly string[]).includes(row.environment)) return true;
  log.warn(
    { ...about, environment: row.environment, carrier_reach: reach },
    'carrier callback refused: it is about an environment its carrier does not serve',
  );
  return false;
}
