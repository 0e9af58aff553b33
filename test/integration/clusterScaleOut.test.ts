import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startClusterStack, type ClusterStack } from '../../dev/infra/clusterStack';
import { loadConfig } from '../../src/platform/config';
import { createDb, type Db } from '../../src/platform/db/knex';
import { dropDatabase } from '../../dev/infra/postgres';
import { freePortBlock } from '../../dev/infra/proc';
import { freePort } from '../../src/platform/net/freePort';
import { runBuildDir } from '../support/buildDir';
import { TEMPORAL_SERVER_PORT_COUNT } from '../../dev/infra/temporalServer';
import { LOOPBACK_NETWORKS } from '../../src/platform/net/egress';
import { createTenant, eventually, webhookLine, type Tenant, type TestResponse } from '../support/harness';
import { retrying as retryingAnswer } from '../support/chaos';
import { startReceiver, type Receiver } from '../support/receiver';
import { randomSimulatorCredentials, simulatorControl } from '../../dev/simulator';
import { calleeOpenAt } from '../support/callingHours';

/**
 * The cluster topology under load and faults (issue 15): the Temporal server on Postgres, two API
 * processes behind HAProxy, two worker processes, the simulator. Fifty calls are placed half on
 * each API; meanwhile one worker and one API are SIGKILLed (and started again) and the Temporal
 * server is restarted. Every call must end and be settled once, every lifecycle event reach the
 * receiver under one event id, the books balance, and idempotency and rate limits hold across APIs.
 */
const CALLS = 50;
/** Line creation is limited to 10 an hour per workspace. */
const LINES_PER_TENANT = 10;
const LIFECYCLE = ['call_ended', 'call_outgoing', 'call_started'];

describe('the cluster topology', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cluster-'));
  const suffix = crypto.randomBytes(4).toString('hex');
  const adminUrl = Object.assign(new URL(process.env.DATABASE_URL!), { pathname: '/postgres' }).toString();
  const databases = { app: `cluster_${suffix}`, temporal: `cluster_${suffix}_temporal`, visibility: `cluster_${suffix}_visibility` };
  const credentials = randomSimulatorCredentials();
  let stack: ClusterStack;
  let db: Db;
  let receiver: Receiver;
  const unexpected: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startClusterStack({
      dataDir: dir,
      logDir: path.join(dir, 'logs'),
      toolCacheDir: loadConfig().toolCacheDir,
      postgres: { adminUrl },
      databases,
      ports: {
        api: await freePort(),
        apis: [await freePort(), await freePort()],
        simulator: await freePort(),
        temporal: await freePortBlock(TEMPORAL_SERVER_PORT_COUNT),
      },
      env: {
        SWITCHBOARD_PROFILE: 'dev',
        SECRETS_KEY: process.env.SECRETS_KEY!,
        TEMPORAL_PAYLOAD_KEY: process.env.TEMPORAL_PAYLOAD_KEY!,
        CARRIER_API_KEY: credentials.carrierApiKey,
        PAYMENTS_API_KEY: credentials.paymentsApiKey,
        CARRIER_WEBHOOK_SECRET: credentials.webhookSecret,
        SIMULATOR_CONTROL_TOKEN: credentials.controlToken,
        OUTBOUND_ALLOWED_NETWORKS: LOOPBACK_NETWORKS.join(','),
        LOG_LEVEL: 'info',
      },
      log: (line) => process.stderr.write(`[cluster] ${line}\n`),
      // The run's production build, as the image runs the services (the cluster's orchestration is what this file tests).
      build: runBuildDir(),
      onUnexpectedExit: (name, reason) => unexpected.push(`${name} exited (${reason}): ${logTail(path.join(dir, 'logs', `${name}.log`))}`),
    });
    db = createDb(stack.databaseUrl, { max: 5 });
    // Both workers poll before the first call, so both take a share.
    const workers = stack.workers.map((worker) => `${worker.child.pid}@${os.hostname()}`);
    await eventually(
      async () => ((await pollersOf(stack.temporalAddress)).filter((p) => workers.includes(p)).length === 2 ? true : undefined),
      60_000,
      'both workers to poll',
    );
    // The first run on a machine builds the Temporal server from source (minutes); later runs reuse the tool cache's build.
  }, 1_800_000);
  afterAll(async () => {
    await receiver?.close();
    await db?.destroy();
    await stack?.stop();
    for (const database of Object.values(databases)) await dropDatabase(adminUrl, database);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function send(base: string, method: string, url: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined; // HAProxy's own error pages (502, 503) are HTML
    }
    return { status: response.status, headers: response.headers, body: parsed, text } as TestResponse;
  }

  /** Retries while a process is down, for up to 120 s (a cluster's API restarts behind HAProxy). */
  const retrying = (attempt: () => Promise<TestResponse>) => retryingAnswer(attempt, 120_000);

  async function tenantWithoutAutoCharge(): Promise<Tenant> {
    const tenant = await createTenant(db);
    const res = await send(stack.apiUrl, 'PATCH', '/api/v1/settings', tenant.keys.test, { auto_recharge_enabled: false });
    expect(res.status).toBe(200);
    return tenant;
  }

  it('keeps every call whole while a worker and an API are killed and the Temporal server restarts', async () => {
    const sim = simulatorControl(stack.simulatorUrl, credentials.controlToken);
    const tenants = await Promise.all(Array.from({ length: CALLS / LINES_PER_TENANT }, tenantWithoutAutoCharge));
    const workerPids = stack.workers.map((worker) => worker.child.pid);
    const lines = await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const key = tenants[i % tenants.length].keys.test;
        const res = await send(
          stack.apiUrls[i % 2],
          'POST',
          '/api/v1/lines',
          key,
          webhookLine({ webhook_url: receiver.url, status_callback_url: receiver.url }),
        );
        expect(res.status).toBe(201);
        return { id: res.body.line.id as string, key };
      }),
    );

    await eventually(
      async () =>
        (
          await db('lines')
            .whereIn(
              'id',
              lines.map((line) => line.id),
            )
            .where({ status: 'active' })
            .count('* as n')
        )[0].n === String(CALLS)
          ? true
          : undefined,
      60_000,
      'every line to be active',
    );

    const callIds: string[] = [];
    let connected = 0;
    const driving = lines.map(async (line, i) => {
      // Half the calls on each API, directly; the hang-ups through the load balancer.
      const placed = await retrying(() =>
        send(
          stack.apiUrls[i % 2],
          'POST',
          '/api/v1/calls',
          line.key,
          // The stack's APIs judge calling hours on their real clock: callees whose window is open now.
          { line_id: line.id, to_number: calleeOpenAt(new Date(), i) },
          {
            'idempotency-key': `scale-out-${line.id}`,
          },
        ),
      );
      if (placed.status !== 201) throw new Error(`call ${i} answered ${placed.status}: ${placed.text}`);
      const id = placed.body.call.id as string;
      callIds.push(id);
      await eventually(
        async () => ((await db('calls').where({ id }).first()).status === 'in_progress' ? true : undefined),
        120_000,
        `call ${i} to connect`,
      );
      connected += 1;
      await new Promise((resolve) => setTimeout(resolve, 300 + ((i * 137) % 1700))); // pacing: each call talks for its own while before it ends
      if (i % 2 === 0) {
        const res = await retrying(() => send(stack.apiUrl, 'POST', `/api/v1/calls/${id}/hangup`, line.key));
        expect(res.status).toBe(200);
      } else {
        await retrying(async () => {
          const res = await sim('POST', `/control/calls/${id}/hangup`);
          return { status: res.status, headers: res.headers, body: undefined, text: await res.text() };
        });
      }
    });
    const faults = (async () => {
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      // Mid-calls: a quarter are talking, the rest ringing or being placed.
      await eventually(async () => (connected >= CALLS / 4 ? true : undefined), 120_000, 'a quarter of the calls to connect');
      await stack.workers[0].kill('SIGKILL');
      await pause(500); // pacing: the chaos lands while calls are ringing and talking
      await stack.apis[0].kill('SIGKILL');
      await pause(1500); // pacing: the API stays down for a while
      await stack.apis[0].start();
      await stack.workers[0].start();
      // A worker that cannot reach Temporal while it starts exits (a supervisor would start it again): let it start first.
      const restarted = `${stack.workers[0].child.pid}@${os.hostname()}`;
      await eventually(
        async () => ((await pollersOf(stack.temporalAddress)).includes(restarted) ? true : undefined),
        60_000,
        'worker 1 to poll',
      );
      await stack.temporal.kill('SIGTERM');
      await stack.temporal.start();
    })();
    await Promise.all([...driving, faults]);

    const finals = await eventually(
      async () => {
        const rows = await db('calls').whereIn('id', callIds);
        return rows.length === CALLS && rows.every((row) => row.status === 'completed') ? rows : undefined;
      },
      120_000,
      'every call to complete',
    );
    // Settled exactly once: one charge at the call's price, its hold settled.
    for (const call of finals) {
      const charges = await db('ledger_transactions').where({ idempotency_ref: `call:${call.id}:settle` });
      expect(charges.length).toBe(Number(call.charge_cents) > 0 ? 1 : 0);
      if (charges.length) expect(Number(charges[0].amount_cents)).toBe(-Number(call.charge_cents));
      expect(
        await db('spend_holds')
          .where({ reference: `call:${call.id}` })
          .first(),
      ).toMatchObject({ status: 'settled' });
    }
    // The books balance to the cent: each account is the sum of its ledger, with nothing left held.
    for (const tenant of tenants) {
      const account = await db('billing_accounts').where({ workspace_id: tenant.workspaceId, environment: 'test' }).first();
      const [{ sum }] = await db('ledger_transactions')
        .where({ workspace_id: tenant.workspaceId, environment: 'test' })
        .sum('amount_cents as sum');
      expect(Number(account.balance_cents)).toBe(Number(sum));
      expect(Number(account.held_cents)).toBe(0);
    }
    // Every lifecycle event at least once, each under one event id (one call per line).
    await eventually(
      async () => {
        const complete = lines.every((line) =>
          LIFECYCLE.every((type) => receiver.requests.some((r) => r.body.line_id === line.id && r.body.event === type)),
        );
        return complete ? true : undefined;
      },
      120_000,
      'every lifecycle event to be delivered',
    );
    for (const line of lines) {
      const received = receiver.requests.filter((r) => r.body.line_id === line.id && LIFECYCLE.includes(r.body.event as string));
      for (const type of LIFECYCLE) expect(new Set(received.filter((r) => r.body.event === type).map((r) => r.body.event_id)).size).toBe(1);
    }
    // Both original workers ran the calls' workflow tasks and activities.
    expect(await identitiesIn(stack.temporalAddress, callIds)).toEqual(
      expect.arrayContaining(workerPids.map((pid) => `${pid}@${os.hostname()}`)),
    );
    expect(unexpected).toEqual([]);
  }, 300_000);

  it('gives the same Idempotency-Key sent to both APIs one effect', async () => {
    const tenant = await tenantWithoutAutoCharge();
    const line = await send(stack.apiUrl, 'POST', '/api/v1/lines', tenant.keys.test, webhookLine({ webhook_url: receiver.url }));
    expect(line.status).toBe(201);
    const body = { line_id: line.body.line.id, to_number: calleeOpenAt(new Date()) };
    const headers = { 'idempotency-key': `both-${suffix}` };
    const answers = await Promise.all(
      stack.apiUrls.map((base) => retrying(() => send(base, 'POST', '/api/v1/calls', tenant.keys.test, body, headers))),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(answers[1].body.call.id).toBe(answers[0].body.call.id);
    expect(await db('calls').where({ line_id: line.body.line.id }).count('* as n')).toEqual([{ n: '1' }]);
    await retrying(() => send(stack.apiUrl, 'POST', `/api/v1/calls/${answers[0].body.call.id}/hangup`, tenant.keys.test));
  }, 60_000);

  it('counts a rate limit across both APIs', async () => {
    const tenant = await tenantWithoutAutoCharge();
    const create = (i: number) =>
      send(stack.apiUrls[i % 2], 'POST', '/api/v1/lines', tenant.keys.test, webhookLine({ webhook_url: receiver.url }));
    for (let i = 0; i < LINES_PER_TENANT; i += 1) expect((await create(i)).status).toBe(201);
    const refused = [await create(0), await create(1)];
    expect(refused.map((r) => r.status)).toEqual([429, 429]);
  }, 120_000);
});

function logTail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-2000);
  } catch {
    return '(no log)';
  }
}

/** The identities of the workers polling the service's workflow task queue. */
async function pollersOf(address: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const queue = await connection.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: 'switchboard' },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return (queue.pollers ?? []).map((poller) => poller.identity ?? '');
  } finally {
    await connection.close();
  }
}

/** The identities of the workers that took the workflows' tasks and activities. */
async function identitiesIn(address: string, workflowIds: string[]): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const identities = new Set<string>();
    for (const id of workflowIds) {
      const history = await client.workflow.getHandle(id).fetchHistory();
      for (const event of history.events ?? []) {
        const identity = event.workflowTaskStartedEventAttributes?.identity ?? event.activityTaskStartedEventAttributes?.identity;
        if (identity) identities.add(identity);
      }
    }
    return [...identities];
  } finally {
    await connection.close();
  }
}
