import crypto from 'node:crypto';
import fs from 'node:fs';
import YAML from 'yaml';
import { loadConfig } from '../../src/platform/config';
import { ensureSchemathesis } from '../../dev/infra/schemathesis';
import { clearRateLimits, makeEnvFixtures, uploadFixtureContactList, type EnvFixtures } from '../support/fixtures';
import { useSuite } from '../support/suite';
import {
  failureReport,
  FUZZ_CHECKS,
  fuzzConfig,
  operationKeyKind,
  operationsOf,
  runSchemathesis,
  type KeyKind,
} from '../support/schemathesis';

/**
 * Schema fuzzing (issue #12, item 4): schemathesis generates requests from the served
 * `/api/openapi.yaml` and checks every answer of the real API (real worker, carrier simulator):
 * never a 5xx, every body matches the schema the document gives for its status, a method a
 * path does not serve is 405 with `Allow`, and a request the document allows is not refused
 * (`positive_data_acceptance`), except for the state-dependent refusals listed with their reasons in
 * STATE_REFUSALS (test/support/schemathesis.ts; issue 27 item 4). Runs with a
 * test, a live and a service key, each against the operations its kind can reach, once with a
 * fixed seed and once with a fresh seed, both printed.
 * `SCHEMA_FUZZ_SEED=<n>` replaces the fresh seed, to replay a failure.
 */
const FIXED_SEED = 20261123;
const FRESH_SEED = process.env.SCHEMA_FUZZ_SEED ? Number(process.env.SCHEMA_FUZZ_SEED) : crypto.randomInt(1, 2 ** 31 - 1);

/**
 * The runs, within a budget of a few minutes on two cores (figures in docs/decisions/operations.md). The
 * coverage phase (boundary values, missing and unexpected parameters, unknown methods: ~3,600
 * requests) depends on the document, not on the key's environment, so the live key skips it. The fuzzing
 * phase draws each operation's examples from one strategy of positive and negative data (max-examples per operation):
 * the fixed seed draws the same ones every run, a regression set on top of the deterministic coverage phase, so
 * it draws 2; the fresh seed is where new failures are found, run after run, so it draws 4. Every run still tests
 * every operation its key reaches (checked below: `Tested` equals the reachable operations).
 */
interface FuzzRun {
  name: string;
  keyKind: KeyKind;
  environment: 'test' | 'live';
  seed: 'fixed' | 'fresh';
  phases: Array<'coverage' | 'fuzzing'>;
  maxExamples: number;
}
const RUNS: FuzzRun[] = [
  { name: 'test key', keyKind: 'standard', environment: 'test', seed: 'fixed', phases: ['coverage', 'fuzzing'], maxExamples: 2 },
  { name: 'live key', keyKind: 'standard', environment: 'live', seed: 'fixed', phases: ['fuzzing'], maxExamples: 2 },
  { name: 'service key', keyKind: 'service', environment: 'test', seed: 'fixed', phases: ['coverage', 'fuzzing'], maxExamples: 2 },
  { name: 'test key', keyKind: 'standard', environment: 'test', seed: 'fresh', phases: ['fuzzing'], maxExamples: 4 },
  { name: 'live key', keyKind: 'standard', environment: 'live', seed: 'fresh', phases: ['fuzzing'], maxExamples: 4 },
  { name: 'service key', keyKind: 'service', environment: 'test', seed: 'fresh', phases: ['fuzzing'], maxExamples: 4 },
];

describe('schema fuzzing of the served OpenAPI document (schemathesis)', () => {
  const { h, tenant, receiver } = useSuite({ worker: true, receiver: true, tenant: 'file' });
  let executable: string;
  let document: Parameters<typeof fuzzConfig>[0]['document'];
  const fixtures = {} as Record<'test' | 'live', EnvFixtures>;
  let disposableLineIds: string[];
  const disposableContactListIds = {} as Record<'test' | 'live', string[]>;

  beforeAll(async () => {
    // Installs schemathesis into the tool cache on first use (about 20 s); found there afterwards.
    executable = ensureSchemathesis(loadConfig().toolCacheDir, (line) => process.stderr.write(`[setup] ${line}\n`));
    // Lines send their events to a receiver that answers 200: no retries piling up on the worker.
    [fixtures.test, fixtures.live] = await Promise.all([
      makeEnvFixtures(h, tenant, 'test', { spareLines: 2, webhookUrl: receiver.url }),
      makeEnvFixtures(h, tenant, 'live', { webhookUrl: receiver.url }),
    ]);
    disposableLineIds = fixtures.test.spareLineIds.slice(1);
    // Lists each environment's runs may delete (the fixture's own stays for the reads).
    for (const environment of ['test', 'live'] as const) {
      disposableContactListIds[environment] = [];
      for (let i = 0; i < 3; i++) disposableContactListIds[environment].push(await uploadFixtureContactList(h, fixtures[environment].key));
    }
    document = YAML.parse((await h.request('GET', '/api/openapi.yaml')).text);
    process.stdout.write(
      `[schemathesis] seeds: fixed ${FIXED_SEED}, fresh ${FRESH_SEED} (replay the fresh one with SCHEMA_FUZZ_SEED=${FRESH_SEED})\n`,
    );
  }, 300_000);

  for (const run of RUNS) {
    const seed = run.seed === 'fixed' ? FIXED_SEED : FRESH_SEED;
    it(`${run.name}: no 5xx, every response as documented, 405 for unknown methods, schema-valid requests accepted unless state refuses them (${run.seed} seed ${seed}, ${run.phases.join(' and ')})`, async () => {
      const envFixtures = fixtures[run.environment];
      const reachable = operationsOf(document).filter(({ operation }) => {
        const kind = operationKeyKind(operation);
        return kind === run.keyKind || (kind === 'public' && run.keyKind === 'standard');
      });
      await clearRateLimits(h.db, [tenant.workspaceId]);
      const result = await runSchemathesis({
        executable,
        apiUrl: h.apiUrl,
        key: run.keyKind === 'service' ? envFixtures.serviceKey : envFixtures.key,
        seed,
        config: fuzzConfig({
          document,
          keyKind: run.keyKind,
          fixtures: envFixtures,
          disposableLineIds: run.environment === 'test' ? disposableLineIds : [],
          disposableContactListIds: disposableContactListIds[run.environment],
          maxExamples: run.maxExamples,
        }),
        phases: run.phases,
        workers: 1,
      });
      const tested = Number(/Tested: (\d+)/.exec(result.output)?.[1] ?? 0);
      const generated = Number(/(\d+) generated/.exec(result.output)?.[1] ?? 0);
      process.stdout.write(
        `[schemathesis] ${run.name}, ${run.seed} seed ${seed}, ${run.phases.join('+')}: ${tested} operations, ${generated} requests, ${(result.durationMs / 1000).toFixed(1)} s, exit ${result.exitCode}\n`,
      );
      if (result.exitCode !== 0 || tested !== reachable.length || generated === 0) {
        throw new Error(
          `schemathesis (${FUZZ_CHECKS.join(', ')}) failed for the ${run.name} with ${run.seed} seed ${seed}: exit ${result.exitCode}, ` +
            `${tested} of ${reachable.length} operations tested, ${generated} requests.\n` +
            `Replay: ${run.seed === 'fresh' ? `SCHEMA_FUZZ_SEED=${seed} ` : ''}npx jest --runInBand test/integration/schemaFuzz.test.ts ` +
            `(fixture ids differ per run; each failure below has its exact request as curl). The command of this run, against its server:\n  ${result.command}\n\n` +
            failureReport(result.output),
        );
      }
      fs.rmSync(result.dir, { recursive: true, force: true });
    }, 600_000);
  }
});
