import type { AsyncLocalStorage } from 'node:async_hooks';
import type { ConnectionLike } from '@temporalio/client';

/**
 * The Temporal client keeps a call's deadline, abort signal and metadata in an AsyncLocalStorage
 * (`Connection.callContextStorage`). On Node 20 a live AsyncLocalStorage turns on async_hooks for the
 * whole process: from then on every promise, socket, timer and HTTP request pays an init hook. The
 * client's storage stays live once used, and `Connection.connect` uses it for its first call, so every
 * process holding a client paid that on everything it did: about 30 % of the API's CPU per request
 * (docs/performance.md, issue 33, "GET"). Here it is live only while one of our calls needs it: switched
 * off after connecting, and after the last `withCallContext` in flight on the connection ends
 * (docs/decisions/api.md, "Temporal's call context is live only while a call uses it").
 */
const inFlight = new WeakMap<object, number>();

function storageOf(connection: ConnectionLike): AsyncLocalStorage<unknown> | undefined {
  return (connection as { callContextStorage?: AsyncLocalStorage<unknown> }).callContextStorage;
}

/** Switches the connection's call-context storage off when no call of ours uses it (one in flight keeps it on). */
export function releaseCallContext(connection: ConnectionLike): void {
  if ((inFlight.get(connection) ?? 0) === 0) storageOf(connection)?.disable();
}

/**
 * Runs `fn`, which sets a call context (`client.withAbortSignal`, `withDeadline`, `withMetadata`), and switches the
 * storage off again once no such call is in flight. Every use of a call context in this project goes through here.
 */
export async function withCallContext<T>(connection: ConnectionLike, fn: () => Promise<T>): Promise<T> {
  inFlight.set(connection, (inFlight.get(connection) ?? 0) + 1);
  try {
    return await fn();
  } finally {
    inFlight.set(connection, (inFlight.get(connection) ?? 1) - 1);
    releaseCallContext(connection);
  }
}
