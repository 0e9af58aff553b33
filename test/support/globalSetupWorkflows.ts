import { loadConfig } from '../../src/platform/config';
import { ensureTemporalTestServer } from '../../dev/infra/temporal';
import { productionBuild, setRunEnvironment } from './workflowBundle';

/**
 * The workflows project (`npm run test:workflows`): history replay and time-skipping suites need the workflow bundle
 * (the production build's: replay.test.ts replays the recorded histories against what ships) and Temporal's time-skipping test server (a binary from the tool cache), no Postgres and no Temporal server.
 */
export default async function globalSetupWorkflows(): Promise<void> {
  setRunEnvironment(await productionBuild());
  process.env.TEMPORAL_TEST_SERVER_PATH ??= ensureTemporalTestServer(loadConfig().toolCacheDir, (line) =>
    process.stderr.write(`[workflows] ${line}\n`),
  );
}
