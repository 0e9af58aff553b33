import { environmentsOnCarrier, type Config } from '../../../platform/config';
import { usTextingProblem, type ConfigurationProblem, type ProcessRole } from '../../../platform/startupCheck';

/** The Telnyx account settings each process needs when an environment is on Telnyx. */
const ACCOUNT_SETTINGS: Partial<Record<ProcessRole, Array<{ setting: string; of: (c: Config) => string | undefined }>>> = {
  // The API verifies Telnyx's webhooks (and declines calls it cannot take).
  api: [
    { setting: 'TELNYX_PUBLIC_KEY', of: (c) => c.telnyx.publicKey },
    { setting: 'TELNYX_API_KEY', of: (c) => c.telnyx.apiKey },
  ],
  // The worker drives Telnyx.
  worker: [
    { setting: 'TELNYX_API_KEY', of: (c) => c.telnyx.apiKey },
    { setting: 'TELNYX_CONNECTION_ID', of: (c) => c.telnyx.connectionId },
    { setting: 'TELNYX_MESSAGING_PROFILE_ID', of: (c) => c.telnyx.messagingProfileId },
  ],
};

/**
 * What Telnyx needs of a process's configuration (src/adapters/settings.ts lists it for the startup check):
 * Telnyx has no test mode, so it may serve the live environment only (test traffic runs on the simulator);
 * the account's settings in the API and the worker; and, in the worker, an approved 10DLC campaign for US
 * texting when the live environment is on Telnyx, unless the operator declares SMS_NON_US_ONLY.
 */
export function requiredSettings(role: ProcessRole, config: Config): ConfigurationProblem[] {
  const problems: ConfigurationProblem[] = [];
  if (role !== 'api' && role !== 'worker') return problems;
  if (config.carrier.test === 'telnyx')
    problems.push({
      setting: 'CARRIER_PROVIDER_TEST',
      message:
        'cannot be telnyx: it has no test mode, so test keys would spend real money; the test environment runs on the simulator (docs/carriers.md "Choosing the carrier")',
    });
  const environments = environmentsOnCarrier(config, 'telnyx').map((e) => `CARRIER_PROVIDER_${e.toUpperCase()}`);
  if (environments.length === 0) return problems;
  for (const { setting, of } of ACCOUNT_SETTINGS[role] ?? []) {
    if (!of(config))
      problems.push({
        setting,
        message: `is not set (${environments.join(' and ')}=telnyx needs it; see README "Connect a real carrier")`,
      });
  }
  if (role === 'worker' && config.carrier.live === 'telnyx' && !config.smsNonUsOnly && !config.telnyx.campaignId)
    problems.push(usTextingProblem('TELNYX_10DLC_CAMPAIGN_ID', 'an approved 10DLC campaign', 'campaign'));
  return problems;
}
