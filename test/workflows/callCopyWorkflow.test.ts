import crypto from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { RecordingActivities } from '../../activities/recordings';
import type { CallObjectKind } from '../../src/domain/recordings/rules';
import { FailureTypes } from '../../workflows/definitions/failures';
import { callCopyWantedSignal, type CallCopyWorkflow } from '../../workflows/definitions/recordings';
import { testDataConverter } from '../support/payloadCodec';

/**
 * The durable copy's workflow alone (workflows/recordings.ts), with fake activities: the race of a late recording
 * arriving while a run is copying (a signal the run must not miss), and a final refusal that does not stop the rest.
 */
describe('callCopyWorkflow with fake activities', () => {
  const taskQueue = `copy-${crypto.randomUUID()}`;
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  /** Per call: what `pendingCallCopies` answers next (one list per look), and what a copy does. */
  const scripts = new Map<
    string,
    { looks: CallObjectKind[][]; copied: CallObjectKind[]; onCopy?: (kind: CallObjectKind) => Promise<void> }
  >();

  type Fakes = Pick<RecordingActivities, 'pendingCallCopies' | 'copyCallObject'>;
  const fakes: Fakes = {
    async pendingCallCopies(callId) {
      return scripts.get(callId)!.looks.shift() ?? [];
    },
    async copyCallObject({ callId, kind }) {
      const script = scripts.get(callId)!;
      await script.onCopy?.(kind);
      if (kind === 'events') throw ApplicationFailure.nonRetryable('the carrier has no such thing', FailureTypes.carrierRejected);
      script.copied.push(kind);
      return { kind, stored: true, name: `${kind}.bin`, size: 1, sha256: '0'.repeat(64) };
    },
  };

  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
      client: { dataConverter: testDataConverter() },
    });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      activities: fakes,
      dataConverter: testDataConverter(),
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  it('a recording reported while the copy is running is copied by that run before it ends', async () => {
    const callId = crypto.randomUUID();
    const workflowId = `call-copy:${callId}`;
    // First look: the transcript; while it is being copied, a late recording arrives (the callback's signalWithStart).
    scripts.set(callId, {
      looks: [['transcript'], ['recording']],
      copied: [],
      onCopy: async (kind) => {
        if (kind === 'transcript') await env.client.workflow.getHandle(workflowId).signal(callCopyWantedSignal);
      },
    });
    const result = await env.client.workflow.execute<CallCopyWorkflow>('callCopyWorkflow', { taskQueue, workflowId, args: [{ callId }] });
    expect(scripts.get(callId)!.copied).toEqual(['transcript', 'recording']);
    expect(result.stored.map((object) => object.kind)).toEqual(['transcript', 'recording']);
  });

  it('without a signal it looks once; a final refusal is reported and the other kinds are still copied', async () => {
    const callId = crypto.randomUUID();
    // A second look would find the recording: a run nobody told of more must not take it (the next start will).
    scripts.set(callId, { looks: [['events', 'transcript'], ['recording']], copied: [] });
    const result = await env.client.workflow.execute<CallCopyWorkflow>('callCopyWorkflow', {
      taskQueue,
      workflowId: `call-copy:${callId}`,
      args: [{ callId }],
    });
    expect(result.stored.map((object) => object.kind)).toEqual(['transcript']);
    expect(result.failed).toEqual([{ kind: 'events', error: 'the carrier has no such thing' }]);
  });
});
