import { CarrierRejectedError } from '../src/adapters/carrier/port';

/**
 * A carrier without a test mode (Telnyx) never serves the test environment: a test key must not buy a
 * number, place a call or send an SMS there (docs/decisions.md "Telnyx carrier"). Checked before each
 * of those carrier requests; the line activity refuses the number, the call and message activities
 * refuse for a test line that holds one anyway (e.g. provisioned before the deployment changed carrier).
 */
export const TEST_ENVIRONMENT_ON_LIVE_CARRIER = 'the configured carrier has no test mode: the test environment cannot use it';

export function refuseTestEnvironment(carrierServesTestEnvironment: boolean, environment: string | undefined): void {
  if (!carrierServesTestEnvironment && environment !== 'live') throw new CarrierRejectedError(TEST_ENVIRONMENT_ON_LIVE_CARRIER);
}
