import crypto from 'node:crypto';
import { MAINTENANCE_SCHEDULE_ID, ensureSchedules } from '../../src/main/schedules';
import { useSuite } from '../support/suite';

describe('maintenance: purging expired idempotency records and stale rate-limit hits', () => {
  const { h } = useSuite({ worker: true, tenant: 'none' });

  it('the workflow deletes only what can no longer matter', async () => {
    const now = Date.now();
    const principal = crypto.randomUUID();
    const base = {
      principal_key_id: principal,
      scope: 'POST /x',
      fingerprint: 'f',
      state: 'completed',
      locked_until: new Date(now),
      created_at: new Date(now),
    };
    await h.db('idempotency_keys').insert([
      { ...base, idempotency_key: 'expired', expires_at: new Date(now - 1000) },
      { ...base, idempotency_key: 'live', expires_at: new Date(now + 3600_000) },
    ]);
    const bucket = `maint:${principal}`;
    const idleBucket = `maint-idle:${principal}`;
    await h.db('rate_limit_windows').insert([
      { bucket, hits: [new Date(now - 2 * 3600_000), new Date(now - 60_000)] },
      { bucket: idleBucket, hits: [new Date(now - 3 * 3600_000)] },
    ]);

    const result = await h.temporal.workflow.execute('purgeExpiredRecordsWorkflow', {
      taskQueue: h.config.taskQueue,
      workflowId: `purge-${principal}`,
    });
    expect(result.idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect(result.rateLimitHits).toBeGreaterThanOrEqual(1);
    expect(await h.db('idempotency_keys').where({ principal_key_id: principal }).pluck('idempotency_key')).toEqual(['live']);
    const [kept] = await h.db('rate_limit_windows').where({ bucket }).pluck('hits');
    expect(kept).toEqual([new Date(now - 60_000)]);
    expect(await h.db('rate_limit_windows').where({ bucket: idleBucket })).toEqual([]);
  });

  it('runs hourly from a Temporal Schedule that every worker ensures exists', async () => {
    await ensureSchedules(h.temporal, h.config.taskQueue);
    await ensureSchedules(h.temporal, h.config.taskQueue);
    const schedule = await h.temporal.schedule.getHandle(MAINTENANCE_SCHEDULE_ID).describe();
    expect(schedule.spec.intervals).toMatchObject([{ every: 3600_000 }]);
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'purgeExpiredRecordsWorkflow' });
  });
});
