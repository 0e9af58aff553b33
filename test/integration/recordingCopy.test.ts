import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { stopProcess } from '../../dev/infra/proc';
import { workerRegistry } from '../../activities/metrics';
import { objectKey } from '../../src/adapters/storage/port';
import { callsMissingCopies } from '../../src/domain/recordings/store';
import { createTenant, eventually, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { useProxiedS3RecordingsStore, useS3Server } from '../support/s3Server';
import { placeRecordedCall } from '../support/recordedCall';
import { useSuite } from '../support/suite';
import { until } from '../support/waits';

/**
 * Issue 32, the durable copy (docs/decisions/recordings.md): a recorded call's recording and transcript end up in the
 * operator's S3-compatible store (moto's server, checking signatures) through a proxy the tests can take down or
 * stall; the API serves the stored copy with Range, and the carrier's until it is stored.
 */
const s3 = useS3Server({ authenticate: true });
// The store reached through a proxy the tests take down, with the AWS SDK's own credential chain, as a deployment gives it.
const { overrides: s3Store, proxy } = useProxiedS3RecordingsStore(s3);

describe('the durable copy of a call into the S3 store', () => {
  const ctx = useSuite({
    worker: true,
    receiver: true,
    overrides: s3Store,
  });
  const { h, tenant } = ctx;
  const { lines, calls } = customer(ctx, {
    line: () =>
      webhookLine({
        webhook_url: ctx.receiver.url,
        status_callback_url: ctx.receiver.url,
        recording_enabled: true,
        begin_message: 'Thanks for calling the front desk.',
      }),
  });
  const bucket = () => new S3Client({ endpoint: s3().endpoint, region: s3().region, forcePathStyle: true, credentials: s3().credentials });
  const stored = async (callId: string, kind: string) => h.db('call_objects').where({ call_id: callId, kind }).first();
  const untilStored = (callId: string, kinds: string[], timeoutMs = 30_000) =>
    eventually(
      async () => {
        const rows = await h.db('call_objects').where({ call_id: callId }).whereIn('kind', kinds);
        return rows.length === kinds.length ? rows : undefined;
      },
      timeoutMs,
      `the call's ${kinds.join(' and ')} to be stored`,
    );
  const objectBytes = async (key: string) =>
    Buffer.from(await (await bucket().send(new GetObjectCommand({ Bucket: s3().bucket, Key: key }))).Body!.transformToByteArray());
  /** The carrier's own copy (the simulator's media store), read as the adapter reads it. */
  const carrierBytes = async (callId: string) => {
    const row = await h.db('calls').where({ id: callId }).first();
    const res = await fetch(row.recording_url, { headers: { authorization: `Bearer ${h.config.carrierApiKey}` } });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  const getRecording = async (callId: string, key: string, range?: string) => {
    const res = await fetch(`${h.apiUrl}/api/v1/calls/${callId}/recording`, {
      headers: { authorization: `Bearer ${key}`, ...(range ? { range } : {}) },
    });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  /** The carrier's answer to opening its copy, as the adapter opens it (404 once deleted there). */
  const carrierStatus = async (callId: string) => {
    const row = await h.db('calls').where({ id: callId }).first();
    const res = await fetch(row.recording_url, { headers: { authorization: `Bearer ${h.config.carrierApiKey}` } });
    await res.body?.cancel();
    return res.status;
  };
  /** The call's copy workflow, run to its end (nothing more happens to the call's objects after it). */
  const copyResult = (callId: string) => h.temporal.workflow.getHandle(`call-copy:${callId}`).result();
  const setDeleteAtCarrier = async (on: boolean) => {
    const res = await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { recordings: { delete_at_carrier: on } } });
    expect(res.status).toBe(200);
    expect(res.body.recordings.delete_at_carrier).toBe(on);
  };
  const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');
  const copyFailures = async () =>
    (await workerRegistry.getSingleMetric('switchboard_recording_copy_failures_total')!.get()).values
      .filter((v) => v.labels.kind === 'recording' && v.labels.reason === 'store_unavailable')
      .reduce((sum, v) => sum + v.value, 0);

  /** A recorded call with a transcript, answered, talked on for a moment and hung up through the API. */
  const recordedCall = () => placeRecordedCall(h, { lines, calls });

  it('stores the recording (its bytes and SHA-256) with the transcript and events beside it, and serves it with Range to its tenant only', async () => {
    const events = await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { recordings: { store_events: true } } });
    expect(events.status).toBe(200);
    expect(events.body.recordings).toMatchObject({ store_events: true, delete_at_carrier: false });

    const id = await recordedCall();
    const rows = await untilStored(id, ['recording', 'transcript', 'events']);
    const recording = rows.find((row) => row.kind === 'recording')!;
    const base = { workspaceId: tenant.workspaceId, environment: 'test' as const, callId: id };
    expect(recording).toMatchObject({
      name: 'recording.wav',
      store: 's3',
      content_type: 'audio/wav',
      store_key: objectKey({ ...base, name: 'recording.wav' }),
    });

    // The bucket holds the carrier's very bytes, under the checksum recorded.
    const original = await carrierBytes(id);
    const inBucket = await objectBytes(recording.store_key);
    expect(inBucket.equals(original)).toBe(true);
    expect(recording.sha256).toBe(sha256(original));
    expect(Number(recording.size_bytes)).toBe(original.length);
    expect(recording.carrier_url).toBe((await h.db('calls').where({ id }).first()).recording_url);

    // The transcript and the events, as JSON beside it.
    const call = await calls.get(id);
    const transcript = JSON.parse((await objectBytes(objectKey({ ...base, name: 'transcript.json' }))).toString('utf8'));
    expect(transcript).toEqual({ call_id: id, transcript: call.transcript });
    expect(call.transcript!.length).toBeGreaterThan(0);
    const sent = JSON.parse((await objectBytes(objectKey({ ...base, name: 'events.json' }))).toString('utf8'));
    expect(sent.events.map((event: { type: string }) => event.type)).toEqual(expect.arrayContaining(['call_started', 'call_ended']));

    // recording_url is Switchboard's, on the call and in call_ended.
    const served = `${h.apiUrl}/api/v1/calls/${id}/recording`;
    expect(call.recording_url).toBe(served);
    const ended = await eventually(async () => ctx.receiver.requests.find((r) => r.body.event === 'call_ended' && r.body.call_id === id));
    expect(ended.body.recording_url).toBe(served);

    // Served from the store: whole, a range, a range past the end.
    const whole = await getRecording(id, tenant.keys.test);
    expect(whole.res.status).toBe(200);
    expect(whole.bytes.equals(original)).toBe(true);
    expect(whole.res.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.res.headers.get('etag')).toBe(`"${recording.sha256}"`);
    expect(whole.res.headers.get('content-type')).toBe('audio/wav');
    const first = await getRecording(id, tenant.keys.test, 'bytes=0-99');
    expect(first.res.status).toBe(206);
    expect(first.bytes.length).toBe(100);
    expect(first.bytes.equals(original.subarray(0, 100))).toBe(true);
    expect(first.res.headers.get('content-range')).toBe(`bytes 0-99/${original.length}`);
    const tail = await getRecording(id, tenant.keys.test, 'bytes=-10');
    expect(tail.res.status).toBe(206);
    expect(tail.bytes.equals(original.subarray(original.length - 10))).toBe(true);
    const past = await getRecording(id, tenant.keys.test, 'bytes=999999999-');
    expect(past.res.status).toBe(416);
    expect(past.res.headers.get('content-range')).toBe(`bytes */${original.length}`);
    expect(JSON.parse(past.bytes.toString('utf8')).error.code).toBe('range_not_satisfiable');

    // Another tenant: no such call, as for an id that exists nowhere.
    const stranger = await createTenant(h.db);
    const foreign = await getRecording(id, stranger.keys.test);
    expect(foreign.res.status).toBe(404);
    expect(JSON.parse(foreign.bytes.toString('utf8')).error.code).toBe('call_not_found');
    expect((await getRecording(crypto.randomUUID(), stranger.keys.test)).res.status).toBe(404);

    // The workspace keeps the carrier's copy (delete_at_carrier off): once the copy is done, the carrier still has it.
    expect(await copyResult(id)).not.toHaveProperty('deletedAtCarrier');
    expect(await carrierStatus(id)).toBe(200);
    expect((await stored(id, 'recording')).carrier_deleted_at).toBeNull();

    // Nothing is left for the sweeper of this call.
    const endedAt = (await h.db('calls').where({ id }).first()).ended_at as Date;
    const window = { endedAfter: new Date(endedAt.getTime() - 1), endedBefore: new Date(endedAt.getTime() + 1), limit: 100 };
    expect(await callsMissingCopies(h.db, window)).not.toContain(id);
    // …unless its copy goes missing (a crashed starter never wrote it).
    await h.db('call_objects').where({ call_id: id, kind: 'transcript' }).del();
    expect(await callsMissingCopies(h.db, window)).toContain(id);
  });

  it('waits out a store that is down (nothing deleted at the carrier meanwhile), then stores the copy and, as the workspace chose, deletes the carrier’s', async () => {
    // Issue 32 item 2: the workspace asks for the carrier's copy to be deleted once the store holds a verified one.
    await setDeleteAtCarrier(true);
    try {
      const failuresBefore = await copyFailures();
      proxy().mode = 'refuse';
      let id: string;
      let original: Buffer;
      try {
        id = await recordedCall();
        await until(async () => (await copyFailures()) >= failuresBefore + 2, 'the copy to fail against the store twice', {
          timeoutMs: 30_000,
        });
        expect(await stored(id, 'recording')).toBeUndefined();
        // Until it is stored, the carrier's recording is served whole (no ranges), and the carrier keeps it.
        const meanwhile = await getRecording(id, tenant.keys.test, 'bytes=0-99');
        expect(meanwhile.res.status).toBe(200);
        expect(meanwhile.res.headers.get('accept-ranges')).toBe('none');
        original = await carrierBytes(id);
        expect(meanwhile.bytes.equals(original)).toBe(true);
      } finally {
        proxy().mode = 'pass';
      }
      const [row] = await untilStored(id, ['recording'], 90_000);
      expect((await objectBytes(row.store_key)).equals(original)).toBe(true);
      expect(row.sha256).toBe(sha256(original));

      // Stored and verified: then deleted at the carrier, which refuses to open it from now on.
      expect(await copyResult(id)).toMatchObject({ deletedAtCarrier: true });
      expect(await carrierStatus(id)).toBe(404);
      const after = await stored(id, 'recording');
      expect(after.carrier_deleted_at).toBeInstanceOf(Date);
      // The call still names the carrier's URL (what the copy judges by); the API shows Switchboard's.
      expect((await h.db('calls').where({ id }).first()).recording_url).toBe(row.carrier_url);
      expect((await calls.get(id)).recording_url).toBe(`${h.apiUrl}/api/v1/calls/${id}/recording`);

      // Served from the store alone: whole and by range.
      const whole = await getRecording(id, tenant.keys.test);
      expect(whole.res.status).toBe(200);
      expect(whole.res.headers.get('accept-ranges')).toBe('bytes');
      expect(whole.bytes.equals(original)).toBe(true);
      const first = await getRecording(id, tenant.keys.test, 'bytes=0-99');
      expect(first.res.status).toBe(206);
      expect(first.bytes.equals(original.subarray(0, 100))).toBe(true);
      // A store that cannot answer now has no carrier to fall back on: 503, never the carrier's refusal as a 404.
      proxy().mode = 'refuse';
      try {
        expect((await getRecording(id, tenant.keys.test)).res.status).toBe(503);
      } finally {
        proxy().mode = 'pass';
      }
    } finally {
      await setDeleteAtCarrier(false);
    }
  }, 120_000);

  it('retries a deletion the carrier refuses the credentials to (counted) until it works; any other refusal is final and the carrier keeps it', async () => {
    const deleteFailures = async (reason: string) =>
      (await workerRegistry.getSingleMetric('switchboard_recording_carrier_delete_failures_total')!.get()).values
        .filter((v) => v.labels.reason === reason)
        .reduce((sum, v) => sum + v.value, 0);
    const fault = async (mode: string, count?: number) =>
      expect((await h.simulator.control('POST', '/control/recordings/faults', { mode, count })).status).toBe(200);
    await setDeleteAtCarrier(true);
    try {
      // The carrier refuses the credentials twice (401), then takes them: the deletion waits, then happens.
      const refusedBefore = await deleteFailures('carrier_credentials_refused');
      await fault('unauthorized', 2);
      const waited = await recordedCall();
      expect(await copyResult(waited)).toMatchObject({ deletedAtCarrier: true });
      expect((await deleteFailures('carrier_credentials_refused')) - refusedBefore).toBe(2);
      expect(await carrierStatus(waited)).toBe(404);
      expect((await stored(waited, 'recording')).carrier_deleted_at).toBeInstanceOf(Date);

      // Any other refusal (400) is final: the copy ends, the carrier keeps the recording, the store serves it.
      const finalBefore = await deleteFailures('carrier_refused');
      await fault('reject');
      const kept = await recordedCall();
      const result = await copyResult(kept);
      expect(result).toMatchObject({ deletedAtCarrier: false, carrierDeleteError: expect.stringContaining('400') });
      expect((await deleteFailures('carrier_refused')) - finalBefore).toBe(1);
      expect(await carrierStatus(kept)).toBe(200);
      expect((await stored(kept, 'recording')).carrier_deleted_at).toBeNull();
      expect((await getRecording(kept, tenant.keys.test, 'bytes=0-9')).res.status).toBe(206);
    } finally {
      await fault('normal');
      await setDeleteAtCarrier(false);
    }
  }, 120_000);

  describe('a worker process whose store refuses its credentials, then killed (SIGKILL) in the middle of a copy', () => {
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-copy-worker-'));
    afterAll(() => fs.rmSync(logDir, { recursive: true, force: true }));

    it('loses nothing: the copy waits for the credentials, and the next worker copies the recording whole, once', async () => {
      await h.stopWorker();
      const env = (secretAccessKey: string) => ({
        RECORDINGS_STORE: 's3',
        S3_BUCKET: s3().bucket,
        S3_ENDPOINT: proxy().url,
        S3_REGION: s3().region,
        AWS_ACCESS_KEY_ID: s3().credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: secretAccessKey,
      });
      const logs = [path.join(logDir, 'refused.log'), path.join(logDir, 'fixed.log')];
      // The first worker signs with a wrong secret: the store refuses every write of it.
      let worker: ChildProcess = h.spawnWorkerProcess(logs[0], env(`${s3().credentials.secretAccessKey}x`));
      try {
        const id = await recordedCall();
        await until(
          () => fs.existsSync(logs[0]) && /credentials_refused/.test(fs.readFileSync(logs[0], 'utf8')),
          'the store to refuse the credentials',
          {
            timeoutMs: 60_000,
            intervalMs: 200,
          },
        );
        expect(await stored(id, 'recording')).toBeUndefined();
        // The call says why its copy waits (the class only: no key id, no word of the store's refusal).
        const refused = await eventually(
          async () => {
            const storage = (await calls.get(id)).recording_storage!;
            return storage.last_failure?.reason === 'credentials_refused' ? storage : undefined;
          },
          10_000,
          'the refusal in the call’s recording_storage',
        );
        expect(refused).toMatchObject({ state: 'retrying', last_failure: { kind: 'recording' } });
        expect(JSON.stringify(refused)).not.toContain(s3().credentials.accessKeyId);
        // Its next attempt is taken by a store that never answers: the copy is mid-write when its worker dies.
        proxy().mode = 'hold';
        await until(() => proxy().held > 0, 'the next attempt to reach the store', { timeoutMs: 60_000 });
        const killed = new Promise((resolve) => worker.once('exit', (_code, signal) => resolve(signal)));
        worker.kill('SIGKILL');
        expect(await killed).toBe('SIGKILL');
        expect(await stored(id, 'recording')).toBeUndefined();

        // The operator fixes the credentials; the store answers again.
        proxy().mode = 'pass';
        worker = h.spawnWorkerProcess(logs[1], env(s3().credentials.secretAccessKey));
        const [row] = await untilStored(id, ['recording', 'transcript'], 90_000);
        const original = await carrierBytes(id);
        expect((await objectBytes(row.store_key)).equals(original)).toBe(true);
        expect(row.sha256).toBe(sha256(original));
        expect(await h.db('call_objects').where({ call_id: id })).toHaveLength(2);
        expect((await calls.get(id)).recording_storage).toMatchObject({ state: 'stored', last_failure: null, attempts: 0 });
      } finally {
        proxy().mode = 'pass';
        await stopProcess(worker);
      }
    }, 180_000);
  });
});
