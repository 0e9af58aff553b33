import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildProduction, type BuildResult } from '../../dev/build';
import { generateSecretsKey } from '../../src/platform/crypto/secretBox';
import { projectRoot } from '../../src/platform/config';
import { LOOPBACK_NETWORKS } from '../../src/platform/net/egress';
import { BUILD_DIR_ENV } from './buildDir';

type SetupGlobals = { __switchboardBuild?: Promise<BuildResult> };

export { BUILD_DIR_ENV } from './buildDir';

/**
 * The production build (`npm run build`, dev/build.ts), made once per `npm test` into a temporary directory beside a
 * link to node_modules (the image's layout: /app/dist next to /app/node_modules). Its workflow bundle is the one every
 * test worker loads (jest never transforms workflow code), so the suites and the replayed histories run the bundle that
 * ships; test/integration/productionBuild.test.ts runs its entry points. The global setups of both projects that need
 * it run in jest's one main process and share it through globalThis.
 */
export function productionBuild(): Promise<BuildResult> {
  const globals = globalThis as SetupGlobals;
  globals.__switchboardBuild ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-build-'));
    fs.symlinkSync(path.join(projectRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    return buildProduction({ outDir: path.join(dir, 'dist'), logger: silentLogger() });
  })();
  return globals.__switchboardBuild;
}

/** Removes the build (globalTeardown; the second project's teardown finds it gone). */
export async function removeProductionBuild(): Promise<void> {
  const globals = globalThis as SetupGlobals;
  const build = globals.__switchboardBuild;
  globals.__switchboardBuild = undefined;
  if (build) fs.rmSync(path.dirname((await build).outDir), { recursive: true, force: true });
}

/** What every test file of a run shares through the environment, besides the servers' addresses. */
export function setRunEnvironment(build: BuildResult): void {
  process.env[BUILD_DIR_ENV] = build.outDir;
  process.env.WORKFLOW_BUNDLE_PATH = build.bundlePath;
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.SECRETS_KEY = process.env.SECRETS_KEY ?? generateSecretsKey();
  // Every test client and worker encrypts payloads, as a deployment does (a key of this run: the format is SECRETS_KEY's).
  process.env.TEMPORAL_PAYLOAD_KEY = process.env.TEMPORAL_PAYLOAD_KEY ?? generateSecretsKey();
  // Tests' receivers listen on 127.0.0.1; attacker tests turn the allow-list off per harness.
  process.env.OUTBOUND_ALLOWED_NETWORKS = process.env.OUTBOUND_ALLOWED_NETWORKS ?? LOOPBACK_NETWORKS.join(',');
}

function silentLogger() {
  const noop = () => undefined;
  return { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
}
