import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger } from '@temporalio/worker';
import { buildProduction } from '../../dev/build';
import { startEphemeralStack, type EphemeralStack } from '../../dev/infra/stack';
import { projectRoot } from '../../src/platform/config';
import { generateSecretsKey } from '../../src/platform/crypto/secretBox';
import { LOOPBACK_NETWORKS } from '../../src/platform/net/egress';
import { bundleWorkflows } from '../../src/platform/temporal/workflowBundle';
import { onTemporalServer, type Cleanups } from './run';

/**
 * What a bench that runs the whole system in its process (test/support/harness.ts) needs before `startHarness`: an
 * ephemeral Postgres + Temporal, the workflow bundle built once, and the environment the harness reads.
 */
export interface HarnessStack {
  stack: EphemeralStack;
  /** A folder of the run's own (removed at cleanup): the bundle, and the logs of processes the bench starts. */
  dir: string;
  bundlePath: string;
  /**
   * BENCH_BUILD=1: the production build (`npm run build`, into `dir`) whose bundle this is; the API and worker
   * processes a bench starts (bench/calls/processes.ts) then run its JavaScript with plain node, as the image does.
   */
  buildDir?: string;
}

export async function startHarnessStack(name: string, cleanups: Cleanups): Promise<HarnessStack> {
  const stack = await startEphemeralStack({ name, temporalServer: onTemporalServer() });
  cleanups.push(() => stack.stop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-${name}-`));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  let buildDir: string | undefined;
  let bundlePath: string;
  if (process.env.BENCH_BUILD === '1') {
    // The image's layout: the build next to node_modules.
    fs.symlinkSync(path.join(projectRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    ({ outDir: buildDir, bundlePath } = await buildProduction({ outDir: path.join(dir, 'dist'), logger: new DefaultLogger('WARN') }));
  } else {
    bundlePath = path.join(dir, 'workflow-bundle.js');
    fs.writeFileSync(bundlePath, await bundleWorkflows(new DefaultLogger('WARN')));
  }
  process.env.DATABASE_URL = stack.databaseUrl;
  process.env.TEMPORAL_ADDRESS = stack.temporalAddress;
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
  process.env.SECRETS_KEY = process.env.SECRETS_KEY ?? generateSecretsKey();
  // Payloads encrypted as every deployment's are (a key of this run, unless set): the harness's client and worker need it.
  process.env.TEMPORAL_PAYLOAD_KEY = process.env.TEMPORAL_PAYLOAD_KEY ?? generateSecretsKey();
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  // The bench's receivers listen on loopback, which customer URLs may not reach unless allowed (as `up` and the tests do).
  process.env.OUTBOUND_ALLOWED_NETWORKS = process.env.OUTBOUND_ALLOWED_NETWORKS ?? LOOPBACK_NETWORKS.join(',');
  return { stack, dir, bundlePath, buildDir };
}
