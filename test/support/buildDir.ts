import { BUILD_DIR_ENV } from '../../src/platform/buildLayout';

/**
 * Where the run's production build is (its root: `src/main/api.js`, `workflow-bundle.js`), for the tests that run it:
 * set by the global setup (test/support/workflowBundle.ts). A module of its own, so that reading it loads no build tooling.
 */
export { BUILD_DIR_ENV };

/** The run's production build, when the global setup made one. */
export function runBuildDir(): string | undefined {
  return process.env[BUILD_DIR_ENV] || undefined;
}
