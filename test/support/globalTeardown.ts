import fs from 'node:fs';
import path from 'node:path';
import type { EphemeralStack } from '../../dev/infra/stack';

export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as { __switchboardStack?: EphemeralStack }).__switchboardStack;
  await stack?.stop();
  const bundle = process.env.WORKFLOW_BUNDLE_PATH;
  if (bundle) fs.rmSync(path.dirname(bundle), { recursive: true, force: true });
}
