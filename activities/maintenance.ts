import type { Db } from '../src/db/knex';
import { purgeExpiredIdempotencyKeys } from '../src/idempotency/store';
import { purgeStaleRateLimitHits } from '../src/limits/limiter';

/** Housekeeping of the Postgres tables that only ever grow otherwise. */
export function createMaintenanceActivities({ db, now }: { db: Db; now: () => Date }) {
  return {
    async purgeExpiredRecords(): Promise<{ idempotencyKeys: number; rateLimitHits: number }> {
      const at = now();
      return { idempotencyKeys: await purgeExpiredIdempotencyKeys(db, at), rateLimitHits: await purgeStaleRateLimitHits(db, at) };
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
