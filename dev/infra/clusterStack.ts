import fs from 'node:fs';
import path from 'node:path';
import { createDb, migrateLatest } from '../../src/platform/db/knex';
import { createDatabaseIfMissing, ensurePostgres } from './postgres';
import { aptInstall, isExecutable, isRoot, spawnLogged, waitForHttpOk, waitForPort, which } from './proc';
import { spawnService } from './services';
import { createSupervisor, RESTART_POLICY, type SupervisedChild, type Supervisor } from './supervisor';
import { prepareTemporalServer, startTemporalServer } from './temporalServer';
import type { Log } from './toolVenv';

/**
 * The production topology on one machine (`npm run up -- --cluster`, docs/decisions/operations.md "Cluster
 * topology"): Postgres; the Temporal server (all four services in one process) on it; the carrier
 * simulator; two workers on one task queue; two APIs behind HAProxy, which checks each one's
 * /readyz. Every process is a child of the caller; `stop()` ends them in reverse order.
 */
export interface ClusterStackOptions {
  /** Where the stack keeps what it makes: its Postgres cluster (when it starts one) and the server's config. */
  dataDir: string;
  logDir: string;
  toolCacheDir: string;
  /** A running server's maintenance database URL, or the port of the project's own cluster started in `dataDir/postgres`. */
  postgres: { adminUrl: string } | { port: number };
  databases: { app: string; temporal: string; visibility: string };
  /**
   * `api`: the load balancer's; `apis`: one each; `temporal`: the first of ten consecutive ports (`temporalServerPorts`);
   * `workerMetrics`: each worker's `GET /metrics` (`WORKER_METRICS_PORT`; none when omitted).
   */
  ports: { api: number; apis: [number, number]; simulator: number; temporal: number; workerMetrics?: [number, number] };
  /** Settings every process gets (profile, secrets, PUBLIC_BASE_URL...); the stack adds where everything is. */
  env: Record<string, string>;
  log: Log;
  /** Called with every process's settings before the first one starts (e.g. to check them once); throwing stops the stack. */
  beforeServices?: (env: Record<string, string>) => void;
  /**
   * Starts every process under this supervisor (`npm run up -- --cluster`'s, dev/infra/supervisor.ts), which restarts
   * one that exits unexpectedly. Without it nothing restarts: `onUnexpectedExit` hears of the first unexpected exit.
   */
  supervisor?: Supervisor;
  /**
   * A production build's root (`npm run build`): the simulator, workers and APIs run its JavaScript with plain node, as
   * the image runs them. Without it, the sources under tsx.
   */
  build?: string;
  /** Without `supervisor`: a process ended that nobody asked to end (it stays down). */
  onUnexpectedExit?: (service: string, reason: string) => void;
}

/**
 * One process of the stack: `kill(signal)` (SIGKILL: a crash) waits for it to end and keeps it down until `start()`,
 * which starts it again and waits until it listens; neither triggers a restart.
 */
export type ClusterService = SupervisedChild;

export interface ClusterStack {
  databaseUrl: string;
  temporalAddress: string;
  /** The load balancer: what clients and the carrier use. */
  apiUrl: string;
  /** Each API process directly. */
  apiUrls: [string, string];
  simulatorUrl: string;
  apis: [ClusterService, ClusterService];
  workers: [ClusterService, ClusterService];
  simulator: ClusterService;
  temporal: ClusterService;
  stop(): Promise<void>;
}

export async function startClusterStack(opts: ClusterStackOptions): Promise<ClusterStack> {
  const { log, ports } = opts;
  const stops: Array<() => Promise<void> | void> = [];
  // Without a supervisor of the caller's, the first failure gives up (no restart) and is reported.
  const supervisor =
    opts.supervisor ??
    createSupervisor({
      log,
      policy: { ...RESTART_POLICY, maxFailures: 1 },
      onGiveUp: (failure) => opts.onUnexpectedExit?.(failure.name, failure.reason),
    });
  const stop = async () => {
    supervisor.shutdown();
    for (const step of stops.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        log(`stopping failed: ${(err as Error).message}`);
      }
    }
  };
  try {
    fs.mkdirSync(opts.logDir, { recursive: true });
    // 1. Postgres, the application's schema
    let adminUrl: string;
    if ('adminUrl' in opts.postgres) adminUrl = opts.postgres.adminUrl;
    else {
      const pg = await ensurePostgres({ dataDir: path.join(opts.dataDir, 'postgres'), port: opts.postgres.port, log });
      if (pg.startedHere) stops.push(() => pg.stop());
      adminUrl = pg.adminUrl;
    }
    const urlOf = (database: string) => Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();
    await createDatabaseIfMissing(adminUrl, opts.databases.app);
    const databaseUrl = urlOf(opts.databases.app);
    const db = createDb(databaseUrl, { max: 1 });
    try {
      const applied = await migrateLatest(db);
      log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
    } finally {
      await db.destroy();
    }

    // 2. The Temporal server, its schema brought up to date first; the namespace it registers is the one every
    // service is given below (an inherited TEMPORAL_NAMESPACE, e.g. a test worker's own, must not leak into them).
    const namespace = opts.env.TEMPORAL_NAMESPACE ?? 'default';
    const temporalOptions = await prepareTemporalServer({
      toolCacheDir: opts.toolCacheDir,
      adminUrl,
      databases: { temporal: opts.databases.temporal, visibility: opts.databases.visibility },
      frontendPort: ports.temporal,
      configDir: path.join(opts.dataDir, 'temporal'),
      logFile: path.join(opts.logDir, 'temporal.log'),
      namespace,
      log,
    });
    log(`starting the Temporal server ${temporalOptions.build.server}`);
    const temporalAddress = `127.0.0.1:${temporalOptions.frontendPort}`;
    const temporal = await supervisor.start({
      name: 'temporal',
      spawn: async () => (await startTemporalServer(temporalOptions)).process,
      logFile: temporalOptions.logFile,
    });
    stops.push(() => temporal.kill());

    // 3. Simulator, workers, APIs, load balancer
    const apiUrl = `http://127.0.0.1:${ports.api}`;
    const simulatorUrl = `http://127.0.0.1:${ports.simulator}`;
    const env: Record<string, string> = {
      PUBLIC_BASE_URL: apiUrl,
      SIMULATOR_CALLBACK_BASE_URL: opts.env.PUBLIC_BASE_URL ?? apiUrl,
      ...opts.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: namespace,
      SIMULATOR_URL: simulatorUrl,
      HOST: '127.0.0.1',
    };
    opts.beforeServices?.(env);
    const service = async (
      entry: 'api' | 'worker' | 'simulator',
      name: string,
      port?: number,
      own: Record<string, string> = {},
    ): Promise<ClusterService> => {
      const settings = { ...env, ...own, ...(port === undefined ? {} : { PORT: String(port) }) };
      const logFile = path.join(opts.logDir, `${name}.log`);
      const handle = await supervisor.start({
        name,
        spawn: () => spawnService(entry, settings, logFile, { build: opts.build }),
        ready: port === undefined ? undefined : (child) => waitForPort('127.0.0.1', port, 60_000, child),
        logFile,
      });
      stops.push(() => handle.kill());
      return handle;
    };
    const simulator = await service('simulator', 'simulator', ports.simulator);
    const metricsOf = (i: number): Record<string, string> =>
      ports.workerMetrics ? { WORKER_METRICS_PORT: String(ports.workerMetrics[i]) } : {};
    const workers: [ClusterService, ClusterService] = [
      await service('worker', 'worker-1', undefined, metricsOf(0)),
      await service('worker', 'worker-2', undefined, metricsOf(1)),
    ];
    const apis: [ClusterService, ClusterService] = [
      await service('api', 'api-1', ports.apis[0]),
      await service('api', 'api-2', ports.apis[1]),
    ];
    const haproxyBin = await ensureHaproxy(log);
    const haproxyConfigFile = writeHaproxyConfig(path.join(opts.dataDir, 'haproxy.cfg'), ports.api, ports.apis);
    const haproxyLog = path.join(opts.logDir, 'haproxy.log');
    const haproxy = await supervisor.start({
      name: 'haproxy',
      spawn: () => spawnLogged(haproxyBin, ['-db', '-f', haproxyConfigFile], haproxyLog),
      ready: (child) => waitForPort('127.0.0.1', ports.api, 30_000, child),
      logFile: haproxyLog,
    });
    stops.push(() => haproxy.kill());
    await waitForHttpOk(`${apiUrl}/readyz`, 60_000);

    return {
      databaseUrl,
      temporalAddress,
      apiUrl,
      apiUrls: [`http://127.0.0.1:${ports.apis[0]}`, `http://127.0.0.1:${ports.apis[1]}`],
      simulatorUrl,
      apis,
      workers,
      simulator,
      temporal,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** HAProxy from PATH or Debian's package (installed with apt-get when missing and running as root). */
export async function ensureHaproxy(log: Log): Promise<string> {
  const found = [which('haproxy'), '/usr/sbin/haproxy'].find((candidate) => candidate && isExecutable(candidate));
  if (found) return found;
  if (!isRoot()) throw new Error('HAProxy is missing and this user cannot install it: run `apt-get install haproxy` as root');
  await aptInstall(['haproxy'], log);
  if (!isExecutable('/usr/sbin/haproxy')) throw new Error('apt-get installed haproxy but /usr/sbin/haproxy is missing');
  return '/usr/sbin/haproxy';
}

/**
 * Round robin over the two APIs; an API leaves the rotation after two failed /readyz checks a
 * second apart, and a request whose connection is refused is sent to the other one (a refused
 * connection never reached an API, so resending is safe). Timeouts outlast the API's longest
 * answer (an NDJSON stream, NDJSON_TOTAL_BUDGET_MS 300 s).
 */
export function haproxyConfig(port: number, apis: readonly number[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 330s',
    '  timeout server 330s',
    '  retries 3',
    '  option redispatch 1',
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  default_backend apis',
    'backend apis',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  default-server inter 1s fall 2 rise 1',
    ...apis.map((api, i) => `  server api-${i + 1} 127.0.0.1:${api} check`),
    '',
  ].join('\n');
}

function writeHaproxyConfig(file: string, port: number, apis: readonly number[]): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, haproxyConfig(port, apis));
  return file;
}
