import fs from 'node:fs';
import path from 'node:path';
import { build as esbuild } from 'esbuild';
import { DefaultLogger, type Logger } from '@temporalio/worker';
import { projectRoot } from '../src/platform/config';
import { BUILD_DIR, SHIPPED_FOLDERS, WORKFLOW_BUNDLE_FILE } from '../src/platform/buildLayout';
import { bundleWorkflows } from '../src/platform/temporal/workflowBundle';

/**
 * `npm run build`: the production build (docs/decisions/operations.md, "Production build"). Into `dist/` (git-, lint- and
 * docker-ignored), mirroring the source tree:
 * - every TypeScript file of the folders that ship, compiled file by file to CommonJS by esbuild (no bundling, no type
 *   check: `npm run typecheck` is the check). Whole folders rather than the entry points' imports, so that what is
 *   reached only by `require.resolve` (the workflow interceptors) or a lazy `require` is there too;
 * - every other file of those folders copied beside them (the portal's and the reference's assets, the calling
 *   zones' JSON), as the compiled code reads them from its own directory;
 * - the workflow bundle, built now with the worker's options (src/platform/temporal/workflowBundle.ts), at
 *   `dist/workflow-bundle.js`: a broken bundle fails the build.
 * The layout (folders, entry points, the bundle's name) is src/platform/buildLayout.ts. The image runs
 * `node dist/src/main/<role>.js` (Dockerfile); dev/, test/ and bench/ stay TypeScript under tsx.
 */

export const DEFAULT_OUT_DIR = path.join(projectRoot, BUILD_DIR);

export interface BuildResult {
  outDir: string;
  bundlePath: string;
  /** Wall time of each step, for the log and docs/performance.md. */
  compileMs: number;
  bundleMs: number;
}

/** Compiles and bundles into `outDir` (emptied first). */
export async function buildProduction(
  options: { outDir?: string; logger?: Logger; log?: (line: string) => void } = {},
): Promise<BuildResult> {
  const outDir = path.resolve(options.outDir ?? DEFAULT_OUT_DIR);
  const log = options.log ?? (() => undefined);
  fs.rmSync(outDir, { recursive: true, force: true });
  const compileStarted = Date.now();
  const { compiled, copied } = await compileSources(outDir);
  const compileMs = Date.now() - compileStarted;
  log(`compiled ${compiled} TypeScript files and copied ${copied} other files into ${outDir} (${compileMs} ms)`);
  const bundleStarted = Date.now();
  const bundlePath = await writeWorkflowBundle(outDir, options.logger);
  const bundleMs = Date.now() - bundleStarted;
  log(`wrote the workflow bundle ${bundlePath} (${(fs.statSync(bundlePath).size / 1e6).toFixed(1)} MB, ${bundleMs} ms)`);
  return { outDir, bundlePath, compileMs, bundleMs };
}

/** The shipped folders' TypeScript compiled into `outDir`, their other files copied. */
export async function compileSources(outDir: string): Promise<{ compiled: number; copied: number }> {
  const typescript: string[] = [];
  const others: string[] = [];
  for (const folder of SHIPPED_FOLDERS) {
    for (const file of filesUnder(path.join(projectRoot, folder))) {
      if (file.endsWith('.d.ts')) continue; // types only
      (file.endsWith('.ts') ? typescript : others).push(file);
    }
  }
  await esbuild({
    entryPoints: typescript,
    outdir: outDir,
    outbase: projectRoot,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    tsconfig: path.join(projectRoot, 'tsconfig.json'),
    logLevel: 'warning',
  });
  for (const file of others) {
    const target = path.join(outDir, path.relative(projectRoot, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
  return { compiled: typescript.length, copied: others.length };
}

/**
 * The workflow bundle at `outDir/workflow-bundle.js`; rejects (writing nothing) when bundling fails. `workflowsPath` is
 * for tests (test/workflows/workflowBundle.test.ts bundles a broken workflow).
 */
export async function writeWorkflowBundle(
  outDir: string,
  logger: Logger = new DefaultLogger('WARN'),
  workflowsPath?: string,
): Promise<string> {
  const code = await bundleWorkflows(logger, workflowsPath);
  const bundlePath = path.join(outDir, WORKFLOW_BUNDLE_FILE);
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(bundlePath, code);
  return bundlePath;
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

if (require.main === module) {
  const outArg = process.argv.indexOf('--out-dir');
  buildProduction({ outDir: outArg > 0 ? process.argv[outArg + 1] : undefined, log: (line) => console.log(`[build] ${line}`) }).catch(
    (err: unknown) => {
      console.error(`[build] failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
