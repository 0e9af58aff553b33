// Twilio's signature check alone: the SDK's index loads its REST client too (about 0.1 s of CPU at every start).
import { validateRequest } from 'twilio/lib/webhooks/webhooks';
import { environmentsOnCarrier, type CarrierEnvironmentName, type Config } from '../../../../platform/config';
import type { TwilioAccount } from '../client';

/** The deployment's Twilio accounts (each environment has its own): a callback must be signed by one of them. */
export function twilioAccounts(config: Pick<Config, 'twilio'>): TwilioAccount[] {
  return [config.twilio.test, config.twilio.live].filter((account) => account !== undefined);
}

/** The environments on Twilio whose account is `accountSid`: a callback that account signed acts on these only. */
export function environmentsOfTwilioAccount(config: Pick<Config, 'carrier' | 'twilio'>, accountSid: string): CarrierEnvironmentName[] {
  return environmentsOnCarrier(config, 'twilio').filter((environment) => config.twilio[environment]?.accountSid === accountSid);
}

export type TwilioCallbackFailure = 'no_twilio_account' | 'missing_signature' | 'unknown_account' | 'signature_mismatch';

export type TwilioCallbackVerdict = { valid: true; account: TwilioAccount } | { valid: false; reason: TwilioCallbackFailure };

/**
 * Verifies `X-Twilio-Signature` with the official validator, over the exact public URL Twilio
 * was given (PUBLIC_BASE_URL + path + query) and the form parameters. The auth token is the one
 * of the account the callback names (`AccountSid`): each environment has its own account, and a
 * callback for an account this deployment does not hold is refused.
 */
export function verifyTwilioCallback(input: {
  accounts: readonly TwilioAccount[];
  signature: string | undefined;
  url: string;
  params: Record<string, string>;
}): TwilioCallbackVerdict {
  if (input.accounts.length === 0) return { valid: false, reason: 'no_twilio_account' };
  if (!input.signature) return { valid: false, reason: 'missing_signature' };
  const account = input.accounts.find((candidate) => candidate.accountSid === input.params.AccountSid);
  if (!account) return { valid: false, reason: 'unknown_account' };
  if (!validateRequest(account.authToken, input.signature, input.url, input.params)) return { valid: false, reason: 'signature_mismatch' };
  return { valid: true, account };
}

/**
 * Verifies the `X-Twilio-Signature` of a WebSocket upgrade (ConversationRelay, Media Streams): Twilio
 * signs the wss:// URL it was given, with no parameters. The request names no account, so it is
 * valid when one of the deployment's accounts signed it.
 */
export function verifyTwilioUpgrade(input: {
  accounts: readonly TwilioAccount[];
  signature: string | undefined;
  url: string;
}): TwilioCallbackVerdict {
  if (input.accounts.length === 0) return { valid: false, reason: 'no_twilio_account' };
  if (!input.signature) return { valid: false, reason: 'missing_signature' };
  const account = input.accounts.find((candidate) => validateRequest(candidate.authToken, input.signature!, input.url, {}));
  return account ? { valid: true, account } : { valid: false, reason: 'signature_mismatch' };
}
