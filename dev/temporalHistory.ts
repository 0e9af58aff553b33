import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { decodeHistoryPayloads } from '../src/platform/temporal/historyPayloads';

/**
 * A workflow's history (its latest run's, or `runId`'s) with its payloads decrypted by the client's codec (as
 * `history export` reads it): what a test or bench inspects of a workflow's inputs and signals. The server's own
 * copy is encrypted.
 */
export async function decryptedHistory(client: Client, workflowId: string, runId?: string): Promise<temporal.api.history.v1.History> {
  const history = temporal.api.history.v1.History.create(await client.workflow.getHandle(workflowId, runId).fetchHistory());
  return decodeHistoryPayloads(history, client.options.loadedDataConverter.payloadCodecs);
}
