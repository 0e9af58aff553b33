import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { CarrierRejectedError, type CarrierAdapter } from '../../src/adapters/carrier/port';
import { callingWindow } from '../../src/domain/callingHours/rules';
import { createCampaign } from '../../src/domain/campaigns/create';
import { loadConfig } from '../../src/platform/config';
import type { Db } from '../../src/platform/db/knex';
import { createLogger } from '../../src/platform/logger';
import { EgressPolicy } from '../../src/platform/net/egress';
import { workflowIds } from '../../workflows/definitions/ids';
import { createTenant } from '../support/harness';
import { timeSkippingWorker, useTimeSkippingEnv } from '../support/timeSkippingWorker';

/**
 * Issue 31's "Done when": calling-hours deferrals across time zones, on Temporal's time-skipping test
 * server. A campaign calls people around the world from whatever instant the test runs at: those whose
 * window is open are dialled at once, the others on a durable timer when their own window opens (hours
 * of server time skipped in seconds), each dial inside its callee's window as the rules judge it. The
 * carrier refuses every call (a `failed` attempt, not retried): the test is about when, not how.
 */
describe('campaign calling hours on the time-skipping server', () => {
  const suite = useTimeSkippingEnv();
  /** Whom the carrier was asked to dial. */
  const dialled: Array<{ to: string }> = [];
  const carrier = {
    async placeCall(request: { to: string }) {
      dialled.push({ to: request.to });
      throw new CarrierRejectedError('the test carrier places no call');
    },
  } as unknown as CarrierAdapter;
  let env: TestWorkflowEnvironment;
  let db: Db;
  beforeAll(() => {
    env = suite.env();
    db = suite.db();
  });

  it('dials each callee inside their own window: the open ones at once, the others when their window opens, on one durable timer each', async () => {
    // New York, Los Angeles, Honolulu, Houston (Texas: no calls before noon on Sundays), London, Tokyo, Sydney: the
    // windows of 8:00-21:00 local time never all open nor all close at one instant.
    const callees = ['+12125550147', '+14155550147', '+18085550147', '+17135550147', '+442079460147', '+81312340147', '+61291230147'];
    const startedAt = new Date(await env.currentTimeMs());
    const atStart = new Map(callees.map((to) => [to, callingWindow(to, startedAt, null)]));
    const closed = callees.filter((to) => !atStart.get(to)!.open);
    expect(closed.length).toBeGreaterThan(0);
    expect(closed.length).toBeLessThan(callees.length);

    const { worker, taskQueue } = await timeSkippingWorker(env, { db, egress: new EgressPolicy(), carrier });
    const tenant = await createTenant(db);
    const key = await db('api_keys').where({ workspace_id: tenant.workspaceId, environment: 'test', name: 'standard-test' }).first('id');
    const [line] = await db('lines')
      .insert({
        workspace_id: tenant.workspaceId,
        user_id: tenant.owner.id,
        environment: 'test',
        name: 'Around the world',
        mode: 'webhook',
        // Nobody listens: the campaign's events are not what this test reads.
        webhook_url: 'http://127.0.0.1:9/events',
        phone_number: `+1628${String(Date.now() % 1e7).padStart(7, '0')}`,
        status: 'active',
        activated_at: new Date(),
      })
      .returning<Array<{ id: string }>>('id');

    const realStart = Date.now();
    await worker.runUntil(async () => {
      const campaign = await createCampaign(
        { config: { ...loadConfig(), taskQueue }, db, temporal: env.client, log: createLogger('test'), now: () => startedAt },
        {
          workspaceId: tenant.workspaceId,
          environment: 'test',
          userId: tenant.owner.id,
          key: { id: key.id, line_id: null, grant_numbers: null },
        },
        { lineIds: [line.id], contacts: callees.map((to) => ({ toNumber: to })), startAt: startedAt, retry: { maxAttempts: 1 } },
      );
      // Awaiting its result lets the server skip ahead through the dispatcher's timers.
      await env.client.workflow.getHandle(workflowIds.campaign(campaign.id)).result();

      const calls = await db('calls')
        .join('campaign_attempts', 'campaign_attempts.call_id', 'calls.id')
        .where({ 'campaign_attempts.campaign_id': campaign.id })
        .select<Array<{ to_number: string; created_at: Date }>>('calls.to_number', 'calls.created_at');
      // Everyone dialled once (the carrier saw each), none before their window.
      expect(calls.map((call) => call.to_number).sort()).toEqual([...callees].sort());
      expect(dialled.map((dial) => dial.to).sort()).toEqual([...callees].sort());
      const late = calls.flatMap((call) => {
        const verdict = callingWindow(call.to_number, call.created_at, null);
        const opening = atStart.get(call.to_number)!;
        // Open at the start: dialled at once. Closed: dialled when the window opened, not later than the step after.
        const due = opening.open ? startedAt : opening.nextOpenAt;
        const inTime = verdict.open && call.created_at >= due && call.created_at.getTime() - due.getTime() < 60_000;
        return inTime ? [] : [{ to: call.to_number, at: call.created_at.toISOString(), due: due.toISOString(), verdict }];
      });
      expect(late).toEqual([]);

      // Hours of server time in a few seconds of real time: the waits were timers, skipped.
      const lastOpening = Math.max(...closed.map((to) => (atStart.get(to) as { nextOpenAt: Date }).nextOpenAt.getTime()));
      expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(lastOpening);
      expect(Date.now() - realStart).toBeLessThan(60_000);

      // Durable timers ending at the openings (no polling loop); the other timers are the pace's, a second or less.
      const { events } = await env.client.workflow.getHandle(workflowIds.campaign(campaign.id)).fetchHistory();
      const seconds = (duration: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
        Number(duration?.seconds ?? 0) + (duration?.nanos ?? 0) / 1e9;
      const waits = (events ?? []).flatMap((event) => {
        const timer = event.timerStartedEventAttributes;
        if (!timer || seconds(timer.startToFireTimeout) < 60) return [];
        const startedAtMs = Number(event.eventTime!.seconds) * 1000 + (event.eventTime!.nanos ?? 0) / 1e6;
        return [startedAtMs + seconds(timer.startToFireTimeout) * 1000];
      });
      const openings = [...new Set(closed.map((to) => (atStart.get(to) as { nextOpenAt: Date }).nextOpenAt.getTime()))].sort();
      const endedAt = waits.map((endsAt) => openings.find((opening) => Math.abs(opening - endsAt) < 2_000));
      // Each wait ends at an opening, and each opening is waited for.
      expect([...new Set(endedAt)].sort()).toEqual(openings);
      // A wake (a call of the campaign ending: a signal) cuts a wait short, and the dispatcher waits for the same opening
      // again (seen on a loaded machine); beyond those, one wait an opening.
      const wakes = (events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
      expect(waits.length).toBeLessThanOrEqual(openings.length + wakes);
    });
  }, 120_000);
});
