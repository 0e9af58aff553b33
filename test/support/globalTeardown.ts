import type { EphemeralStack } from '../../dev/infra/stack';
import { removeProductionBuild } from './workflowBundle';

export default async function globalTeardown(): Promise<void> {
  const globals = globalThis as { __switchboardStack?: EphemeralStack };
  await globals.__switchboardStack?.stop();
  globals.__switchboardStack = undefined;
  await removeProductionBuild();
}
