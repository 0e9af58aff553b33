import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { workerRegistry } from '../../activities/metrics';
import { FilesystemRecordingStore } from '../../src/adapters/storage/filesystemStore';
import { StoredObjectNotFoundError, type RecordingStore, type StoredObjectRef } from '../../src/adapters/storage/port';
import { S3RecordingStore } from '../../src/adapters/storage/s3Store';
import { ensureAccount } from '../../src/domain/billing/ledger';
import type { CallRow } from '../../src/domain/calls/store';
import { recordingStorageOfCall } from '../../src/domain/recordings/copyState';
import { placeLegalHold, releaseLegalHold } from '../../src/domain/recordings/legalHolds';
import { serveCallRecording } from '../../src/domain/recordings/serve';
import type { Db } from '../../src/platform/db/knex';
import { createLogger } from '../../src/platform/logger';
import { EgressPolicy } from '../../src/platform/net/egress';
import type { RecordingsRetentionWorkflow } from '../../workflows/definitions/recordings';
import { completedCallRow } from '../support/callRows';
import { createTenant } from '../support/harness';
import { useS3Server } from '../support/s3Server';
import { timeSkippingWorker, useTimeSkippingEnv } from '../support/timeSkippingWorker';

/**
 * Issue 32, item 4's "Done when": the recordings retention on Temporal's time-skipping server, with real Postgres and
 * the filesystem store. Objects stored now are kept while they are younger than the environment's retention (1 day);
 * once a day of server time has passed, the retention workflow (what the daily schedule starts) deletes them from the
 * store and their rows, except a call on legal hold and a call whose callee's number is on hold; a released hold's call
 * goes on the next run. Each deletion is a compliance event by the schedule and counts in the metric; the deleted
 * recording is not served again (not even from the carrier). With each store: the filesystem's (`npm run up`'s default)
 * and an S3-compatible server's (moto's, checking signatures), where the call ends up.
 */
const s3 = useS3Server({ authenticate: true });
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-retention-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const STORES: Array<[string, () => RecordingStore]> = [
  ['the filesystem store', () => new FilesystemRecordingStore(root)],
  [
    'an S3-compatible store',
    () =>
      new S3RecordingStore({
        bucket: s3().bucket,
        endpoint: s3().endpoint,
        region: s3().region,
        forcePathStyle: true,
        serverSideEncryption: 'AES256',
        credentials: s3().credentials,
      }),
  ],
];

describe.each(STORES)('recordings retention on the time-skipping server, with %s', (_name, storeOf) => {
  const suite = useTimeSkippingEnv();
  let env: TestWorkflowEnvironment;
  let db: Db;
  let store: RecordingStore;
  beforeAll(() => {
    env = suite.env();
    db = suite.db();
    store = storeOf();
  });

  const number = () => `+1415555${String(crypto.randomInt(0, 10_000)).padStart(4, '0')}`;

  async function deletedCount(): Promise<number> {
    const metric = await workerRegistry.getSingleMetric('switchboard_recordings_deleted_total')?.get();
    return (metric?.values ?? []).reduce((sum, value) => sum + value.value, 0);
  }

  it('deletes objects older than the retention once its time has passed, except calls on legal hold; a released hold’s call goes next run', async () => {
    const { worker, taskQueue } = await timeSkippingWorker(env, { db, egress: new EgressPolicy(), recordingStore: store });
    const tenant = await createTenant(db);
    const environment = { workspaceId: tenant.workspaceId, environment: 'test' as const };
    await ensureAccount(db, environment);
    await db('billing_accounts')
      .where({ workspace_id: tenant.workspaceId, environment: 'test' })
      .update({ recordings: JSON.stringify({ retention_days: 1 }) });
    const [line] = await db('lines')
      .insert({
        workspace_id: tenant.workspaceId,
        user_id: tenant.owner.id,
        environment: 'test',
        name: 'Retention',
        mode: 'webhook',
        webhook_url: 'http://127.0.0.1:9/events',
        phone_number: number(),
        status: 'active',
        activated_at: new Date(),
      })
      .returning<Array<{ id: string }>>('id');

    const storedAt = new Date(await env.currentTimeMs());
    const SAID = 'My card is 4111 1111 1111 1111';
    const REPLY = '{"text":"Thank you, noted"}';
    /**
     * A completed call with a recording and a transcript in the store, stored now; in the database its transcript, and
     * a `message` event (what the caller said) delivered with the agent's reply.
     */
    async function storedCall(toNumber: string): Promise<{ id: string; refs: StoredObjectRef[] }> {
      const recordingUrl = `http://carrier.invalid/${crypto.randomUUID()}.wav`;
      const call = completedCallRow(
        { workspaceId: tenant.workspaceId, lineId: line.id },
        {
          to_number: toNumber,
          recording_url: recordingUrl,
          ended_at: storedAt,
          transcript: JSON.stringify([{ role: 'user', text: SAID, timestamp: storedAt.toISOString() }]),
        },
      );
      await db('calls').insert(call);
      const eventId = crypto.randomUUID();
      const payload = { call_id: call.id, text: SAID, timestamp: storedAt.getTime() };
      await db('webhook_events').insert({
        id: eventId,
        workspace_id: tenant.workspaceId,
        environment: 'test',
        line_id: line.id,
        call_id: call.id,
        event_type: 'message',
        target: 'webhook',
        payload,
        created_at: storedAt,
      });
      await db('webhook_deliveries').insert({
        id: crypto.randomUUID(),
        event_id: eventId,
        workspace_id: tenant.workspaceId,
        environment: 'test',
        line_id: line.id,
        call_id: call.id,
        event_type: 'message',
        url: 'http://127.0.0.1:9/events',
        attempt: 1,
        status: 'success',
        http_status: 200,
        request_body: { ...payload, event: 'message', event_id: eventId, line_id: line.id },
        response_body: REPLY,
        created_at: storedAt,
        completed_at: storedAt,
      });
      const refs: StoredObjectRef[] = [];
      for (const [kind, name, contentType] of [
        ['recording', 'recording.wav', 'audio/wav'],
        ['transcript', 'transcript.json', 'application/json'],
      ] as const) {
        const ref = { workspaceId: tenant.workspaceId, environment: 'test' as const, callId: call.id, name };
        const head = await store.put(ref, Buffer.from(`${kind} of ${call.id}`), { contentType });
        await db('call_objects').insert({
          call_id: call.id,
          kind,
          workspace_id: tenant.workspaceId,
          environment: 'test',
          name,
          store: 'filesystem',
          store_key: head.key,
          size_bytes: head.size,
          sha256: head.sha256,
          content_type: contentType,
          carrier_url: kind === 'recording' ? recordingUrl : null,
          stored_at: storedAt,
        });
        refs.push(ref);
      }
      return { id: call.id, refs };
    }
    const heldNumber = number();
    const plain = await storedCall(number());
    const heldCall = await storedCall(number());
    const heldByNumber = await storedCall(heldNumber);
    const releasedLater = await storedCall(number());

    const actor = { ...environment, keyId: null };
    const deps = { db, now: () => new Date() };
    expect((await placeLegalHold(deps, actor, { callId: heldCall.id }, 'Litigation 1')).ok).toBe(true);
    expect((await placeLegalHold(deps, actor, { phoneNumber: heldNumber }, 'Subpoena of the callee')).ok).toBe(true);
    const toRelease = await placeLegalHold(deps, actor, { callId: releasedLater.id }, 'Released later');
    if (!toRelease.ok) throw new Error('the hold was not placed');

    const present = async (call: { refs: StoredObjectRef[] }) => {
      const found = await Promise.all(
        call.refs.map((ref) =>
          store.head(ref).then(
            () => true,
            (err) => {
              if (err instanceof StoredObjectNotFoundError) return false;
              throw err;
            },
          ),
        ),
      );
      return found.every(Boolean) ? 'kept' : found.some(Boolean) ? 'partly' : 'deleted';
    };
    const rowsOf = async (call: { id: string }) => Number((await db('call_objects').where({ call_id: call.id }).count({ n: '*' }))[0].n);
    /** Where what was said on the call is kept in the database: its transcript, its message event, its delivery. */
    const saidOn = async (call: { id: string }) => {
      const row = await db('calls').where({ id: call.id }).first('transcript');
      const event = await db('webhook_events').where({ call_id: call.id }).first('payload');
      const delivery = await db('webhook_deliveries').where({ call_id: call.id }).first('request_body', 'response_body');
      return { transcript: row.transcript, event: event.payload, delivery };
    };
    const keptSaid = async (call: { id: string }) => {
      const said = await saidOn(call);
      expect(JSON.stringify(said)).toContain(SAID);
      expect(said.delivery.response_body).toBe(REPLY);
    };
    const run = () =>
      env.client.workflow.execute<RecordingsRetentionWorkflow>('recordingsRetentionWorkflow', {
        taskQueue,
        workflowId: `recordings-retention-${crypto.randomUUID()}`,
      });
    const countedBefore = await deletedCount();

    await worker.runUntil(async () => {
      // Younger than a day: nothing goes.
      await run();
      for (const call of [plain, heldCall, heldByNumber, releasedLater]) {
        expect(await present(call)).toBe('kept');
        expect(await rowsOf(call)).toBe(2);
      }

      // A day and an hour of server time later, the daily run deletes what is not held.
      await env.sleep('25 hours'); // server time, skipped: waits out the day of retention (plus an hour) the objects must outlive
      const first = await run();
      expect(await present(plain)).toBe('deleted');
      expect(await rowsOf(plain)).toBe(0);
      for (const call of [heldCall, heldByNumber, releasedLater]) {
        expect(await present(call)).toBe('kept');
        expect(await rowsOf(call)).toBe(2);
        await keptSaid(call);
      }
      // What was said went with the objects: the transcript, the caller's words in the event and the attempt's body,
      // the agent's reply; the rows stay, naming the call.
      const erased = await saidOn(plain);
      // The card number with its spaces: the bare digits '4111' may turn up in a call's random UUID.
      expect(JSON.stringify(erased)).not.toContain('4111 1111');
      expect(JSON.stringify(erased)).not.toContain('My card');
      expect(JSON.stringify(erased)).not.toContain('noted');
      expect(erased).toEqual({
        transcript: null,
        event: { call_id: plain.id, timestamp: storedAt.getTime(), content_deleted: true },
        delivery: {
          request_body: expect.objectContaining({ event: 'message', call_id: plain.id, content_deleted: true }),
          response_body: null,
        },
      });
      // Other tests' tenants may have retentions of their own; this tenant's calls are what is counted here.
      expect(first.calls).toBeGreaterThanOrEqual(1);

      // The deletion is audited (by the schedule, naming the objects) and remembered; the recording is gone for good.
      const events = await db('compliance_events').where({ workspace_id: tenant.workspaceId, event_type: 'call_objects_deleted' });
      expect(events.map((event) => event.call_id)).toEqual([plain.id]);
      expect(events[0].actor_key_id).toBeNull();
      expect(events[0].metadata).toMatchObject({
        by: 'retention_schedule',
        retention_days: 1,
        transcript_deleted: true,
        conversation_events_erased: 1,
      });
      expect(events[0].metadata.objects.map((object: { name: string }) => object.name).sort()).toEqual([
        'recording.wav',
        'transcript.json',
      ]);
      const row = (await db('calls').where({ id: plain.id }).first()) as CallRow;
      const served = await serveCallRecording(
        {
          db,
          log: createLogger('test'),
          recordingStore: store,
          openRecording: async () => {
            throw new Error('a recording deleted by the retention must not be fetched from the carrier');
          },
        },
        row,
      );
      expect(served).toEqual({ ok: false, refused: 'no_recording' });
      // The call's `recording_storage` says so (the API's and the portal's), with when; a held call's is still stored.
      expect(await recordingStorageOfCall({ db }, plain)).toEqual({
        state: 'deleted',
        objects: [],
        attempts: 0,
        failing_since: null,
        last_failure: null,
        deleted_at: expect.any(String),
      });
      expect((await recordingStorageOfCall({ db }, heldCall)).state).toBe('stored');

      // Released: the next run deletes it; the holds still in force keep theirs. A run deleting what is gone is fine.
      await releaseLegalHold(deps, actor, toRelease.hold.id);
      await env.sleep('1 day'); // server time, skipped: waits out the next daily run's day
      await run();
      expect(await present(releasedLater)).toBe('deleted');
      expect(await rowsOf(releasedLater)).toBe(0);
      expect((await saidOn(releasedLater)).transcript).toBeNull();
      expect(await present(heldCall)).toBe('kept');
      expect(await present(heldByNumber)).toBe('kept');
      await keptSaid(heldByNumber);
      await run();
    });
    // 2 objects each of the two calls deleted (at least: the worker's metric is the process's).
    expect((await deletedCount()) - countedBefore).toBeGreaterThanOrEqual(4);
  });
});
