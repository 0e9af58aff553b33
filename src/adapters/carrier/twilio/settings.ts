import { type Config } from '../../../platform/config';
import { ROLE_REQUIREMENTS, usTextingProblem, type ConfigurationProblem, type ProcessRole } from '../../../platform/startupCheck';

export const TWILIO_ACCOUNT_SID = /^AC[0-9a-f]{32}$/;
export const TWILIO_MESSAGING_SERVICE_SID = /^MG[0-9a-f]{32}$/;

/**
 * What Twilio needs of a process's configuration (src/adapters/settings.ts lists it for the startup check):
 * each environment on Twilio its own account in the processes that hold the carrier's credentials (the API
 * verifies Twilio's signatures with it, the worker calls Twilio), the test environment Twilio's test
 * credentials (a separate account SID), never the live account's, so test keys cannot spend live money;
 * and, in the worker, a Messaging Service for US texting when the live environment is on Twilio.
 */
export function requiredSettings(role: ProcessRole, config: Config): ConfigurationProblem[] {
  if (!ROLE_REQUIREMENTS[role].carrierAccounts) return [];
  return [...accountProblems(config), ...(role === 'worker' ? messagingServiceProblems(config) : [])];
}

function accountProblems(config: Config): ConfigurationProblem[] {
  const problems: ConfigurationProblem[] = [];
  for (const environment of ['test', 'live'] as const) {
    if (config.carrier[environment] !== 'twilio') continue;
    const prefix = `TWILIO_${environment.toUpperCase()}`;
    const account = config.twilio[environment];
    if (!account) {
      problems.push({
        setting: `${prefix}_ACCOUNT_SID`,
        message: `and ${prefix}_AUTH_TOKEN must be set: CARRIER_PROVIDER_${environment.toUpperCase()} is twilio`,
      });
    } else if (!TWILIO_ACCOUNT_SID.test(account.accountSid)) {
      problems.push({ setting: `${prefix}_ACCOUNT_SID`, message: 'is not a Twilio account SID (AC followed by 32 hex digits)' });
    }
  }
  const { test, live } = config.twilio;
  if (config.carrier.test === 'twilio' && test && live && test.accountSid === live.accountSid) {
    problems.push({
      setting: 'TWILIO_TEST_ACCOUNT_SID',
      message:
        "is the live account's SID; the test environment takes Twilio's test credentials (Console → Account → API keys & tokens → Test credentials)",
    });
  }
  return problems;
}

/**
 * US texting (README "Texting US numbers"): unregistered 10DLC traffic to US phones is blocked, so the
 * worker refuses a live environment on Twilio without a Messaging Service registered for A2P 10DLC, unless
 * the operator declares SMS_NON_US_ONLY. A Messaging Service SID that is set is held to its format always.
 */
function messagingServiceProblems(config: Config): ConfigurationProblem[] {
  const sid = config.twilio.liveMessagingServiceSid;
  if (sid !== undefined && !TWILIO_MESSAGING_SERVICE_SID.test(sid))
    return [{ setting: 'TWILIO_LIVE_MESSAGING_SERVICE_SID', message: 'is not a Messaging Service SID (MG followed by 32 hex digits)' }];
  if (config.smsNonUsOnly || config.carrier.live !== 'twilio' || sid !== undefined) return [];
  return [usTextingProblem('TWILIO_LIVE_MESSAGING_SERVICE_SID', 'an A2P 10DLC-registered Messaging Service', 'service')];
}
