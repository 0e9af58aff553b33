import { ApplicationFailure } from '@temporalio/activity';
import { parsePhoneNumberWithError } from 'libphonenumber-js';
import type { Db } from '../src/platform/db/knex';
import { activateLine, failProvisioning, findLineById } from '../src/domain/lines/store';
import { CarrierRejectedError, type CarrierAdapter } from '../src/adapters/carrier/port';

export interface LineActivityDeps {
  db: Db;
  carrier: CarrierAdapter;
  now: () => Date;
}

/** Thin adapters between the line workflows and Postgres / the carrier. */
export function createLineActivities({ db, carrier, now }: LineActivityDeps) {
  return {
    async provisionNumber(lineId: string): Promise<{ phoneNumber: string }> {
      try {
        // The line id is the idempotency key: a retry after a crash gets the same number back.
        const provisioned = await carrier.provisionNumber({ idempotencyKey: `line:${lineId}`, country: 'US' });
        return { phoneNumber: parsePhoneNumberWithError(provisioned.phoneNumber).number };
      } catch (err) {
        // The provider and its code ride along (the failure's details) for whoever reports the refusal.
        if (err instanceof CarrierRejectedError)
          throw ApplicationFailure.nonRetryable(err.message, 'CarrierRejected', ...(err.refusal ? [err.refusal] : []));
        throw err;
      }
    },

    async activateLine(lineId: string, phoneNumber: string): Promise<'activated' | 'already_active' | 'gone'> {
      return activateLine(db, lineId, phoneNumber, now());
    },

    async releaseNumber(phoneNumber: string): Promise<void> {
      await carrier.releaseNumber({ phoneNumber });
    },

    /**
     * Gives a released line's number back. Reads the number from the row, and only once the
     * row says released (the API commits that right after starting the workflow).
     */
    async releaseLineNumber(lineId: string): Promise<{ released: string | null }> {
      const line = await findLineById(db, lineId);
      if (!line) return { released: null };
      if (line.status !== 'released') throw ApplicationFailure.retryable('the line is not released (yet)', 'LineNotReleased');
      if (line.phone_number) await carrier.releaseNumber({ phoneNumber: line.phone_number });
      return { released: line.phone_number };
    },

    async failLineProvisioning(lineId: string, reason: string): Promise<void> {
      await failProvisioning(db, lineId, reason, now());
    },
  };
}

export type LineActivities = ReturnType<typeof createLineActivities>;
