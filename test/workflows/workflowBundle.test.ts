import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger } from '@temporalio/worker';
import { writeWorkflowBundle } from '../../dev/build';
import { WORKFLOW_BUNDLE_FILE } from '../../src/platform/buildLayout';

/**
 * A broken workflow bundle fails the build (`npm run build`, hence the image build) instead of a worker in production:
 * the build's bundling step rejects and writes no bundle. The build of the real workflows is the global setup's.
 */
describe('the production build: the workflow bundle', () => {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-broken-bundle-'));
  afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

  it('rejects workflow code that cannot be bundled, and writes nothing', async () => {
    const broken = require.resolve('../support/workflows/brokenImport');
    const logged: string[] = [];
    const logger = new DefaultLogger('WARN', (entry) => void logged.push(entry.message));
    await expect(writeWorkflowBundle(outDir, logger, broken)).rejects.toThrow(/Webpack finished with errors/);
    // The build's log says why: the import workflow code may not make.
    expect(logged.join('\n')).toMatch(/\bfs\b/);
    expect(fs.existsSync(path.join(outDir, WORKFLOW_BUNDLE_FILE))).toBe(false);
  });
});
