import { Client, ServiceError, type WorkflowClientInterceptor } from '@temporalio/client';

/** gRPC status codes, as Temporal's client reports them. */
export const GRPC = { DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14 } as const;

/** An error shaped like the one Temporal's client throws for a failed RPC (a ServiceError around the gRPC error). */
export function grpcFailure(code: number, what: string): ServiceError {
  const name = Object.entries(GRPC).find(([, value]) => value === code)?.[0] ?? String(code);
  const cause = Object.assign(new Error(`${code} ${name}: injected by the test`), { code, details: 'injected by the test', metadata: {} });
  return new ServiceError(`Failed to ${what}`, { cause });
}

/**
 * Failures injected into the API's Temporal client (see `HarnessOptions.apiTemporal`), to see what
 * the API does when Temporal misbehaves: starts whose answer is lost after the server accepted
 * them, starts that never reach it, and overloaded updates and signals.
 */
export class TemporalFaults {
  /** Workflow type → how its next starts go (then `afterwards`). */
  private readonly starts = new Map<string, { next: Array<'lose_answer' | 'unreachable'>; afterwards: 'pass' | 'unreachable' }>();
  private describesFail = false;
  private heldStarts: { workflowType: string; release: Promise<void>; reached: () => void } | undefined;
  private updateFailures: number[] = [];
  private signalFailures: number[] = [];

  /** The next start of `workflowType` reaches the server, which starts it; its answer is then lost. Later starts, `then`. */
  loseStartAnswer(workflowType: string, then: 'pass' | 'unreachable' = 'pass'): void {
    this.starts.set(workflowType, { next: ['lose_answer'], afterwards: then });
  }

  /** Every start of `workflowType` fails before reaching the server, until `reset()`. */
  failStarts(workflowType: string): void {
    this.starts.set(workflowType, { next: [], afterwards: 'unreachable' });
  }

  /**
   * The next start of `workflowType` waits before it reaches the server, as a process that stalls
   * (or dies) between recording the work and starting its workflow. Resolves when a start is held;
   * call `release` to let it through.
   */
  holdNextStart(workflowType: string): { held: Promise<void>; release: () => void } {
    let release!: () => void;
    let reached!: () => void;
    const held = new Promise<void>((resolve) => (reached = resolve));
    this.heldStarts = { workflowType, release: new Promise<void>((resolve) => (release = resolve)), reached };
    return { held, release };
  }

  /** `describe()` cannot reach the server either, until `reset()`. */
  failDescribes(): void {
    this.describesFail = true;
  }

  /** The next updates (speak, wait, press) fail with these gRPC codes, one each. */
  failUpdates(...codes: number[]): void {
    this.updateFailures = codes;
  }

  /** The next signals (hang-up) fail with these gRPC codes, one each. */
  failSignals(...codes: number[]): void {
    this.signalFailures = codes;
  }

  reset(): void {
    this.starts.clear();
    this.describesFail = false;
    this.heldStarts = undefined;
    this.updateFailures = [];
    this.signalFailures = [];
  }

  readonly interceptor: WorkflowClientInterceptor = {
    startWithDetails: async (input, next) => {
      const plan = this.starts.get(input.workflowType);
      const held = this.heldStarts;
      if (held?.workflowType === input.workflowType) {
        this.heldStarts = undefined;
        held.reached();
        await held.release;
      }
      const fault = plan ? (plan.next.shift() ?? plan.afterwards) : 'pass';
      if (fault === 'unreachable') throw grpcFailure(GRPC.UNAVAILABLE, 'start workflow');
      if (fault === 'lose_answer') {
        await next(input);
        throw grpcFailure(GRPC.DEADLINE_EXCEEDED, 'start workflow');
      }
      return next(input);
    },
    describe: async (input, next) => {
      if (this.describesFail) throw grpcFailure(GRPC.UNAVAILABLE, 'describe workflow');
      return next(input);
    },
    startUpdate: async (input, next) => {
      const code = this.updateFailures.shift();
      if (code !== undefined) throw grpcFailure(code, 'update workflow');
      return next(input);
    },
    signal: async (input, next) => {
      const code = this.signalFailures.shift();
      if (code !== undefined) throw grpcFailure(code, 'signal workflow');
      return next(input);
    },
  };

  /** A client on the same connection whose calls go through these faults. */
  wrap(client: Client): Client {
    return new Client({
      connection: client.connection,
      namespace: client.options.namespace,
      dataConverter: client.options.dataConverter,
      interceptors: { workflow: [this.interceptor] },
    });
  }
}
