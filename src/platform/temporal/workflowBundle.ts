import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, Runtime, type BundleOptions, type Logger } from '@temporalio/worker';
import { RUNS_FROM_BUILD, WORKFLOW_BUNDLE_FILE } from '../buildLayout';
import { FAILURE_CONVERTER_PATH } from '../codecs/failureConverter';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../tracing/temporal';

/**
 * The one home of how Switchboard's workflow code is bundled: `npm run build` (dev/build.ts) writes the bundle ahead
 * of time with these options, the worker bundles with them on the fly in development, and the tests' global setup
 * uses the build's bundle. A bundle made with other options would run other code than production does (no tracing
 * interceptors, failures' messages in clear).
 */

/**
 * The workflows with the tracing interceptors and the failure converter every client and worker uses (dataConverterWith).
 * `workflowsPath` is for tests only (a broken workflow must fail the build).
 */
export function workflowBundleOptions(workflowsPath = require.resolve('../../../workflows')): BundleOptions {
  return {
    workflowsPath,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}

/**
 * Bundles the workflow code now (webpack: seconds of CPU); a broken bundle (a disallowed import, a syntax error) throws.
 * It logs to `logger`, by default the Temporal runtime's, as a worker bundling on its own does.
 */
export async function bundleWorkflows(logger: Logger = Runtime.instance().logger, workflowsPath?: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ ...workflowBundleOptions(workflowsPath), logger });
  return code;
}

/**
 * Where this process's workflow code comes from (docs/decisions/operations.md, "Production build"):
 * - `WORKFLOW_BUNDLE_PATH` when set (the image sets it; so do the tests);
 * - else, running from the build (compiled JavaScript), the bundle the build wrote beside it;
 * - else, running from the TypeScript sources (tsx, development), the sources, bundled at start.
 * A build without its bundle is a broken build: it refuses rather than bundle in production.
 */
export type WorkflowCodeSource = { kind: 'prebuilt'; path: string } | { kind: 'sources' };

export function workflowCodeSource(env: NodeJS.ProcessEnv = process.env): WorkflowCodeSource {
  if (env.WORKFLOW_BUNDLE_PATH) return { kind: 'prebuilt', path: path.resolve(env.WORKFLOW_BUNDLE_PATH) };
  if (!RUNS_FROM_BUILD) return { kind: 'sources' };
  // At the root of the build this module was compiled into (dist/src/platform/temporal/ → dist/).
  const beside = path.resolve(__dirname, '../../..', WORKFLOW_BUNDLE_FILE);
  if (!fs.existsSync(beside))
    throw new Error(`the build has no workflow bundle at ${beside}: run \`npm run build\` (or set WORKFLOW_BUNDLE_PATH)`);
  return { kind: 'prebuilt', path: beside };
}

/** The bundle code to give a worker: the prebuilt file, or the sources bundled now with the shared options. */
export async function workflowBundleOf(source: WorkflowCodeSource, logger?: Logger): Promise<{ codePath: string } | { code: string }> {
  return source.kind === 'prebuilt' ? { codePath: source.path } : { code: await bundleWorkflows(logger) };
}
