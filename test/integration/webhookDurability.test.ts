import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { carrierCallbackHeaders } from '../../src/adapters/carrier/callbacks/signature';
import type { CarrierMessageEvent } from '../../src/adapters/carrier/callbacks/wire';
import { spawnService } from '../../dev/infra/services';
import { stopProcess } from '../../dev/infra/proc';
import { ensureSchedules, WEBHOOK_SWEEP_SCHEDULE_ID } from '../../src/main/schedules';
import { customer } from '../support/customer';
import { eventually, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * Issue 14: an event's first attempt is made by the process that raised it, right after the commit,
 * with no workflow. Killing that process (kill -9) mid-burst loses nothing: the sweeper (a Temporal
 * schedule) finds the events whose first attempt never settled and starts their retry workflows,
 * so every event reaches the receiver at least once under its event_id.
 */
describe('webhook events survive a kill -9 of the process that raised them', () => {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-events-'));
  // Declared before the suite so that it runs while the harness is still open (jest runs afterAll hooks in order):
  // the schedule would go on starting sweeps on this file's task queue, which no worker serves after it.
  afterAll(async () => {
    await h.temporal.schedule
      .getHandle(WEBHOOK_SWEEP_SCHEDULE_ID)
      .delete()
      .catch(() => undefined);
  });
  const { h, tenant, receiver } = useSuite({ receiver: true, tenant: 'file' });

  const { lines } = customer({ h, tenant }, { line: () => webhookLine({ webhook_url: receiver.url }) });

  it('an API process killed mid-burst of inbound SMS: every sms_received event is still delivered', async () => {
    // The worker runs the sweeper's schedule (as every worker creates it at start) and the retry workflows.
    await h.startWorker();
    // Test files share one Temporal server: a schedule an earlier file created starts its sweeps on that
    // file's task queue, so this file's own is created afresh.
    await h.temporal.schedule
      .getHandle(WEBHOOK_SWEEP_SCHEDULE_ID)
      .delete()
      .catch(() => undefined);
    await ensureSchedules(h.temporal, h.config.taskQueue);
    const { line } = await lines.createWithSecret();

    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const api: ChildProcess = spawnService(
      'api',
      {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: h.config.databaseUrl,
        TEMPORAL_ADDRESS: h.config.temporalAddress,
        TEMPORAL_TASK_QUEUE: h.config.taskQueue,
        SECRETS_KEY: h.config.secretsKey,
        CARRIER_WEBHOOK_SECRET: h.config.carrierWebhookSecret,
        CARRIER_API_KEY: h.config.carrierApiKey,
        PAYMENTS_API_KEY: h.config.paymentsApiKey,
        SIMULATOR_URL: h.config.simulatorUrl,
        PUBLIC_BASE_URL: apiUrl,
        OUTBOUND_ALLOWED_NETWORKS: h.config.outboundAllowedNetworks.join(','),
        LOG_LEVEL: 'info',
      },
      path.join(logDir, 'api.log'),
    );
    const exited = new Promise((resolve) => api.once('exit', (_code, signal) => resolve(signal)));
    try {
      await eventually(
        async () => ((await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.status ? true : undefined),
        30_000,
        'the API process to listen',
      );

      // The receiver is slow while the burst runs, so first attempts are in flight when the API dies.
      receiver.respondWith(() => ({ status: 200, body: '{"ok":true}', delayMs: 3_000 }));
      // The carrier's signed `sms.received` callbacks, straight to the API process (as the simulator posts them).
      const burst = Array.from({ length: 40 }, (_, i) => {
        const rawBody = JSON.stringify({
          type: 'sms.received',
          carrier_message_id: `burst-${crypto.randomUUID()}`,
          from: `+1415555${String(1000 + i)}`,
          to: line.phone_number,
          text: `burst ${i}`,
          at: Date.now(),
        } satisfies CarrierMessageEvent);
        return fetch(`${apiUrl}/carrier/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...carrierCallbackHeaders({ secret: h.config.carrierWebhookSecret!, rawBody }) },
          body: rawBody,
        }).catch(() => undefined);
      });
      await receiver.waitForRequests(5, 30_000);
      api.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      await Promise.all(burst);
      receiver.respondWith(undefined);

      // What the API committed before it died: every one must arrive, whatever became of its first attempt.
      const recorded: string[] = (await h.db('webhook_events').where({ line_id: line.id, event_type: 'sms_received' }).select('id')).map(
        (row: { id: string }) => row.id,
      );
      expect(recorded.length).toBeGreaterThanOrEqual(5);
      const undelivered = () => recorded.filter((id) => !receiver.requests.some((r) => r.body.event_id === id));
      // Some events were left mid-attempt or unattempted by the dead process: the sweeper takes them over.
      await eventually(async () => (undelivered().length === 0 ? true : undefined), 90_000, 'every recorded event at the receiver');
      expect(undelivered()).toEqual([]);
      // The delivery log shows each event's attempts numbered from 1, and each event settled.
      await eventually(
        async () =>
          (await h.db('webhook_events').whereIn('id', recorded).where({ awaiting_dispatch: true }).first('id')) ? undefined : true,
        30_000,
        'every event settled',
      );
      // The delivery log: every event has a successful attempt, numbered from 1; the attempts the
      // dead process left pending were taken over by a retry workflow the sweeper started.
      const successOf = async () =>
        new Set(
          (await h.db('webhook_deliveries').whereIn('event_id', recorded).where({ status: 'success' }).select('event_id')).map(
            (row: { event_id: string }) => row.event_id,
          ),
        );
      await eventually(
        async () => ((await successOf()).size === recorded.length ? true : undefined),
        60_000,
        'a successful attempt of every event',
      );
      const attempts = await h.db('webhook_deliveries').whereIn('event_id', recorded).select('event_id', 'attempt');
      for (const id of recorded)
        expect(attempts.filter((a: { event_id: string }) => a.event_id === id).map((a: { attempt: number }) => a.attempt)).toContain(1);
      let takenOver = 0;
      for (const id of recorded) {
        const started = await h.temporal.workflow
          .getHandle(`webhook-event:${id}`)
          .describe()
          .then(() => true)
          .catch(() => false);
        if (started) takenOver += 1;
      }
      expect(takenOver).toBeGreaterThanOrEqual(1);
      expect(await h.temporal.schedule.getHandle(WEBHOOK_SWEEP_SCHEDULE_ID).describe()).toBeTruthy();
    } finally {
      if (api.exitCode === null && api.signalCode === null) await stopProcess(api);
      receiver.respondWith(undefined);
    }
  }, 180_000);
});
