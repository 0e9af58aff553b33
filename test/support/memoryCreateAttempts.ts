import type { CreateAttempts, CreateKind } from '../../src/adapters/carrier/twilio/createAttempts';

/**
 * The create record of src/adapters/carrier/twilio/createAttempts.ts in memory, for adapter tests
 * without Postgres; share one between adapters to stand for several workers.
 */
export function memoryCreateAttempts(): CreateAttempts {
  const rows = new Map<string, { firstAttemptAt: Date; carrierId: string | null; runningUntil: number | null }>();
  const id = (kind: CreateKind, key: string) => `${kind}:${key}`;
  return {
    async begin(kind, key, runningMs) {
      const row = rows.get(id(kind, key));
      if (!row) {
        rows.set(id(kind, key), { firstAttemptAt: new Date(), carrierId: null, runningUntil: Date.now() + runningMs });
        const firstAttemptAt = rows.get(id(kind, key))!.firstAttemptAt;
        return { carrierId: null, firstAttemptAt, earlierAttemptsUntil: null, retried: false, inFlight: false };
      }
      const earlierAttemptsUntil = row.runningUntil === null ? null : new Date(row.runningUntil);
      const inFlight = row.carrierId === null && row.runningUntil !== null && row.runningUntil > Date.now();
      if (row.carrierId === null && !inFlight) row.runningUntil = Date.now() + runningMs;
      return { carrierId: row.carrierId, firstAttemptAt: row.firstAttemptAt, earlierAttemptsUntil, retried: true, inFlight };
    },
    async finish(kind, key, carrierId) {
      const row = rows.get(id(kind, key));
      if (!row) return;
      row.runningUntil = carrierId ? null : Math.min(row.runningUntil ?? Date.now(), Date.now());
      if (carrierId) row.carrierId = carrierId;
    },
    async isClaimed(kind, carrierId) {
      return [...rows.entries()].some(([rowId, row]) => rowId.startsWith(`${kind}:`) && row.carrierId === carrierId);
    },
  };
}
