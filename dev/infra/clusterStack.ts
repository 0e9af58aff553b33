import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createDb, migrateLatest } from '../../src/platform/db/knex';
import { createDatabaseIfMissing, ensurePostgres } from './postgres';
import { isExecutable, isRoot, run, spawnLogged, stopProcess, waitForHttpOk, waitForPort, which } from './proc';
import { spawnService } from './services';
import { prepareTemporalServer, startTemporalServer, type TemporalServer } from './temporalServer';
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
  /** A process ended that nobody asked to end. */
  onUnexpectedExit?: (service: string, reason: string) => void;
}

export interface ClusterService {
  readonly name: string;
  readonly child: ChildProcess;
  /** Kills the process with `signal` (SIGKILL: a crash) and waits for it to end; it stays down until `start()`. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again (after a kill) and waits until it listens. */
  start(): Promise<void>;
}

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
  let stopping = false;
  const stop = async () => {
    stopping = true;
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

    // 2. The Temporal server, its schema brought up to date first
    const temporalOptions = await prepareTemporalServer({
      toolCacheDir: opts.toolCacheDir,
      adminUrl,
      databases: { temporal: opts.databases.temporal, visibility: opts.databases.visibility },
      frontendPort: ports.temporal,
      configDir: path.join(opts.dataDir, 'temporal'),
      logFile: path.join(opts.logDir, 'temporal.log'),
      namespace: opts.env.TEMPORAL_NAMESPACE ?? 'default',
      log,
    });
    log(`starting the Temporal server ${temporalOptions.build.server}`);
    let server: TemporalServer = await startTemporalServer(temporalOptions);
    const temporalAddress = server.address;
    const services: ClusterService[] = [];
    const watch = (name: string, child: ChildProcess, expected: () => boolean) =>
      child.once('exit', (code, signal) => {
        if (!stopping && !expected()) opts.onUnexpectedExit?.(name, `${signal ?? code}`);
      });
    let temporalDown = false;
    watch('temporal', server.process, () => temporalDown);
    const temporal: ClusterService = {
      name: 'temporal',
      get child() {
        return server.process;
      },
      async kill(signal = 'SIGTERM') {
        temporalDown = true;
        await killAndWait(server.process, signal);
      },
      async start() {
        server = await startTemporalServer(temporalOptions);
        temporalDown = false;
        watch('temporal', server.process, () => temporalDown);
      },
    };
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
      let child: ChildProcess;
      let down = false;
      const spawn = async () => {
        const settings = { ...env, ...own, ...(port === undefined ? {} : { PORT: String(port) }) };
        child = spawnService(entry, settings, path.join(opts.logDir, `${name}.log`));
        down = false;
        watch(name, child, () => down);
        if (port !== undefined) await waitForPort('127.0.0.1', port, 60_000, child);
      };
      await spawn();
      const handle: ClusterService = {
        name,
        get child() {
          return child;
        },
        async kill(signal = 'SIGTERM') {
          down = true;
          await killAndWait(child, signal);
        },
        start: spawn,
      };
      stops.push(() => handle.kill());
      services.push(handle);
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
    const haproxy = spawnLogged(
      ensureHaproxy(log),
      ['-db', '-f', writeHaproxyConfig(path.join(opts.dataDir, 'haproxy.cfg'), ports.api, ports.apis)],
      path.join(opts.logDir, 'haproxy.log'),
    );
    watch('haproxy', haproxy, () => false);
    stops.push(() => stopProcess(haproxy));
    await waitForPort('127.0.0.1', ports.api, 30_000, haproxy);
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

async function killAndWait(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (signal === 'SIGTERM') return stopProcess(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** HAProxy from PATH or Debian's package (installed with apt-get when missing and running as root). */
export function ensureHaproxy(log: Log): string {
  const found = [which('haproxy'), '/usr/sbin/haproxy'].find((candidate) => candidate && isExecutable(candidate));
  if (found) return found;
  if (!isRoot()) throw new Error('HAProxy is missing and this user cannot install it: run `apt-get install haproxy` as root');
  log('installing HAProxy from Debian packages (apt-get install haproxy)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-q'], { env });
  run('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'haproxy'], { env });
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
