import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { createApp, type App } from '../../api/app';
import type { AppDeps } from '../../api/context';
import { cardVaultsFor } from '../../src/main/payments';
import { telnyxInboxPorts } from '../../src/main/telnyxInbox';
import { recordingOpener } from '../../src/main/carrierRecordings';
import { recordingStoreFromConfig } from '../../src/main/recordingStore';
import { FilesystemRecordingStore } from '../../src/adapters/storage/filesystemStore';
import type { RecordingStore } from '../../src/adapters/storage/port';
import { loadConfig, type Config } from '../../src/platform/config';
import { createDb, type Db } from '../../src/platform/db/knex';
import type { Environment } from '../../src/domain/keys/format';
import type { Scope } from '../../src/domain/keys/scopes';
import { spawnService } from '../../dev/infra/services';
import { stopProcess } from '../../dev/infra/proc';
import { createLogger } from '../../src/platform/logger';
import { startSimulator, type SimulatorCredentials, type SimulatorState } from '../../simulator/app';
import { startCardProcessorSimulator, type CardProcessorSimulatorState } from '../../simulator/processor';
import type { ModelAdapter } from '../../src/adapters/model/port';
import type { PaymentProcessor, PaymentProcessors } from '../../src/adapters/payments/port';
import { connectTemporalClient, dataConverterWith, payloadCodecOf } from '../../src/platform/temporal/client';
import { createWorkspace, type User } from '../../src/domain/workspaces/service';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { post, SIGNUP_CREDIT_CENTS } from '../../src/domain/billing/ledger';
import { randomSimulatorCredentials, simulatorControl } from '../../dev/simulator';
import { runBuildDir } from './buildDir';
import { eventually } from './eventually';
import { untilLineActive } from './lineActivation';
import { startSmtpReceiver, type SmtpReceiver } from './smtpReceiver';
import { smtpMailer } from '../../src/adapters/email/smtp';

export { eventually };
export { untilLineActive };

/**
 * Everything a test needs to act as a customer: the real API over HTTP, a real worker on
 * its own task queue, the carrier simulator, Postgres and Temporal from the global setup.
 */
/**
 * When the suite's calls are judged for calling hours (docs/decisions/campaigns.md, Calling hours): a
 * Wednesday, no holiday, 18:30 UTC, when every US zone (Hawaii to Eastern, and the stricter states:
 * Rhode Island until 18:00 Eastern) and Europe are within their windows. Tests of calling hours set their own.
 */
export const SUITE_CALLING_HOURS_AT = new Date('2026-06-03T18:30:00Z');

export interface Harness {
  config: Config;
  db: Db;
  temporal: Client;
  simulator: {
    url: string;
    state: SimulatorState;
    /** The live environment's card processor (in the carrier simulator's process). */
    processor: CardProcessorSimulatorState;
    /** The test environment's card processor: a second, distinct simulator on its own port. */
    testProcessor: CardProcessorSimulatorState;
    /** This harness's random secrets (also in `config`). */
    credentials: SimulatorCredentials;
    /** A request to the simulator's control API (docs/simulator.md), with whatever credentials it needs. */
    control(method: string, path: string, body?: unknown): Promise<Response>;
  };
  apiUrl: string;
  /**
   * The real SMTP server (test/support/smtpReceiver.ts) the API mails to (SMTP_URL): verification,
   * password reset and invitation messages arrive here.
   */
  mail: SmtpReceiver;
  /** The API's clock: tests move it instead of sleeping (rate-limit windows, expiry). */
  clock: {
    advance(ms: number): void;
    /** Stops the clock at `at` (later `advance` calls move it from there); `null` lets it run again. */
    freeze(at: Date | null): void;
    now(): Date;
    /**
     * The instant calling hours are judged at (src/domain/callingHours): `SUITE_CALLING_HOURS_AT` unless a test
     * sets one (`null` restores it). Fixed, so that the suite's calls do not depend on the hour it runs at.
     */
    callingHoursAt(at: Date | null): void;
  };
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /**
   * Starts the real worker entry point as a child process on this harness's task queue: the run's production build's
   * (`node <build>/src/main/worker.js`, as the image runs it; `from.build` names another), or `src/main/worker.ts` under
   * tsx when the run has no build. The build starts in about 1 CPU-second where tsx compiles the sources again (about 2.5).
   */
  spawnWorkerProcess(logFile: string, env?: NodeJS.ProcessEnv, from?: { build?: string }): ChildProcess;
  /**
   * Starts the real API entry point as a child process on `port`, against this harness's Postgres and Temporal: the run's
   * production build's, as for the worker (about 1.3 CPU-seconds to start against 3.4 under tsx).
   */
  spawnApiProcess(logFile: string, port: number, env?: NodeJS.ProcessEnv, from?: { build?: string }): ChildProcess;
  /** Stops the API (dropping its connections) and starts a fresh app on the same port. */
  restartApi(): Promise<void>;
  /** Resolves once the API has tried to start the send workflow of every SMS it accepted (src/domain/messages/dispatch.ts). */
  messagesHandedOver(): Promise<void>;
  /** Starts an in-process worker on this harness's task queue (once). */
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // Tests assert on arbitrary JSON shapes.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface HarnessOptions {
  /** Wraps the API's Temporal client (e.g. with interceptors that inject failures); `h.temporal` stays the plain client. */
  apiTemporal?: (client: Client) => Client;
  /** When given, the API's log lines (JSON, level info and up) are pushed here, for tests of what an operator reads. */
  apiLog?: string[];
  /** How the API batches accepted SMS for their send workflows (api/context.ts `messageBatching`). */
  messageBatching?: AppDeps['messageBatching'];
}

export async function startHarness(overrides: Partial<Config> = {}, options: HarnessOptions = {}): Promise<Harness> {
  // Random secrets per harness, one per direction, as a deployment has them.
  const credentials = randomSimulatorCredentials();
  const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials });
  const testProcessor = await startCardProcessorSimulator({ host: '127.0.0.1', port: 0, secret: credentials.paymentsApiKey });
  const mail = await startSmtpReceiver();
  // The recordings the worker copies, and the API serves, in a directory of this harness's (unless the test names a store).
  const recordingsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-recordings-'));
  const loaded = loadConfig();
  const config: Config = {
    ...loaded,
    recordings: { ...loaded.recordings, dir: recordingsDir },
    taskQueue: `test-${crypto.randomUUID()}`,
    simulatorUrl: sim.url,
    paymentsLiveUrl: sim.url,
    paymentsTestUrl: testProcessor.url,
    modelBaseUrl: `${sim.url}/v1`,
    carrierWebhookSecret: credentials.webhookSecret,
    carrierApiKey: credentials.carrierApiKey,
    paymentsApiKey: credentials.paymentsApiKey,
    simulatorControlToken: credentials.controlToken,
    lineProvisionWaitMs: 5_000,
    // Password hashes at scrypt N = 2^10 (1 MiB) rather than the deployment's 2^15: about 300 portal sign-ins and
    // sign-ups across the suite would otherwise spend a minute of CPU; hashes name their N, so every check is the same.
    passwordScryptN: 2 ** 10,
    // The suite's deployment lets visitors sign up (verified through `mail`); tests of `invite` and `approval` say so.
    signupMode: 'open',
    smtpUrl: mail.url,
    ...overrides,
  };
  // As the API's: prepared statements on a pool of their own (API_DB_POOLS), the rest on knex's.
  const db = createDb(config.databaseUrl!, { max: 10, statements: 4 });
  // The lines of the files that ran before this one in this database keep their numbers: this file's carrier never sells them.
  sim.state.withhold(await db('lines').whereNotNull('phone_number').pluck('phone_number'));
  const recordingStore = recordingStoreFromConfig(config);
  // Payloads encrypted as in production (TEMPORAL_PAYLOAD_KEY from the global setup, or the test's override).
  const payloadCodec = payloadCodecOf(config);
  const temporal = await connectTemporalClient(config.temporalAddress!, config.temporalNamespace, payloadCodec);
  const apiTemporal = options.apiTemporal ? options.apiTemporal(temporal) : temporal;
  let offsetMs = 0;
  let frozenAt: number | null = null;
  let callingHoursAt = SUITE_CALLING_HOURS_AT;
  const clock = {
    callingHoursAt: (at: Date | null) => void (callingHoursAt = at ?? SUITE_CALLING_HOURS_AT),
    advance: (ms: number) => void (frozenAt === null ? (offsetMs += ms) : (frozenAt += ms)),
    freeze: (at: Date | null) => void (frozenAt = at === null ? null : at.getTime()),
    now: () => new Date(frozenAt ?? Date.now() + offsetMs),
  };
  // Every app made here is closed with the harness (its last_used_at batch written, its key-change listener stopped).
  const apps: App[] = [];
  // Processes a test spawned: stopped before the harness removes what they may still write to (the recordings directory).
  const children: ChildProcess[] = [];
  const spawned = (child: ChildProcess) => (children.push(child), child);
  const listen = async (port: number) => {
    const app = createApp({
      config,
      db,
      temporal: apiTemporal,
      logger: options.apiLog
        ? createLogger('api-test', 'info', { write: (line: string) => void options.apiLog!.push(line) })
        : createLogger('api-test', process.env.LOG_LEVEL ?? 'silent'),
      now: clock.now,
      callingHoursNow: () => callingHoursAt,
      telnyxInbox: telnyxInboxPorts(config, db),
      openRecording: recordingOpener(config),
      recordingStore,
      cardVaults: cardVaultsFor(config),
      mailer: smtpMailer(config.smtpUrl ?? mail.url, config.mailFrom),
      messageBatching: options.messageBatching,
    });
    apps.push(app);
    const created = http.createServer(app.koa.callback());
    app.acceptWebSockets(created);
    // Longer than the client's own idle timeout, so the client always closes idle sockets first
    // (tests that block the event loop, e.g. spawnSync of the CLI, would otherwise race a reset).
    created.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => created.listen(port, '127.0.0.1', resolve));
    return created;
  };
  let server = await listen(0);
  const apiPort = (server.address() as AddressInfo).port;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  // The carrier simulator calls back into this API, and only into it.
  config.publicBaseUrl = apiUrl;
  config.simulatorCallbackBaseUrl = apiUrl;
  sim.callbacks.setBaseUrl(apiUrl);

  let worker: { instance: Worker; running: Promise<void>; connection: NativeConnection } | undefined;

  const harness: Harness = {
    config,
    db,
    temporal,
    simulator: {
      url: sim.url,
      state: sim.state,
      processor: sim.processor,
      testProcessor: testProcessor.state,
      credentials,
      control: simulatorControl(sim.url, credentials.controlToken),
    },
    apiUrl,
    mail,
    clock,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) };
      if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
      const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
      const response = await fetch(`${apiUrl}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    async messagesHandedOver() {
      await Promise.all(apps.map((app) => app.messageDispatcher.drain(30_000)));
    },
    async restartApi() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server = await listen(apiPort);
    },
    spawnApiProcess(logFile, port, env = {}, from = {}) {
      return spawned(
        spawnService(
          'api',
          {
            DATABASE_URL: config.databaseUrl,
            TEMPORAL_ADDRESS: config.temporalAddress,
            TEMPORAL_NAMESPACE: config.temporalNamespace,
            TEMPORAL_TASK_QUEUE: config.taskQueue,
            HOST: '127.0.0.1',
            PORT: String(port),
            PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
            CARRIER_WEBHOOK_SECRET: config.carrierWebhookSecret,
            SECRETS_KEY: config.secretsKey,
            TEMPORAL_PAYLOAD_KEY: config.temporalPayloadKey,
            // The harness's recordings store (its API serves what a spawned worker copies).
            RECORDINGS_STORE: config.recordings.store,
            RECORDINGS_DIR: config.recordings.dir,
            LOG_LEVEL: 'info',
            ...env,
          },
          logFile,
          { build: from.build ?? runBuildDir() },
        ),
      );
    },
    spawnWorkerProcess(logFile, env = {}, from = {}) {
      return spawned(
        spawnService(
          'worker',
          {
            DATABASE_URL: config.databaseUrl,
            TEMPORAL_ADDRESS: config.temporalAddress,
            TEMPORAL_NAMESPACE: config.temporalNamespace,
            TEMPORAL_TASK_QUEUE: config.taskQueue,
            SIMULATOR_URL: config.simulatorUrl,
            PAYMENTS_LIVE_URL: config.paymentsLiveUrl,
            PAYMENTS_TEST_URL: config.paymentsTestUrl,
            PAYMENTS_TEST_PROVIDER: config.paymentsProviders.test,
            PAYMENTS_LIVE_PROVIDER: config.paymentsProviders.live,
            STRIPE_TEST_SECRET_KEY: config.stripe.secretKeys.test,
            STRIPE_LIVE_SECRET_KEY: config.stripe.secretKeys.live,
            STRIPE_API_BASE: config.stripe.apiBase,
            CARRIER_API_KEY: config.carrierApiKey,
            PAYMENTS_API_KEY: config.paymentsApiKey,
            WORKFLOW_BUNDLE_PATH: process.env.WORKFLOW_BUNDLE_PATH,
            SECRETS_KEY: config.secretsKey,
            TEMPORAL_PAYLOAD_KEY: config.temporalPayloadKey,
            PUBLIC_BASE_URL: config.publicBaseUrl,
            RECORDINGS_STORE: config.recordings.store,
            RECORDINGS_DIR: config.recordings.dir,
            LOG_LEVEL: 'info',
            ...env,
          },
          logFile,
          { build: from.build ?? runBuildDir() },
        ),
      );
    },
    async startWorker() {
      if (worker) return;
      const { NativeConnection, Worker, createActivities, buildActivityDeps, WORKER_TUNING, tracingActivityInterceptors, tracingSinks } =
        workerModules();
      const connection = await NativeConnection.connect({ address: config.temporalAddress! });
      const instance = await Worker.create({
        connection,
        namespace: config.temporalNamespace,
        taskQueue: config.taskQueue,
        workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
        dataConverter: dataConverterWith(payloadCodec),
        activities: createActivities({
          ...buildActivityDeps(config, { db, temporal: () => temporal, recordingStore }),
          callingHoursNow: () => callingHoursAt,
        }),
        ...WORKER_TUNING,
        // Nothing unless the test file started tracing (test/integration/tracing.test.ts).
        interceptors: { activity: tracingActivityInterceptors() },
        sinks: tracingSinks(),
      });
      worker = { instance, running: instance.run(), connection };
    },
    async stopWorker() {
      if (!worker) return;
      worker.instance.shutdown();
      await worker.running;
      await worker.connection.close();
      worker = undefined;
    },
    async close() {
      for (const child of children.splice(0)) await stopProcess(child, 10_000);
      await harness.stopWorker();
      // A request still in flight at teardown (a late carrier callback) is nobody's: it must not hold the suite open.
      for (const open of [server, sim.server, testProcessor.server]) {
        const closed = new Promise<void>((resolve) => open.close(() => resolve()));
        open.closeAllConnections();
        await closed;
      }
      for (const app of apps.splice(0)) await app.close();
      await mail.close();
      await temporal.connection.close();
      await db.destroy();
      fs.rmSync(recordingsDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * What only an in-process worker needs (the Temporal worker, the activities and what they reach), loaded when a suite
 * starts one: the files that never do (about half) do not load it (docs/decisions/layout.md, "Stop 51").
 */
function workerModules() {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, as said above */
  return {
    ...(require('@temporalio/worker') as typeof import('@temporalio/worker')),
    ...(require('../../activities') as typeof import('../../activities')),
    ...(require('../../src/main/activityDeps') as typeof import('../../src/main/activityDeps')),
    ...(require('../../src/main/worker') as typeof import('../../src/main/worker')),
    ...(require('../../src/platform/tracing/temporal') as typeof import('../../src/platform/tracing/temporal')),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

export interface Tenant {
  workspaceId: string;
  owner: User;
  keys: Record<'test' | 'live' | 'serviceTest' | 'serviceLive', string>;
}

/** A new workspace with an owner and one key of each kind, as `cli bootstrap` makes. */
export async function createTenant(db: Db): Promise<Tenant> {
  const suffix = crypto.randomBytes(6).toString('hex');
  const { workspace, owner } = await createWorkspace(db, { name: `Tenant ${suffix}`, ownerEmail: `owner+${suffix}@example.test` });
  // A new workspace's live account opens empty (issue 27, H5: live money only from a verified card);
  // the suite's tenants start with $5 of live funds, as a workspace whose card was charged once.
  await post(db, {
    tenant: { workspaceId: workspace.id, environment: 'live' },
    type: 'credit_purchase',
    amountCents: SIGNUP_CREDIT_CENTS,
    description: 'Test fixture: live funds',
    idempotencyRef: `fixture:${workspace.id}:live_funds`,
    at: workspace.created_at,
  });
  const mint = async (environment: Environment, kind: 'standard' | 'service') =>
    (await mintUserKey(db, { user: owner, environment, kind, name: `${kind}-${environment}` })).plaintext;
  return {
    workspaceId: workspace.id,
    owner,
    keys: {
      test: await mint('test', 'standard'),
      live: await mint('live', 'standard'),
      serviceTest: await mint('test', 'service'),
      serviceLive: await mint('live', 'service'),
    },
  };
}

export async function mintKey(db: Db, user: User, environment: Environment, scopes: Scope[]): Promise<string> {
  return (await mintUserKey(db, { user, environment, kind: 'standard', name: 'scoped', scopes })).plaintext;
}

/**
 * Creates a line as a customer does and waits until it is `active`: under load the API may answer
 * before the number is provisioned (the line is then returned `provisioning`, spec "Line").
 */
export async function createActiveLine(
  h: Harness,
  key: string,
  body: Record<string, unknown>,
  timeoutMs = 60_000,
): Promise<{ id: string; status: string; phone_number: string; [field: string]: unknown }> {
  const created = await h.request('POST', '/api/v1/lines', { key, body });
  if (created.status !== 201) throw new Error(`line creation answered ${created.status}: ${created.text}`);
  if (created.body.line.status === 'active') return created.body.line;
  const id = created.body.line.id as string;
  return untilLineActive(h.temporal, id, async () => (await h.request('GET', `/api/v1/lines/${id}`, { key })).body.line, timeoutMs);
}

export const webhookLine = (overrides: Record<string, unknown> = {}) => ({
  name: 'Support line',
  mode: 'webhook',
  webhook_url: 'https://agent.example.test/hooks',
  ...overrides,
});

const noProcessor: PaymentProcessor = {
  async charge(): Promise<never> {
    throw new Error('this test worker has no card processor');
  },
  async lookUp(): Promise<never> {
    throw new Error('this test worker has no card processor');
  },
};

/** For workers in tests that never charge a card. */
/** A filesystem recordings store in a fresh temporary directory: for workers whose copies no test reads. */
export function scratchRecordingStore(): RecordingStore {
  return new FilesystemRecordingStore(fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-recordings-')));
}

export const noPayments: PaymentProcessors = { test: noProcessor, live: noProcessor };

/** For workers in tests that never take a hosted turn. */
export const noModel: ModelAdapter = {
  // eslint-disable-next-line require-yield
  async *streamReply(): AsyncIterable<string> {
    throw new Error('this test worker has no model');
  },
};
