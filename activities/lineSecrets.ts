import type { SecretsKeyRing } from '../src/platform/crypto/secretBox';
import type { Db } from '../src/platform/db/knex';
import { promoteNextAndStage, stageNextSecret } from '../src/domain/lines/secrets';

/** Postgres side of signing-secret rotation; the 24-hour rule lives in the workflow. */
export function createLineSecretActivities({ db, secretsKey, now }: { db: Db; secretsKey: () => SecretsKeyRing; now: () => Date }) {
  return {
    async stageNextSecret(lineId: string): Promise<{ secretId: string }> {
      return stageNextSecret(db, secretsKey(), lineId, now());
    },
    async promoteNextSecret(lineId: string, expectedNextId: string): Promise<{ secretId: string }> {
      return promoteNextAndStage(db, secretsKey(), lineId, expectedNextId, now());
    },
  };
}

export type LineSecretActivities = ReturnType<typeof createLineSecretActivities>;
