import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { egressPolicyFor } from '../../src/platform/net/egress';
import { stopProcess } from '../../dev/infra/proc';
import { EVENT_POLICIES, RETRY_DELAYS_MS, type EventType } from '../../src/domain/webhooks/events';
import { startDelivery } from '../../src/domain/webhooks/publish';
import { recordEvent } from '../../src/domain/webhooks/record';
import { eventDestination } from '../../src/domain/webhooks/destination';
import { recordMessageAndClaim } from '../../src/domain/webhooks/store';
import { findLineById } from '../../src/domain/lines/store';
import { verifySignature } from '../../src/domain/webhooks/signature';
import type { deliverEventWorkflow } from '../../workflows/webhooks';
import { customer } from '../support/customer';
import { createTenant, eventually, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';
import { testDataConverter } from '../support/payloadCodec';
import { timeSkippingWorker } from '../support/timeSkippingWorker';

/** The delivery engine as a customer sees it: signed POSTs, retries, the delivery log. */
describe('webhook delivery engine', () => {
  const { h, tenant, receiver } = useSuite({ receiver: true });
  beforeEach(() => receiver.script());

  const { lines } = customer({ h, tenant }, { line: () => webhookLine({ webhook_url: receiver.url }) });
  /** A line whose events go to the receiver, with its signing secret (the in-process worker started to provision it). */
  async function line(): Promise<{ id: string; secret: string }> {
    await h.startWorker();
    const { line: created, webhookSecret } = await lines.createWithSecret();
    return { id: created.id, secret: webhookSecret };
  }

  const event = (lineId: string, type: EventType, payload: Record<string, unknown> = {}) =>
    recordEvent(h.db, {
      workspaceId: tenant.workspaceId,
      environment: 'test',
      lineId,
      type,
      target: EVENT_POLICIES[type].target,
      payload,
      now: new Date(),
    });

  describe('through the API', () => {
    it('POST /webhooks/test delivers a signed event and reports the attempt', async () => {
      const { id, secret } = await line();
      const res = await h.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: id } });
      expect(res.status).toBe(200);
      expect(res.body.delivery).toMatchObject({
        status: 'success',
        http_status: 200,
        response_body: '{"ok":true}',
        duration_ms: expect.any(Number),
      });
      const [req] = receiver.requests;
      expect(req.body).toMatchObject({ event: 'test', line_id: id, event_id: expect.any(String) });
      expect(req.headers['x-service-delivery-id']).toBe(res.body.delivery.id);
      expect(req.headers['x-service-delivery-attempt']).toBe('1');
      expect(req.headers['x-service-timestamp']).toMatch(/^[1-9]\d*$/);
      expect(verifySignature({ secret, headers: req.headers as Record<string, string>, rawBody: req.rawBody })).toEqual({ valid: true });
    });

    it('logs a failed attempt with the status and a truncated, redacted response', async () => {
      const { id } = await line();
      const leaked = 'sk_live_' + 'A'.repeat(32) + ' ' + 'f'.repeat(64);
      receiver.script({ status: 500, body: `${leaked} ${'x'.repeat(3000)}` });
      const res = await h.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: id } });
      expect(res.body.delivery).toMatchObject({ status: 'failed', http_status: 500, error_message: 'http_500' });
      expect(res.body.delivery.response_body).toHaveLength(1000);
      expect(res.body.delivery.response_body).not.toContain('sk_live_');
      expect(res.body.delivery.response_body).not.toContain('f'.repeat(64));
    });

    it('enforces the 5 s timeout of lifecycle and test events', async () => {
      const { id } = await line();
      receiver.script({ status: 200, delayMs: 6_000 });
      const res = await h.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: id } });
      expect(res.body.delivery).toMatchObject({ status: 'failed', http_status: null, error_message: 'timeout after 5000 ms' });
      // Cut off at 5 s: the receiver would have answered 200 after 6 s.
      expect(res.body.delivery.duration_ms).toBeGreaterThanOrEqual(5_000);
    }, 20_000);

    it('gives message events 10 s, and only one attempt', async () => {
      const { id } = await line();
      receiver.script({ status: 200, delayMs: 6_000 });
      const slowButInTime = await startDelivery(h.temporal, h.config.taskQueue, await event(id, 'message', { text: 'hello' }), 'message');
      expect(await slowButInTime.result()).toMatchObject({ status: 'success', attempts: 1 });
      receiver.script({ status: 503 });
      const failing = await startDelivery(h.temporal, h.config.taskQueue, await event(id, 'message', { text: 'hello' }), 'message');
      expect(await failing.result()).toMatchObject({ status: 'failed', attempts: 1, httpStatus: 503 });
    }, 30_000);

    it('lists deliveries with filters and pagination, and summarises them', async () => {
      const { id } = await line();
      receiver.script({ status: 200 }, { status: 500 }, { status: 200 });
      for (let i = 0; i < 3; i += 1) await h.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: id } });
      const all = await h.request('GET', '/api/v1/webhooks/deliveries', { key: tenant.keys.test });
      expect(all.body.total).toBe(3);
      expect(all.body.deliveries[0]).toMatchObject({
        line_id: id,
        event_type: 'test',
        url: receiver.url,
        attempt_count: 1,
        request_body: { event: 'test' },
      });
      const failed = await h.request('GET', '/api/v1/webhooks/deliveries?status=failed', { key: tenant.keys.test });
      expect(failed.body.deliveries.map((d: { http_status: number }) => d.http_status)).toEqual([500]);
      const page = await h.request('GET', `/api/v1/webhooks/deliveries?line_id=${id}&event_type=test&limit=1&offset=2`, {
        key: tenant.keys.test,
      });
      expect(page.body).toMatchObject({ total: 3, deliveries: [{ http_status: 200 }] });
      expect((await h.request('GET', '/api/v1/webhooks/deliveries?status=lost', { key: tenant.keys.test })).status).toBe(422);

      const stats = await h.request('GET', '/api/v1/webhooks/stats', { key: tenant.keys.test });
      expect(stats.body).toMatchObject({
        total: 3,
        success: 2,
        failed: 1,
        success_rate: 0.6667,
        by_event_type: [{ event_type: 'test', total: 3, success: 2, failed: 1 }],
      });
      expect(stats.body.by_hour).toEqual([
        { hour: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:00:00Z$/), total: 3, success: 2, failed: 1 },
      ]);
      // Another workspace sees none of it.
      const other = await createTenant(h.db);
      expect((await h.request('GET', '/api/v1/webhooks/deliveries', { key: other.keys.test })).body.total).toBe(0);
    });

    it('fails the attempt when the line has no webhook_url', async () => {
      const { id } = await line();
      await h.request('PATCH', `/api/v1/lines/${id}`, { key: tenant.keys.test, body: { webhook_url: null } });
      const res = await h.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: id } });
      expect(res.body.delivery).toMatchObject({ status: 'failed', error_message: 'missing_webhook_url' });
    });
  });

  describe('retries on the backoff schedule (time-skipping)', () => {
    let env: TestWorkflowEnvironment;

    beforeAll(async () => {
      env = await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
        client: { dataConverter: testDataConverter() },
      });
    });
    afterAll(async () => env?.teardown());

    async function deliverWithTimeSkipping(eventId: string, type: EventType) {
      const { worker, taskQueue } = await timeSkippingWorker(env, { db: h.db, egress: egressPolicyFor(h.config) });
      return worker.runUntil(async () => {
        const handle = await env.client.workflow.start<typeof deliverEventWorkflow>('deliverEventWorkflow', {
          taskQueue,
          workflowId: `d-${eventId}`,
          args: [{ eventId, eventType: type }],
        });
        const result = await handle.result();
        const history = await handle.fetchHistory();
        const timers = (history.events ?? [])
          .filter((e) => e.timerStartedEventAttributes)
          .map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds));
        return { result, timers };
      });
    }

    it('a receiver that fails twice then succeeds gets 3 attempts, 3 delivery ids, one event_id', async () => {
      const { id, secret } = await line();
      receiver.script({ status: 500 }, { status: 502 });
      const eventId = await event(id, 'call_ended', { call_id: crypto.randomUUID(), duration_sec: 42 });
      const { result, timers } = await deliverWithTimeSkipping(eventId, 'call_ended');
      expect(result).toMatchObject({ status: 'success', attempts: 3 });
      expect(receiver.requests).toHaveLength(3);
      expect(new Set(receiver.requests.map((r) => r.headers['x-service-delivery-id'])).size).toBe(3);
      expect(receiver.requests.map((r) => r.body.event_id)).toEqual([eventId, eventId, eventId]);
      expect(receiver.requests.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
      for (const r of receiver.requests)
        expect(
          verifySignature({ secret, headers: r.headers as Record<string, string>, rawBody: r.rawBody, toleranceSeconds: 10 ** 9 }).valid,
        ).toBe(true);
      // Delays of 5 s and 5 min, each within ±10 % jitter.
      expect(timers).toHaveLength(2);
      expect(timers[0]).toBeGreaterThanOrEqual(4);
      expect(timers[0]).toBeLessThanOrEqual(6);
      expect(timers[1]).toBeGreaterThanOrEqual(270);
      expect(timers[1]).toBeLessThanOrEqual(330);
      const log = await h.db('webhook_deliveries').where({ event_id: eventId }).orderBy('attempt');
      expect(log.map((d) => [d.attempt, d.status, d.http_status])).toEqual([
        [1, 'failed', 500],
        [2, 'failed', 502],
        [3, 'success', 200],
      ]);
    }, 60_000);

    it('gives up after the whole schedule: 8 attempts over about 27.5 hours', async () => {
      const { id } = await line();
      receiver.script(...Array.from({ length: 8 }, () => ({ status: 500 })));
      const { result, timers } = await deliverWithTimeSkipping(
        await event(id, 'sms_received', { from_number: '+14155550123' }),
        'sms_received',
      );
      expect(result).toMatchObject({ status: 'failed', attempts: 8 });
      expect(timers).toHaveLength(RETRY_DELAYS_MS.length);
    }, 60_000);

    it('waits at least as long as the receiver’s Retry-After asks', async () => {
      const { id } = await line();
      receiver.script({ status: 503, headers: { 'retry-after': '7200' } });
      const { result, timers } = await deliverWithTimeSkipping(await event(id, 'call_started'), 'call_started');
      expect(result).toMatchObject({ status: 'success', attempts: 2 });
      expect(timers).toEqual([7200]);
    }, 60_000);
  });

  describe('durability', () => {
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-delivery-'));
    afterAll(() => fs.rmSync(logDir, { recursive: true, force: true }));

    it('a worker killed between attempts still makes the next attempt after it restarts', async () => {
      const { id } = await line();
      await h.stopWorker();
      const spawnWorker = () => h.spawnWorkerProcess(path.join(logDir, 'worker.log'));
      receiver.script({ status: 500 });
      let worker = spawnWorker();
      const eventId = await event(id, 'call_ended', { duration_sec: 3 });
      const handle = await startDelivery(h.temporal, h.config.taskQueue, eventId, 'call_ended');
      await receiver.waitForRequests(1, 30_000);
      // Kill only once the first attempt is over and the workflow sits on its 5 s retry timer
      // (killing mid-attempt would test activity retry instead).
      await eventually(
        async () => ((await handle.fetchHistory()).events ?? []).some((e) => e.timerStartedEventAttributes) || undefined,
        30_000,
        'the retry timer',
      );
      const killed = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGKILL');
      await killed;
      worker = spawnWorker();
      try {
        await receiver.waitForRequests(2, 60_000);
        expect(await handle.result()).toMatchObject({ status: 'success', attempts: 2 });
        expect(receiver.requests.map((r) => r.body.event_id)).toEqual([eventId, eventId]);
        expect(receiver.requests[1].headers['x-service-delivery-id']).not.toBe(receiver.requests[0].headers['x-service-delivery-id']);
        await eventually(async () =>
          (await h.db('webhook_deliveries').where({ event_id: eventId, status: 'success' }).first()) ? true : undefined,
        );
      } finally {
        await stopProcess(worker);
      }
    }, 90_000);
  });

  /**
   * Where a `message` goes is stated twice: `eventDestination` (every other event) and its SQL in
   * the call turn's claim statement (`recordMessageAndClaim`, built from `webhookDestinationSql`).
   * Both must pick the same URL for a line with and without its own `webhook_url`, with and
   * without the workspace's default (an empty string counts as none).
   */
  describe('the call turn and every other event choose the same destination', () => {
    const cases: Array<[string, string | null, string | null]> = [
      ['the line URL, no default', 'https://line.example.test/hooks', null],
      ['the line URL over a default', 'https://line.example.test/hooks', 'https://default.example.test/hooks'],
      ['no line URL: the default', null, 'https://default.example.test/hooks'],
      ['an empty line URL: the default', '', 'https://default.example.test/hooks'],
      ['no line URL, no default: nowhere', null, null],
      ['no line URL, an empty default: nowhere', null, ''],
    ];
    it.each(cases)('%s', async (_name, lineUrl, defaultUrl) => {
      const { id: lineId } = await line();
      await h.db('lines').where({ id: lineId }).update({ webhook_url: lineUrl });
      await h
        .db('billing_accounts')
        .where({ workspace_id: tenant.workspaceId, environment: 'test' })
        .update({ default_webhook_url: defaultUrl });
      const row = await findLineById(h.db, lineId);
      const chosen = await eventDestination(h.db, { workspaceId: tenant.workspaceId, environment: 'test' }, row, 'webhook');
      const claim = await recordMessageAndClaim(h.db, {
        event: {
          id: crypto.randomUUID(),
          workspaceId: tenant.workspaceId,
          environment: 'test',
          lineId,
          type: 'message',
          target: EVENT_POLICIES.message.target,
          payload: { text: 'hello' },
          now: new Date(),
        },
        deliveryId: crypto.randomUUID(),
        requestBody: '{}',
      });
      expect(claim.url).toBe(chosen);
      expect(chosen).toBe(lineUrl || defaultUrl || null);
    });
  });
});
