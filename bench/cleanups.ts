/**
 * The benchmarks' teardown: steps registered as things start, run in reverse order at the end
 * (or on Ctrl-C), each failure reported without stopping the rest.
 */
export function createCleanups(): { push(step: () => Promise<void>): void; run(): Promise<void> } {
  const steps: Array<() => Promise<void>> = [];
  const run = async () => {
    for (const step of steps.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        console.error(`[bench] cleanup failed: ${(err as Error).message}`);
      }
    }
  };
  process.once('SIGINT', () => void run().finally(() => process.exit(130)));
  return { push: (step) => void steps.push(step), run };
}
