import { ApplicationFailure } from '@temporalio/activity';
import { parsePhoneNumberWithError } from 'libphonenumber-js';
import type { Db } from '../src/platform/db/knex';
import type { NumberCriterion } from '../src/domain/lines/numberChoice';
import { activateLine, failProvisioning, findLineById, numberChoiceOf, NumberInUseError } from '../src/domain/lines/store';
import {
  CarrierRejectedError,
  NumberUnavailableError,
  type CarrierAdapter,
  type CarrierRefusal,
  type ProvisionNumberRequest,
} from '../src/adapters/carrier/port';
import { FailureTypes } from '../workflows/definitions/failures';

export interface LineActivityDeps {
  db: Db;
  carrier: CarrierAdapter;
  now: () => Date;
}

/** Thin adapters between the line workflows and Postgres / the carrier. */
export function createLineActivities({ db, carrier, now }: LineActivityDeps) {
  /** Releases a number, or only detaches it when `lineId`'s line imported it (the account keeps it). */
  async function giveBack(phoneNumber: string, lineId: string | undefined): Promise<void> {
    const line = lineId ? await findLineById(db, lineId) : undefined;
    const keepInAccount = line?.number_source === 'imported';
    await carrier.releaseNumber(keepInAccount ? { phoneNumber, keepInAccount } : { phoneNumber });
  }

  return {
    /** Acquires the line's number as its row asks: bought to its criteria, or its owned number imported. */
    async provisionNumber(lineId: string): Promise<{ phoneNumber: string }> {
      try {
        const line = await findLineById(db, lineId);
        if (!line) throw new CarrierRejectedError('the line is gone');
        // The line id is the idempotency key: a retry after a crash gets the same number back.
        const provisioned = await carrier.provisionNumber(provisionRequestOf(`line:${lineId}`, numberChoiceOf(line)));
        return { phoneNumber: parsePhoneNumberWithError(provisioned.phoneNumber).number };
      } catch (err) {
        // The request field that matched nothing is the failure's first detail (the workflow's result names it).
        if (err instanceof NumberUnavailableError) {
          throw ApplicationFailure.create({
            type: FailureTypes.numberUnavailable,
            message: err.message,
            nonRetryable: true,
            details: [err.criterion satisfies NumberCriterion, ...(err.refusal ? [err.refusal] : [])],
          });
        }
        // The provider and its code ride along (the failure's details) for whoever reports the refusal.
        if (err instanceof CarrierRejectedError)
          throw ApplicationFailure.nonRetryable(err.message, FailureTypes.carrierRejected, ...(err.refusal ? [err.refusal] : []));
        throw err;
      }
    },

    async activateLine(lineId: string, phoneNumber: string): Promise<'activated' | 'already_active' | 'gone'> {
      try {
        return await activateLine(db, lineId, phoneNumber, now());
      } catch (err) {
        if (err instanceof NumberInUseError) throw ApplicationFailure.nonRetryable(err.message, FailureTypes.numberInUse);
        throw err;
      }
    },

    /** A number acquired for a line released meanwhile. `lineId` is absent in histories from before imports (all bought). */
    async releaseNumber(phoneNumber: string, lineId?: string): Promise<void> {
      await giveBack(phoneNumber, lineId);
    },

    /**
     * Gives a released line's number back (an imported one is detached and stays in the account).
     * Reads the number from the row, and only once the row says released (the API commits that
     * right after starting the workflow).
     */
    async releaseLineNumber(lineId: string): Promise<{ released: string | null }> {
      const line = await findLineById(db, lineId);
      if (!line) return { released: null };
      if (line.status !== 'released') throw ApplicationFailure.retryable('the line is not released (yet)', 'LineNotReleased');
      if (line.phone_number) await giveBack(line.phone_number, lineId);
      return { released: line.phone_number };
    },

    /** `unavailable`: the request field nothing matched; `refusal`: who refused otherwise, with its code (absent in older histories). */
    async failLineProvisioning(
      lineId: string,
      reason: string,
      unavailable?: NumberCriterion | null,
      refusal?: CarrierRefusal | null,
    ): Promise<void> {
      await failProvisioning(db, lineId, reason, now(), { unavailable: unavailable ?? undefined, refusal: refusal ?? undefined });
    },
  };
}

/** The carrier request for a line's number choice. */
function provisionRequestOf(idempotencyKey: string, choice: ReturnType<typeof numberChoiceOf>): ProvisionNumberRequest {
  if (choice.source === 'imported') return { idempotencyKey, country: choice.country, importNumber: choice.phoneNumber };
  return {
    idempotencyKey,
    country: choice.country,
    numberType: choice.numberType,
    ...(choice.areaCode ? { areaCode: choice.areaCode } : {}),
  };
}

export type LineActivities = ReturnType<typeof createLineActivities>;
