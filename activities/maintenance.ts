import { purgeExpiredCallbackSignatures } from '../src/adapters/carrier/callbacks/replay';
import { purgeStaleRelayCommands } from '../src/adapters/carrier/twilio/callbacks/relayCommands';
import { purgeExpiredRelayTokens } from '../src/adapters/carrier/twilio/callbacks/relayTokens';
import { purgeOldCreateAttempts } from '../src/adapters/carrier/twilio/createAttempts';
import { purgeOldTelnyxCalls } from '../src/adapters/carrier/callbacks/telnyx/callRecords';
import { purgeOldTelnyxSpeech } from '../src/adapters/carrier/callbacks/telnyx/speechQueue';
import type { Db } from '../src/platform/db/knex';
import { purgeExpiredContactLists } from '../src/domain/campaigns/contactListStore';
import { purgeExpiredIdempotencyKeys } from '../src/domain/idempotency/store';
import { purgeStaleRateLimitHits } from '../src/domain/limits/limiter';
import { purgeExpiredOAuthRecords } from '../src/domain/oauth/store';
import { purgeOldInboxEvents } from '../src/domain/telnyxInbox/store';

/**
 * Housekeeping of the Postgres tables that only ever grow otherwise. One activity, so the
 * maintenance workflow's command sequence (and its recorded histories) stays as it is when a
 * table is added here.
 */
export function createMaintenanceActivities({ db, now }: { db: Db; now: () => Date }) {
  return {
    async purgeExpiredRecords(): Promise<{
      idempotencyKeys: number;
      rateLimitHits: number;
      carrierCallbackSignatures: number;
      twilioRelayCommands: number;
      twilioRelayTokens: number;
      carrierCreateAttempts: number;
      telnyxInboxEvents: number;
      telnyxSpeechChunks: number;
      telnyxCalls: number;
      oauthRecords: number;
      campaignContactLists: number;
    }> {
      const at = now();
      return {
        idempotencyKeys: await purgeExpiredIdempotencyKeys(db, at),
        rateLimitHits: await purgeStaleRateLimitHits(db, at),
        carrierCallbackSignatures: await purgeExpiredCallbackSignatures(db, at),
        twilioRelayCommands: await purgeStaleRelayCommands(db, at),
        twilioRelayTokens: await purgeExpiredRelayTokens(db, at),
        carrierCreateAttempts: await purgeOldCreateAttempts(db, at),
        telnyxInboxEvents: await purgeOldInboxEvents(db, at),
        telnyxSpeechChunks: await purgeOldTelnyxSpeech(db, at),
        telnyxCalls: await purgeOldTelnyxCalls(db, at),
        oauthRecords: await purgeExpiredOAuthRecords(db, at),
        campaignContactLists: await purgeExpiredContactLists(db, at),
      };
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
