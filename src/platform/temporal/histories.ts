import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { ReplayWorkerOptions } from '@temporalio/worker';
import { decodeHistoryPayloads, withReadableValues } from './historyPayloads';

/**
 * Exporting a workflow's Temporal history, and replaying one against the current workflow
 * code: the compliance trail of what a call did, and the check that a code change does not
 * break a workflow already running. The JSON is the `History` message as `JSON.stringify`
 * writes it (the format of test/histories/), which `History.fromObject` reads back exactly.
 *
 * The server keeps payloads encrypted (src/platform/codecs/payloadEncryption.ts); an export is
 * decrypted with the deployment's codec, so a compliance team reads it without keys, and a replay
 * takes either form (the codec passes unencrypted payloads through).
 */

/**
 * What a replay needs (the Temporal worker, the workflow bundler, the tracing sinks), loaded on the first replay: the
 * API exports histories on every call's page but never replays one, and loading these cost it about 0.1 s at start.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, as said above */
const replayModules = () => ({
  worker: require('@temporalio/worker') as typeof import('@temporalio/worker'),
  workflow: require('@temporalio/workflow') as typeof import('@temporalio/workflow'),
  bundle: require('./workflowBundle') as typeof import('./workflowBundle'),
  tracing: require('../tracing/temporal') as typeof import('../tracing/temporal'),
});
/* eslint-enable @typescript-eslint/no-require-imports */

export interface ExportedHistory {
  workflowId: string;
  runId?: string;
  history: { events: unknown[] };
}

/**
 * The latest run's full history of `workflowId`, its payloads decrypted with the client's codecs and
 * each JSON payload's value shown beside its bytes (`withReadableValues`); throws
 * `WorkflowNotFoundError` if there is none.
 */
export async function exportHistory(client: Client, workflowId: string): Promise<ExportedHistory> {
  const { runId } = await client.workflow.getHandle(workflowId).describe();
  // Pinned to the run described, so a run starting in between cannot mix into the export.
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const codecs = client.options.loadedDataConverter.payloadCodecs;
  const decoded = await decodeHistoryPayloads(temporal.api.history.v1.History.create(history), codecs);
  return { workflowId, runId, history: withReadableValues(JSON.parse(JSON.stringify(decoded))) as { events: unknown[] } };
}

/** The input is not a workflow history (nothing to replay). */
export class InvalidHistoryError extends Error {}

/** A prebuilt bundle's path; without one, the sources are bundled as the worker bundles them (workflowBundle.ts). */
export interface WorkflowSource {
  workflowBundlePath?: string;
}

export type ReplayOutcome =
  { ok: true; workflowType: string } | { ok: false; workflowType: string; error: string; nondeterminism: boolean };

/** Where the current workflow code comes from, as for the worker: a prebuilt bundle (`WORKFLOW_BUNDLE_PATH`, the build's) or the sources. */
export function defaultWorkflowSource(): WorkflowSource {
  const source = replayModules().bundle.workflowCodeSource();
  return source.kind === 'prebuilt' ? { workflowBundlePath: source.path } : {};
}

/**
 * Replays a history (parsed JSON, as `exportHistory` writes it) against the current workflow
 * code. A replay that diverges from the history is `ok: false` with `nondeterminism: true`;
 * any other replay failure is `ok: false` with `nondeterminism: false`. Input that is not a
 * history at all throws `InvalidHistoryError`. With `codec`, encrypted payloads are decrypted as a
 * worker does (unencrypted ones pass through); without it, only a decoded history replays.
 */
export async function replayHistoryFile(
  json: unknown,
  source: WorkflowSource = defaultWorkflowSource(),
  codec?: PayloadCodec,
): Promise<ReplayOutcome> {
  const history = parseHistory(json);
  const { worker, workflow, bundle, tracing } = replayModules();
  const workflowType = history.events[0].workflowExecutionStartedEventAttributes!.workflowType!.name!;
  // The codec only: a replay writes nothing, and a failure it reports stays readable (no encoded attributes).
  const dataConverter = codec ? { dataConverter: { payloadCodecs: [codec] } } : {};
  // Sources bundled here are bundled as every deployed bundle is (tracing interceptors, failure converter).
  const options: ReplayWorkerOptions = {
    workflowBundle: source.workflowBundlePath ? { codePath: source.workflowBundlePath } : { code: await bundle.bundleWorkflows() },
    sinks: tracing.tracingSinks(),
    ...dataConverter,
  };
  try {
    await worker.Worker.runReplayHistory(options, history, `replay:${workflowType}`);
    return { ok: true, workflowType };
  } catch (err) {
    return {
      ok: false,
      workflowType,
      error: (err as Error).message ?? String(err),
      nondeterminism: err instanceof workflow.DeterminismViolationError,
    };
  }
}

function parseHistory(json: unknown): temporal.api.history.v1.History {
  const events = (json as { events?: unknown } | null)?.events;
  if (typeof json !== 'object' || json === null || !Array.isArray(events) || events.length === 0) {
    throw new InvalidHistoryError('not a workflow history: expected a JSON object with a non-empty "events" array');
  }
  let history: temporal.api.history.v1.History;
  try {
    history = temporal.api.history.v1.History.fromObject(json);
  } catch (err) {
    throw new InvalidHistoryError(`not a workflow history: ${(err as Error).message}`);
  }
  const first = history.events[0];
  if (
    first.eventType !== temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED ||
    !first.workflowExecutionStartedEventAttributes?.workflowType?.name
  ) {
    throw new InvalidHistoryError('not a workflow history: the first event must be WorkflowExecutionStarted with a workflow type');
  }
  return history;
}
