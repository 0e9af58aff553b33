import fs from 'node:fs';

/**
 * A workflow that cannot be bundled: workflow code may not import Node's modules (the sandbox has none). The build
 * must fail on it (test/workflows/workflowBundle.test.ts).
 */
export async function brokenWorkflow(): Promise<number> {
  return fs.readdirSync('.').length;
}
