import crypto from 'node:crypto';
import type { Knex } from 'knex';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  IDEMPOTENCY_LEASE_MS,
  IdempotencyLeaseLostError,
  renewIdempotencyLease,
} from '../../src/domain/idempotency/store';
import { eventually } from '../support/harness';
import { useSuite } from '../support/suite';

/**
 * The idempotency lease is fenced (security L1): a request whose lease lapsed and was taken over
 * by a retry cannot complete the record or commit its effect, and a running request renews its
 * lease so it is not taken over in the first place.
 */
describe('idempotency lease', () => {
  const ctx = useSuite();

  /** Backends of this database waiting for a lock. */
  const lockWaiters = async () =>
    Number(
      (
        await ctx.h.db.raw(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
        )
      ).rows[0].n,
    );

  it('two requests with one key, the first stalled past its lease: exactly one key is minted', async () => {
    const { h, tenant } = ctx;
    const idempotencyKey = crypto.randomUUID();
    const mint = () =>
      h.request('POST', '/v1/keys', {
        key: tenant.keys.serviceTest,
        body: { name: 'stalled', agent_label: 'stalled' },
        headers: { 'idempotency-key': idempotencyKey },
      });

    // Stall every insert into api_keys: both requests claim the key, then wait inside their handler's transaction.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = h.db.transaction(async (trx: Knex.Transaction) => {
      await trx.raw('lock table api_keys in share mode');
      locked();
      await released;
    });
    await isLocked;

    const first = mint();
    await eventually(async () => ((await lockWaiters()) >= 1 ? true : undefined), 10_000, 'the first request to wait');
    // The first request is stalled past its lease (its process would have stopped renewing by now).
    h.clock.advance(IDEMPOTENCY_LEASE_MS + 1_000);
    const second = mint();
    await eventually(
      async () => {
        const row = await h.db('idempotency_keys').where({ idempotency_key: idempotencyKey }).first('locked_until');
        return row && new Date(row.locked_until).getTime() > h.clock.now().getTime() && (await lockWaiters()) >= 2 ? true : undefined;
      },
      10_000,
      'the retry to take the record over and wait',
    );
    release();
    await holder;

    const responses = await Promise.all([first, second]);
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409]);
    expect(responses.find((r) => r.status === 409)!.body.error.code).toBe('idempotency_in_progress');
    const minted = await h
      .db('api_keys')
      .where({ workspace_id: tenant.workspaceId, agent_label: 'stalled' })
      .count<{ n: string }[]>('id as n');
    expect(Number(minted[0].n)).toBe(1);

    // The retry after that is a replay of the one that won.
    const winner = responses.find((r) => r.status === 201)!;
    const replay = await mint();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.key.id).toBe(winner.body.key.id);
  });

  it('a renewed lease is not taken over; a lapsed one is, and the old holder can no longer complete it', async () => {
    const { h, tenant } = ctx;
    const keyRow = await h.db('api_keys').where({ workspace_id: tenant.workspaceId }).first('id');
    const identity = { principalKeyId: keyRow.id, scope: 'POST /test', idempotencyKey: crypto.randomUUID(), fingerprint: 'f' };
    const t0 = new Date('2030-01-01T00:00:00Z');
    const at = (ms: number) => new Date(t0.getTime() + ms);

    const claim = await claimIdempotencyKey(h.db, identity, t0);
    if (claim.kind !== 'owned') throw new Error(`expected owned, got ${claim.kind}`);
    expect(await renewIdempotencyLease(h.db, claim.lease, at(IDEMPOTENCY_LEASE_MS - 1_000))).toBe(true);
    expect((await claimIdempotencyKey(h.db, identity, at(IDEMPOTENCY_LEASE_MS + 1_000))).kind).toBe('in_progress');

    const takeover = await claimIdempotencyKey(h.db, identity, at(3 * IDEMPOTENCY_LEASE_MS));
    if (takeover.kind !== 'owned') throw new Error(`expected a takeover, got ${takeover.kind}`);
    expect(takeover.lease.recordId).toBe(claim.lease.recordId);
    expect(await renewIdempotencyLease(h.db, claim.lease, at(3 * IDEMPOTENCY_LEASE_MS))).toBe(false);
    await expect(completeIdempotencyKey(h.db, claim.lease, 201, { stale: true }, at(3 * IDEMPOTENCY_LEASE_MS))).rejects.toBeInstanceOf(
      IdempotencyLeaseLostError,
    );
    await completeIdempotencyKey(h.db, takeover.lease, 201, { fresh: true }, at(3 * IDEMPOTENCY_LEASE_MS));
    expect(await claimIdempotencyKey(h.db, identity, at(4 * IDEMPOTENCY_LEASE_MS))).toEqual({
      kind: 'replay',
      status: 201,
      body: { fresh: true },
    });
  });
});
