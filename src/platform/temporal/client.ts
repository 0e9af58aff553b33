import { Client, Connection } from '@temporalio/client';
import { tracingClientInterceptors } from '../tracing/temporal';

/** Starts, signals and updates carry the caller's trace context when this process traces. */
export async function connectTemporalClient(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace, interceptors: { workflow: tracingClientInterceptors() } });
}
