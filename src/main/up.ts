import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { CLUSTER_DATA_SUBDIR, DEV_SECRET_SETTINGS, DEV_SECRETS_FILE, loadConfig, SECRETS_KEY_FILE, type Config } from '../platform/config';
import { generateSecretsKey } from '../platform/crypto/secretBox';
import { createDb, migrateLatest, type Db } from '../platform/db/knex';
import { LOOPBACK_NETWORKS } from '../platform/net/egress';
import { BUILD_DIR_ENV } from '../platform/buildLayout';
import { startClusterStack } from '../../dev/infra/clusterStack';
import { createDatabaseIfMissing, ensurePostgres, type PostgresHandle } from '../../dev/infra/postgres';
import { canConnect, formatElapsed, waitForHttpOk, waitForPort } from '../../dev/infra/proc';
import { spawnService } from '../../dev/infra/services';
import { createSupervisor, type GiveUp, type Supervisor } from '../../dev/infra/supervisor';
import { PROVIDER_SETTINGS } from '../adapters/settings';
import { assertStartupConfiguration, type ProcessRole } from '../platform/startupCheck';
import { ensureTemporalCli, startDevServer } from '../../dev/infra/temporal';
import { createWorkspace, findUser } from '../domain/workspaces/service';
import { mintUserKey } from '../domain/keys/userKeys';

/**
 * `npm run up`: brings the whole service up on this machine (Postgres, Temporal dev server,
 * migrations, carrier simulator, worker, API), prints how to reach it and a working test key,
 * and stops everything it started on Ctrl-C. Data lives in .data/ and is reused next time. A child that exits
 * unexpectedly is started again after a growing delay; one that keeps failing stops everything, with its last log
 * lines (dev/infra/supervisor.ts, docs/decisions/operations.md "up supervises its children").
 * Everything runs in the dev profile (`SWITCHBOARD_PROFILE=dev`, loopback only) with secrets
 * generated once per data directory and kept with the data (mode 600).
 *
 * `npm run up -- --cluster`: the production topology instead (`startClusterStack`: the Temporal
 * server on Postgres, two APIs behind HAProxy, two workers), with its data in .data/cluster/.
 */
const DEV_KEY_NAME = 'dev key (npm run up)';
const log = (line: string) => console.log(`[up] ${line}`);

interface Up {
  config: Config;
  dataDir: string;
  logDir: string;
  cleanups: Array<() => Promise<void> | void>;
  /** Starts the children and restarts one that exits unexpectedly; shut down first when `up` stops. */
  supervisor: Supervisor;
  isStopping(): boolean;
  stopAll(code: number): Promise<void>;
}

/** What the summary names, whichever profile started. */
interface Started {
  apiUrl: string;
  db: Db;
  temporalUi: string;
  controlToken: string;
  logs: string[];
  temporalAddress: string;
  /** Where Prometheus scrapes the API and each worker (docs/operations.md). */
  metrics: string[];
  /** The codec endpoint (api/routes/temporalCodec.ts) and its bearer, for the `temporal` CLI. */
  codec: { endpoint: string; token: string };
}

async function main(): Promise<void> {
  const cluster = process.argv.slice(2).includes('--cluster');
  const config = loadConfig({ ...process.env, SWITCHBOARD_PROFILE: 'dev' });
  // The cluster keeps its own Postgres, secrets and Temporal data apart from the dev server's.
  const dataDir = cluster ? path.join(config.dataDir, CLUSTER_DATA_SUBDIR) : config.dataDir;
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const cleanups: Up['cleanups'] = [];
  let stopping = false;
  // Ends restarts before anything stops: on Ctrl-C the terminal signals the children too, and their exits are expected.
  const supervisor = createSupervisor({ log, onGiveUp: (failure) => gaveUp(up, failure) });
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    supervisor.shutdown();
    log('stopping...');
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (err) {
        log(`cleanup failed: ${(err as Error).message}`);
      }
    }
    log('stopped');
    process.exit(code);
  };
  process.once('SIGINT', () => void stopAll(0));
  process.once('SIGTERM', () => void stopAll(0));
  const up: Up = { config, dataDir, logDir, cleanups, supervisor, isStopping: () => stopping, stopAll };

  try {
    const started = cluster ? await upCluster(up) : await upDev(up);
    const { apiUrl } = started;

    // 5. A dev workspace and a fresh test key (plaintext keys are never stored, so each run mints one).
    const testKey = await devKey(started.db, path.join(dataDir, 'dev-workspace.json'));

    console.log(`
Switchboard is up${cluster ? ' (cluster: two APIs behind HAProxy, two workers, the Temporal server on Postgres)' : ''}.
  API            ${apiUrl}    (OpenAPI: ${apiUrl}/api/openapi.yaml)
  Portal         ${portalLine(config, apiUrl, logDir)}
  Temporal UI    ${started.temporalUi}
  Simulator      ${config.simulatorUrl}    (control API: docs/simulator.md)
  Control token  ${started.controlToken}    (Authorization: Bearer ... for the simulator's control API)
  Metrics        ${started.metrics.join('  ')}    (docs/operations.md)
  Payloads       encrypted in Temporal (TEMPORAL_PAYLOAD_KEY); decrypted views: the Temporal UI above, or
                 temporal workflow show -w <id> --address ${started.temporalAddress} --codec-endpoint ${started.codec.endpoint} --codec-auth "Bearer ${started.codec.token}"
  Logs           ${logDir}/{${started.logs.join(',')}}.log
  Test key       ${testKey}

Try:  curl -s ${apiUrl}/api/v1/lines -H "Authorization: Bearer ${testKey}"
Ctrl-C stops everything started here; data in ${dataDir} is kept for the next run.`);
  } catch (err) {
    console.error(`[up] failed: ${(err as Error).message}`);
    await stopAll(1);
  }
}

/**
 * Where a developer starts in the portal: the dev profile signs up in `open` mode (issue 27), and
 * without SMTP_URL the verification link is in the API's log; under `invite` only an invitation
 * (the CLI's `member invite`) lets someone in.
 */
function portalLine(config: Config, apiUrl: string, logDir: string): string {
  if (config.signupMode === 'invite')
    return `${apiUrl}/portal/login    (SIGNUP_MODE=invite: npm run cli -- member invite --workspace W --email E --role owner)`;
  const mail = config.smtpUrl ? 'mailed through SMTP_URL' : `written to ${path.join(logDir, 'api*.log')}`;
  return `${apiUrl}/portal/signup    (sign up; the verification link is ${mail})`;
}

/** The dev profile: Postgres, the Temporal dev server, one simulator, worker and API. */
async function upDev(up: Up): Promise<Started> {
  const { config, dataDir, logDir, cleanups, supervisor } = up;
  // 1. PostgreSQL (started by pg_ctl as a daemon, not a child of `up`: not supervised, see the decision)
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const pg: PostgresHandle = await ensurePostgres({
      dataDir: path.join(dataDir, 'postgres'),
      port: Number(process.env.PG_PORT ?? 54320),
      log,
    });
    if (pg.startedHere) cleanups.push(() => pg.stop());
    await createDatabaseIfMissing(pg.adminUrl, 'switchboard');
    databaseUrl = pg.urlFor('switchboard');
  }
  const db = createDb(databaseUrl, { max: 2 });
  cleanups.push(() => db.destroy());
  const applied = await migrateLatest(db);
  log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');

  // 2. Temporal; its UI decrypts payloads through the API's codec endpoint (the token is its last path segment).
  const apiUrl = `http://${config.host}:${config.port}`;
  const settings = serviceSettings(dataDir, apiUrl);
  const codecEndpoint = `${apiUrl}/temporal-codec`;
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  let uiUrl: string | undefined;
  if (!temporalAddress) {
    const port = Number(process.env.TEMPORAL_PORT ?? 7233);
    const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
    if (await canConnect('127.0.0.1', port)) {
      log(
        `reusing the Temporal server already listening on 127.0.0.1:${port} (its UI decrypts payloads only if started with --ui-codec-endpoint)`,
      );
    } else {
      const cli = ensureTemporalCli(config.toolCacheDir, log);
      log(`starting Temporal dev server (${cli})`);
      const logFile = path.join(logDir, 'temporal.log');
      // Restarted on the same file, it keeps every workflow (test/integration/devServerDurability.test.ts).
      const server = await supervisor.start({
        name: 'temporal',
        spawn: async () =>
          (
            await startDevServer({
              cli,
              port,
              uiPort,
              dbFile: path.join(dataDir, 'temporal.db'),
              logFile,
              uiCodecEndpoint: `${codecEndpoint}/${settings.TEMPORAL_CODEC_TOKEN}`,
              // The dev server has `default`; a TEMPORAL_NAMESPACE of the operator's is registered too, for the processes use it.
              namespaces: config.temporalNamespace === 'default' ? [] : [config.temporalNamespace],
            })
          ).process,
        logFile,
      });
      cleanups.push(() => server.kill());
    }
    temporalAddress = `127.0.0.1:${port}`;
    uiUrl = `http://127.0.0.1:${uiPort}`;
    // The browser calls the codec endpoint from the UI's origin, whichever name the operator typed.
    settings.TEMPORAL_CODEC_CORS_ORIGINS = process.env.TEMPORAL_CODEC_CORS_ORIGINS || [uiUrl, `http://localhost:${uiPort}`].join(',');
  }
  writeRuntime(dataDir, databaseUrl, temporalAddress);

  // 3. Secrets; 4. Simulator, worker, API
  const env: Record<string, string> = { ...settings, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress };
  // The portal links each call to its workflow in the dev server's UI (the environment's own TEMPORAL_UI_URL wins).
  const temporalUiUrl = process.env.TEMPORAL_UI_URL || uiUrl;
  if (temporalUiUrl) env.TEMPORAL_UI_URL = temporalUiUrl;
  checkSettings(env);
  const start = async (name: 'simulator' | 'worker' | 'api', port?: number): Promise<void> => {
    const logFile = path.join(logDir, `${name}.log`);
    const service = await supervisor.start({
      name,
      spawn: () => spawnService(name, env, logFile),
      ready: port === undefined ? undefined : (child) => waitForPort(config.host, port, 60_000, child),
      logFile,
    });
    cleanups.push(() => service.kill());
  };
  await start('simulator', Number(new URL(config.simulatorUrl).port));
  // The worker's /metrics on the port after the API's three (the cluster profile's first worker's).
  const workerMetricsPort = config.port + 3;
  env.WORKER_METRICS_PORT = String(workerMetricsPort);
  await start('worker');
  await start('api', config.port);
  await waitForHttpOk(`${apiUrl}/readyz`, 60_000);
  return {
    apiUrl,
    db,
    temporalUi: uiUrl ?? '(external Temporal: ' + temporalAddress + ')',
    controlToken: env.SIMULATOR_CONTROL_TOKEN,
    logs: ['api', 'worker', 'simulator', 'temporal'],
    metrics: [`${apiUrl}/metrics`, `http://${config.host}:${workerMetricsPort}/metrics`],
    temporalAddress,
    codec: { endpoint: codecEndpoint, token: env.TEMPORAL_CODEC_TOKEN },
  };
}

/**
 * The cluster profile (docs/decisions/operations.md "Cluster topology"): HAProxy on PORT, the APIs on the
 * next two ports, the workers' /metrics on the two after them, the Temporal server on
 * TEMPORAL_PORT and the nine after it, its own Postgres cluster on PG_PORT (default 54321)
 * unless DATABASE_URL names a server.
 */
async function upCluster(up: Up): Promise<Started> {
  const { config, dataDir, logDir, cleanups } = up;
  const apiUrl = `http://127.0.0.1:${config.port}`;
  const given = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL) : undefined;
  const app = given?.pathname.slice(1) || 'switchboard';
  const settings = serviceSettings(dataDir, apiUrl);
  const workerMetricsPorts: [number, number] = [config.port + 3, config.port + 4];
  const stack = await startClusterStack({
    dataDir,
    logDir,
    toolCacheDir: config.toolCacheDir,
    postgres: given
      ? { adminUrl: Object.assign(new URL(given), { pathname: '/postgres' }).toString() }
      : { port: Number(process.env.PG_PORT ?? 54321) },
    // Temporal's two databases are named after the application's, so several stacks can share one server.
    databases: { app, temporal: `${app}_temporal`, visibility: `${app}_temporal_visibility` },
    ports: {
      api: config.port,
      apis: [config.port + 1, config.port + 2],
      workerMetrics: workerMetricsPorts,
      simulator: Number(new URL(config.simulatorUrl).port),
      temporal: Number(process.env.TEMPORAL_PORT ?? 7233),
    },
    env: settings,
    log,
    beforeServices: checkSettings,
    supervisor: up.supervisor,
    // A production build named in the environment (the test suite's run build): its services run from it, as the image runs them.
    build: process.env[BUILD_DIR_ENV] || undefined,
  });
  cleanups.push(() => stack.stop());
  writeRuntime(dataDir, stack.databaseUrl, stack.temporalAddress);
  const db = createDb(stack.databaseUrl, { max: 2 });
  cleanups.push(() => db.destroy());
  return {
    apiUrl: stack.apiUrl,
    db,
    temporalUi: `none in the cluster profile (see README); use the temporal CLI: temporal workflow list --address ${stack.temporalAddress}`,
    controlToken: settings.SIMULATOR_CONTROL_TOKEN,
    logs: ['haproxy', 'api-1', 'api-2', 'worker-1', 'worker-2', 'simulator', 'temporal'],
    metrics: [...stack.apiUrls, ...workerMetricsPorts.map((port) => `http://127.0.0.1:${port}`)].map((origin) => `${origin}/metrics`),
    temporalAddress: stack.temporalAddress,
    // Behind HAProxy like the API: every API process serves it with the same key ring.
    codec: { endpoint: `${stack.apiUrl}/temporal-codec`, token: settings.TEMPORAL_CODEC_TOKEN },
  };
}

/** A child failed too often to keep restarting it: everything stops, and the operator reads which one and why. */
function gaveUp(up: Up, failure: GiveUp): void {
  if (up.isStopping()) return;
  const quoted = failure.lastLines.map((line) => `    ${line}`).join('\n');
  console.error(
    `[up] ${failure.name} failed ${failure.failures} times within ${formatElapsed(failure.windowMs)} ` +
      `(last: ${failure.reason}); stopping everything.` +
      (failure.logFile ? `\n[up] the last lines of ${failure.logFile}:\n${quoted || '    (empty)'}` : ''),
  );
  void up.stopAll(1);
}

/**
 * A process started on its own (the CLI, `npm run worker`) finds these and the dev secrets beside them (loadConfig):
 * the running `up`'s (the pid says which runs), the dev profile's or the cluster's.
 */
function writeRuntime(dataDir: string, databaseUrl: string, temporalAddress: string): void {
  const file = path.join(dataDir, 'runtime.json');
  fs.writeFileSync(file, JSON.stringify({ databaseUrl, temporalAddress, profile: 'dev', pid: process.pid }, null, 2), { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

/** Every process's settings but where Postgres and Temporal are: secrets generated once, kept (mode 600) with the data they protect; the environment wins. */
function serviceSettings(dataDir: string, apiUrl: string): Record<string, string> {
  const secretsKey = process.env.SECRETS_KEY ?? readOrCreateSecretsKey(path.join(dataDir, SECRETS_KEY_FILE));
  const devSecrets = readOrCreateDevSecrets(path.join(dataDir, DEV_SECRETS_FILE));
  return {
    SWITCHBOARD_PROFILE: 'dev',
    SECRETS_KEY: secretsKey,
    ...Object.fromEntries(DEV_SECRET_SETTINGS.map((name) => [name, process.env[name] || devSecrets[name]])),
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL || apiUrl,
    SIMULATOR_CALLBACK_BASE_URL: process.env.SIMULATOR_CALLBACK_BASE_URL || process.env.PUBLIC_BASE_URL || apiUrl,
    // Loopback development: webhook receivers on this machine are admitted (never in production by default).
    OUTBOUND_ALLOWED_NETWORKS: process.env.OUTBOUND_ALLOWED_NETWORKS ?? LOOPBACK_NETWORKS.join(','),
  };
}

/** The same check each process makes at start, once for all of them before anything starts. */
function checkSettings(env: Record<string, string>): void {
  const childConfig = loadConfig({ ...process.env, ...env });
  for (const role of ['simulator', 'worker', 'api'] satisfies ProcessRole[]) {
    for (const warning of assertStartupConfiguration(role, childConfig, PROVIDER_SETTINGS))
      log(`warning (${role}): ${warning.setting} ${warning.message}`);
  }
}

/** The dev profile's carrier, processor and simulator secrets: 32 random bytes each, made once per data directory. */
function readOrCreateDevSecrets(file: string): Record<string, string> {
  let secrets: Record<string, string>;
  try {
    secrets = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    secrets = {};
  }
  const missing = DEV_SECRET_SETTINGS.filter((name) => typeof secrets[name] !== 'string' || secrets[name] === '');
  if (missing.length > 0) {
    for (const name of missing) secrets[name] = crypto.randomBytes(32).toString('hex');
    fs.writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    log(`generated ${missing.join(', ')} in ${file}`);
  }
  return secrets;
}

function readOrCreateSecretsKey(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const key = generateSecretsKey();
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  log(`generated the secrets key in ${file}`);
  return key;
}

async function devKey(db: ReturnType<typeof createDb>, stateFile: string): Promise<string> {
  let state: { workspace_id: string; user_id: string } | undefined;
  try {
    state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  } catch {
    state = undefined;
  }
  let owner = state ? await findUser(db, state.user_id) : undefined;
  if (!owner) {
    const created = await createWorkspace(db, { name: 'Dev workspace', ownerEmail: `dev+${Date.now()}@switchboard.local` });
    owner = created.owner;
    fs.writeFileSync(stateFile, JSON.stringify({ workspace_id: created.workspace.id, user_id: owner.id }, null, 2));
    log(`created dev workspace ${created.workspace.id}`);
  }
  // The previous run's key was printed once and is now replaced. The database announces the revocation (migration
  // 0061), so an API instance already running refuses it at once.
  await db('api_keys').where({ user_id: owner.id, name: DEV_KEY_NAME }).whereNull('revoked_at').update({ revoked_at: new Date() });
  const minted = await mintUserKey(db, { user: owner, environment: 'test', kind: 'standard', name: DEV_KEY_NAME });
  return minted.plaintext;
}

void main();
