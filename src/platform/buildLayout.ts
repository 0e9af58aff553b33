/**
 * The layout of the production build (`npm run build`, dev/build.ts; docs/decisions/operations.md, "Production build"),
 * one home for what the build writes, the worker looks for, the Dockerfile and docker-compose.yml run and the tests check.
 * `dist/` mirrors the source tree: `api/x.ts` is `dist/api/x.js`.
 */

import path from 'node:path';

/** This process runs the build's compiled JavaScript (dist/…/*.js), not the TypeScript sources under tsx. */
export const RUNS_FROM_BUILD = path.extname(__filename) === '.js';

/** The folders whose code runs in production: compiled, with their other files (assets, JSON data) copied beside. */
export const SHIPPED_FOLDERS = ['api', 'activities', 'workflows', 'src', 'simulator', 'sdk'] as const;

/** The build's folder in a checkout and in the image (/app/dist). */
export const BUILD_DIR = 'dist';

/**
 * The node flags a role's process runs with, before its entry point:
 * `node --max-semi-space-size=32 --no-allocation-site-pretenuring dist/src/main/api.js`. The API's young generation
 * (docs/decisions/operations.md, "The API's young generation"): each request allocates tens of kilobytes that die
 * young; a larger new space scavenges less often, and without pretenuring a burst of long-lived objects (a start-up,
 * a batch of inserts) cannot make V8 allocate every later request's objects in the old generation. One home for the
 * Dockerfile's CMD, docker-compose.yml, the Helm chart, `npm run up` and `bench:api`; their tests hold them to it.
 */
export const NODE_FLAGS = {
  api: ['--max-semi-space-size=32', '--no-allocation-site-pretenuring'],
  worker: [],
  mcp: [],
  cli: [],
  simulator: [],
} as const satisfies Record<string, readonly string[]>;

/** The entry points, from the build's root: `node dist/src/main/api.js`. */
export const BUILD_ENTRY_POINTS = {
  api: 'src/main/api.js',
  worker: 'src/main/worker.js',
  mcp: 'src/main/mcp.js',
  cli: 'src/main/cli.js',
  simulator: 'simulator/main.js',
} as const;

/**
 * The environment variable naming a production build's root for the processes a dev tool starts: the test suite's
 * global setup sets it to the run's build (test/support/buildDir.ts), and `up --cluster` then starts its simulator,
 * workers and APIs from that build, as the image runs them, instead of from the sources under tsx.
 */
export const BUILD_DIR_ENV = 'SWITCHBOARD_BUILD_DIR';

/** The prebuilt workflow bundle's file name, at the build's root: `dist/workflow-bundle.js`. */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';
