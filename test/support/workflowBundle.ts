import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { generateSecretsKey } from '../../src/platform/crypto/secretBox';
import { FAILURE_CONVERTER_PATH } from '../../src/platform/codecs/failureConverter';
import { LOOPBACK_NETWORKS } from '../../src/platform/net/egress';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../src/platform/tracing/temporal';

type SetupGlobals = { __switchboardBundle?: Promise<string> };

/**
 * The workflow bundle every test worker loads (jest never transforms workflow code), built once per `npm test`:
 * the global setups of both projects that need it run in jest's one main process and share it through globalThis.
 */
export function workflowBundlePath(): Promise<string> {
  const globals = globalThis as SetupGlobals;
  globals.__switchboardBundle ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bundle-'));
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../workflows'),
      workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
      // As a worker bundling the sources does (dataConverterWith): failure messages travel encrypted.
      failureConverterPath: FAILURE_CONVERTER_PATH,
      logger: silentLogger(),
    });
    const bundlePath = path.join(dir, 'workflow-bundle.js');
    fs.writeFileSync(bundlePath, code);
    return bundlePath;
  })();
  return globals.__switchboardBundle;
}

/** Removes the bundle (globalTeardown; the second project's teardown finds it gone). */
export async function removeWorkflowBundle(): Promise<void> {
  const globals = globalThis as SetupGlobals;
  const bundle = globals.__switchboardBundle;
  globals.__switchboardBundle = undefined;
  if (bundle) fs.rmSync(path.dirname(await bundle), { recursive: true, force: true });
}

/** What every test file of a run shares through the environment, besides the servers' addresses. */
export function setRunEnvironment(bundlePath: string): void {
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
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
