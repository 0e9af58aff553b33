import { eventually, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { signInMember, type PortalClient } from '../support/portalClient';
import { useProxiedS3RecordingsStore, useS3Server } from '../support/s3Server';
import { placeRecordedCall } from '../support/recordedCall';
import { useSuite } from '../support/suite';

/**
 * Issue 32, "a store that is down or refuses credentials delays the copy (retried, visible in metrics and the portal)"
 * (docs/decisions/recordings.md "The copy's state, for the API and the portal"): while the operator's S3 store (moto,
 * behind a proxy the test takes down) refuses connections, a recorded call's `recording_storage` in the API and its
 * portal page say the copy is retrying, since when, why (a reason class, nothing of the store's own words) and after how
 * many attempts, and the overview counts it; once the store is back, both say it is stored, with its size.
 */
const s3 = useS3Server({ authenticate: true });
// The store reached through a proxy the tests take down, with the AWS SDK's own credential chain, as a deployment gives it.
const { overrides: s3Store, proxy } = useProxiedS3RecordingsStore(s3);

describe('the copy’s state in the API and the portal', () => {
  const ctx = useSuite({
    worker: true,
    receiver: true,
    portal: true,
    tenant: 'file',
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
  const storageOf = async (id: string) => {
    const res = await h.request('GET', `/api/v1/calls/${id}`, { key: tenant.keys.test });
    expect(res.status).toBe(200);
    return res.body.call.recording_storage;
  };
  const storagePart = (page: string) => /<p\s+id="recording-storage"[^>]*>[\s\S]*?<\/p>/.exec(page)?.[0] ?? '';
  const failingStat = (page: string) => /data-stat="failing-recording-copies">(\d+)</.exec(page)?.[1];

  /** A recorded call with a transcript, answered, talked on for a moment and hung up through the API. */
  const recordedCall = () => placeRecordedCall(h, { lines, calls });

  it('says the copy is retrying, why and since when while the store is down, then stored once it is back', async () => {
    const member: PortalClient = await signInMember(h.apiUrl, h.db, tenant.workspaceId);
    proxy().mode = 'refuse';
    let id: string;
    try {
      id = await recordedCall();
      // Retried: the API says so, with the reason class and the attempts so far.
      const failing = await eventually(
        async () => {
          const storage = await storageOf(id);
          return storage.state === 'retrying' && storage.attempts >= 2 ? storage : undefined;
        },
        45_000,
        'the copy to fail against the store twice',
      );
      expect(failing).toMatchObject({
        state: 'retrying',
        last_failure: { kind: 'recording', reason: 'store_unavailable', at: expect.any(String) },
        failing_since: expect.any(String),
        deleted_at: null,
      });
      expect(Date.parse(failing.failing_since)).toBeLessThanOrEqual(Date.parse(failing.last_failure.at));
      expect(failing.objects.map((o: { kind: string }) => o.kind)).not.toContain('recording');
      // A class, never the store's words: no address, port or error text of the proxy.
      expect(JSON.stringify(failing)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|socket|refused/i);

      // The call's portal page says the same in words, with the values in data attributes; the overview counts it.
      const page = await member.get(`/portal/calls/${id}?env=test`);
      expect(page.status).toBe(200);
      const said = storagePart(page.text);
      expect(said).toContain('data-storage-state="retrying"');
      expect(said).toContain('data-failure-reason="store_unavailable"');
      expect(said).toContain('The store is unreachable or not answering');
      expect(said).toMatch(/\d+\s+failed attempts/);
      expect(said).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
      expect(failingStat((await member.get('/portal?env=test')).text)).toBe('1');
      // The recording still plays (from the carrier) meanwhile.
      expect(page.text).toContain('id="recording-player"');
    } finally {
      proxy().mode = 'pass';
    }

    // Back: stored and verified, the failure forgotten.
    const stored = await eventually(
      async () => {
        const storage = await storageOf(id);
        return storage.state === 'stored' ? storage : undefined;
      },
      90_000,
      'the copy to be stored once the store is back',
    );
    const rows = await h.db('call_objects').where({ call_id: id }).orderBy('kind');
    expect(stored).toMatchObject({ attempts: 0, failing_since: null, last_failure: null, deleted_at: null });
    expect(stored.objects).toEqual(
      expect.arrayContaining(
        rows.map((row) => ({ kind: row.kind, size_bytes: Number(row.size_bytes), stored_at: row.stored_at.toISOString() })),
      ),
    );
    expect(stored.objects).toHaveLength(rows.length);
    expect(stored.objects[0].kind).toBe('recording');
    expect(await h.db('call_copy_failures').where({ call_id: id })).toEqual([]);
    const page = await member.get(`/portal/calls/${id}?env=test`);
    const said = storagePart(page.text);
    expect(said).toContain('data-storage-state="stored"');
    expect(said).toMatch(/In your storage, verified: recording \d/);
    expect(said).not.toContain('data-failure-reason');
    expect(failingStat((await member.get('/portal?env=test')).text)).toBe('0');

    // The list answers the record without it (one call's page reads its copy; a list does not).
    const listed = await h.request('GET', '/api/v1/calls?limit=5', { key: tenant.keys.test });
    expect(listed.body.calls.find((call: { id: string }) => call.id === id)).not.toHaveProperty('recording_storage');
  }, 180_000);
});
