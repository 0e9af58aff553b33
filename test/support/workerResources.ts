/**
 * The database and Temporal namespace of each jest worker, made by globalSetup.ts and handed to test files through
 * the environment: `{ "w1": { databaseUrl, temporalNamespace }, ... }`.
 */
export const WORKER_RESOURCES_ENV = 'SWITCHBOARD_TEST_WORKER_RESOURCES';

/** Points this test file's process at its jest worker's own database and namespace (JEST_WORKER_ID counts from 1). */
export function useWorkerResources(env: NodeJS.ProcessEnv = process.env): void {
  const all = env[WORKER_RESOURCES_ENV];
  if (!all) return;
  const resources = (JSON.parse(all) as Record<string, { databaseUrl: string; temporalNamespace: string } | undefined>)[
    `w${env.JEST_WORKER_ID ?? '1'}`
  ];
  if (!resources) throw new Error(`the global setup made no database for jest worker ${env.JEST_WORKER_ID}`);
  env.DATABASE_URL = resources.databaseUrl;
  env.TEMPORAL_NAMESPACE = resources.temporalNamespace;
}
