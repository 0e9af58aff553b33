import { CancelledFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/**
 * When a draining worker's grace runs out, Temporal cancels the activities still running with
 * `WORKER_SHUTDOWN`. Those that watch their cancellation signal (the audio relay, hosted turns)
 * stop; for the others (a carrier or processor call in flight) the worker stops waiting: the
 * attempt is reported failed, the server retries it on another worker at once, and the worker
 * finishes its drain and exits 0. The abandoned call ends with the process moments later; every
 * activity is idempotent, as any attempt Temporal may retry must be.
 *
 * Local activities are never abandoned: no server retries them, and their result belongs to the workflow task this
 * worker is completing. A webhook-mode caller turn (`takeMessageTurn`, one attempt) abandoned mid-POST at the grace's end
 * would be lost, its reply never spoken (a replay elsewhere finds its claim taken and makes none). They are short, bound
 * by their own timeouts, and the drain's forced exit (grace plus a margin) bounds the wait for one that is not.
 */
export const abandonOnWorkerShutdown: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute: (input, next) => {
      if (ctx.info.isLocal) return next(input);
      const signal = ctx.cancellationSignal;
      const abandoned = new Promise<never>((_, reject) => {
        signal.addEventListener(
          'abort',
          () => {
            if (signal.reason instanceof CancelledFailure && signal.reason.message === 'WORKER_SHUTDOWN') reject(signal.reason);
          },
          { once: true },
        );
      });
      return Promise.race([next(input), abandoned]);
    },
  },
});
