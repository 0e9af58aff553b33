import type { CarrierEnvironmentName, Config } from '../../../../platform/config';
import type { Db } from '../../../../platform/db/knex';
import { acceptTwilioEventOnce, forgetTwilioEvent } from './replay';
import { environmentsOfTwilioAccount, twilioAccounts, verifyTwilioCallback, type TwilioCallbackFailure } from './verify';

/*
 * Twilio's callbacks, the one module the API's Twilio routes import (api/routes/carrier/twilio*.ts; lint:
 * `http-only-in-api`): where Twilio reaches the API, a callback verified and taken once, what its
 * parameters mean in the carrier vocabulary (../../callbacks/wire.ts), the TwiML that answers it, and the
 * ConversationRelay socket's session and commands.
 */

export { TWILIO_CALLBACK_PATHS, twilioCallbackUrl } from './paths';
export { environmentsOfTwilioAccount, twilioAccounts, verifyTwilioUpgrade } from './verify';
export {
  acceptTwilioEventOnce,
  amdStatusEvent,
  callStatusEvent,
  forgetTwilioEvent,
  inboundMessageEvent,
  messageStatusEvent,
  recordingStatusEvent,
  transferOutcomeEvent,
} from './replay';
export { isTwilioCallStatus, isTwilioMessageStatus, twilioCallEventType, twilioMessageStatus } from './translate';
export { audioHoldTwiml, holdTwiml, rejectTwiml, relayTwiml, webSocketUrl } from './twiml';
export { hangUpTwiml, resumeTwiml, transferWasAnswered, twilioAnsweredBy, twilioGreetingEnded, twilioMachineKind } from './transfer';
export { recordTransferReached } from './transferRecord';
export { dropRelayCommands } from './relayCommands';
export { issueRelayToken, takeRelayToken, type RelayTokenGrant } from './relayTokens';
export { ConversationRelayHub } from './relayHub';
export { ConversationRelaySession, type RelayReport } from './relaySession';

/** A Twilio callback checked: refused (forged or not ours), a repeat of an event taken before, or taken. */
export type TwilioCallbackTaking =
  | { outcome: 'refused'; reason: TwilioCallbackFailure }
  | { outcome: 'repeated' }
  /**
   * `reach`: the environments of the account that signed it, the only ones it may act on. `forget` lets
   * Twilio's retry of the event be taken again (its handling failed); a no-op for TwiML requests.
   */
  | { outcome: 'taken'; reach: CarrierEnvironmentName[]; forget: () => Promise<void> };

/**
 * Verifies a callback's `X-Twilio-Signature` against the deployment's account it names and, when it reports
 * an event (`event`, from ./replay.ts), takes that event once: a request Twilio sends again is byte-identical,
 * so what it reports is the key, not its signature. TwiML requests (no `event`) are taken every time.
 */
export async function takeTwilioCallback(
  db: Db,
  config: Pick<Config, 'carrier' | 'twilio'>,
  input: { signature: string | undefined; url: string; params: Record<string, string>; event: string | undefined; at: Date },
): Promise<TwilioCallbackTaking> {
  const verdict = verifyTwilioCallback({ ...input, accounts: twilioAccounts(config) });
  if (!verdict.valid) return { outcome: 'refused', reason: verdict.reason };
  const reach = environmentsOfTwilioAccount(config, verdict.account.accountSid);
  const { event } = input;
  if (event === undefined) return { outcome: 'taken', reach, forget: async () => {} };
  if (!(await acceptTwilioEventOnce(db, event, input.at))) return { outcome: 'repeated' };
  return { outcome: 'taken', reach, forget: () => forgetTwilioEvent(db, event) };
}
