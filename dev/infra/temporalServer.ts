import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import YAML from 'yaml';
import {
  canConnect,
  isExecutable,
  run,
  runAsync,
  runWithProgress,
  spawnLogged,
  withProgress,
  stopProcess,
  waitForPort,
  which,
} from './proc';
import type { Log } from './toolVenv';

/**
 * The official Temporal server (frontend, history, matching and worker services in one process)
 * on Postgres, for the cluster profile (`npm run up -- --cluster`, docs/decisions/operations.md "Cluster
 * topology"). It is built from its Go module through the Go module proxy, once, into the tool
 * cache (`<tool cache>/go`); its schema is set up and upgraded by its own sql tool on every start.
 */
export const TEMPORAL_SERVER_VERSION = 'v1.30.9';
const SERVER_MODULE = 'go.temporal.io/server';
/** The toolchain the server's go.mod asks for (`GOTOOLCHAIN=auto` fetches it); fetched by hand only when no `go` exists at all. */
const GO_TOOLCHAIN = 'go1.26.11';

export interface TemporalServerBuild {
  server: string;
  sqlTool: string;
  /** The server's module source (schema and sample configs), in the cache's Go module cache. */
  moduleDir: string;
}

export function goCacheDir(toolCacheDir: string): string {
  return path.join(toolCacheDir, 'go');
}

/**
 * The environment of a `go install` into the tool cache's Go directory `root`, binaries into `gobin`: the module and
 * build caches stay in the tool cache, the toolchain a module asks for is fetched, and nothing links C.
 */
export function goInstallEnv(root: string, gobin: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GOTOOLCHAIN: 'auto',
    GOMODCACHE: path.join(root, 'mod'),
    GOCACHE: path.join(root, 'gocache'),
    GOPATH: path.join(root, 'gopath'),
    GOBIN: gobin,
    GOFLAGS: '-buildvcs=false',
    CGO_ENABLED: '0',
  };
}

function buildPaths(toolCacheDir: string): TemporalServerBuild & { binDir: string } {
  const root = goCacheDir(toolCacheDir);
  const binDir = path.join(root, `temporal-${TEMPORAL_SERVER_VERSION}`);
  return {
    binDir,
    server: path.join(binDir, 'server'),
    sqlTool: path.join(binDir, 'sql'),
    moduleDir: path.join(root, 'mod', `${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`),
  };
}

/** The cached build, or undefined when it is not (completely) there. */
export function cachedTemporalServerBuild(toolCacheDir: string): TemporalServerBuild | undefined {
  const { binDir: _binDir, ...build } = buildPaths(toolCacheDir);
  const complete = isExecutable(build.server) && isExecutable(build.sqlTool) && fs.existsSync(path.join(build.moduleDir, 'schema'));
  return complete ? build : undefined;
}

/** The cached build, building it first when missing (about 4 minutes on 2 cores; never blocks the event loop). */
export async function ensureTemporalServerBuild(toolCacheDir: string, log: Log): Promise<TemporalServerBuild> {
  const cached = cachedTemporalServerBuild(toolCacheDir);
  if (cached) return cached;
  const root = goCacheDir(toolCacheDir);
  const { binDir, ...build } = buildPaths(toolCacheDir);
  fs.mkdirSync(root, { recursive: true });
  const go = await findOrFetchGo(root, log);
  // Built next to the final directory and renamed into place, so an interrupted build is never mistaken for a finished one.
  const partial = `${binDir}.partial-${process.pid}`;
  log(`the Temporal server ${TEMPORAL_SERVER_VERSION} is built once into ${binDir} (about 4 minutes on 2 cores)`);
  await runWithProgress(
    `building the Temporal server ${TEMPORAL_SERVER_VERSION} and its sql tool (go install)`,
    log,
    go,
    ['install', `${SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`, `${SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`],
    { env: goInstallEnv(root, partial) },
  );
  fs.rmSync(binDir, { recursive: true, force: true });
  fs.renameSync(partial, binDir);
  return build;
}

/** `go` on PATH or in /usr/local/go, else the toolchain fetched into the cache. */
export async function findOrFetchGo(root: string, log: Log): Promise<string> {
  const found = [which('go'), '/usr/local/go/bin/go'].find((candidate) => candidate && isExecutable(candidate));
  return found ?? fetchGoToolchain(root, log);
}

/** The Go toolchain zip from the Go module proxy (`GOPROXY`'s first URL, else proxy.golang.org), unpacked under `root`. */
export async function fetchGoToolchain(root: string, log: Log): Promise<string> {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string];
  if (!arch || process.platform !== 'linux') throw new Error(`no Go toolchain for ${process.platform}/${process.arch}: install Go 1.26`);
  const name = `v0.0.1-${GO_TOOLCHAIN}.linux-${arch}`;
  const dir = path.join(root, 'toolchain', `golang.org/toolchain@${name}`);
  const go = path.join(dir, 'bin', 'go');
  if (isExecutable(go)) return go;
  const proxy = (process.env.GOPROXY ?? '').split(/[,|]/).find((entry) => /^https?:\/\//.test(entry)) ?? 'https://proxy.golang.org';
  const url = `${proxy.replace(/\/+$/, '')}/golang.org/toolchain/@v/${name}.zip`;
  log(`no go found: fetching the Go toolchain from ${url}`);
  const body = await withProgress(`downloading the Go toolchain ${GO_TOOLCHAIN}`, log, async () => {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  });
  fs.mkdirSync(root, { recursive: true });
  const zip = path.join(root, `${name}.zip`);
  fs.writeFileSync(zip, body);
  const python = which('python3');
  if (!python) throw new Error('unpacking the Go toolchain needs python3');
  run(python, ['-m', 'zipfile', '-e', zip, path.join(root, 'toolchain')]);
  fs.rmSync(zip);
  // zipfile drops the mode bits: the toolchain's programs are under bin/ and pkg/tool/.
  for (const sub of ['bin', 'pkg/tool']) run('chmod', ['-R', 'a+x', path.join(dir, sub)]);
  return go;
}

export interface TemporalPostgres {
  host: string;
  port: number;
  user: string;
  /** The server's own database and its visibility database. */
  databases: { temporal: string; visibility: string };
}

/** Creates both databases when missing and brings their schema to the build's latest version (idempotent). */
export async function setupTemporalSchema(build: TemporalServerBuild, pg: TemporalPostgres): Promise<void> {
  const kinds = [
    ['temporal', pg.databases.temporal],
    ['visibility', pg.databases.visibility],
  ] as const;
  for (const [kind, database] of kinds) {
    const base = ['--plugin', 'postgres12', '--endpoint', pg.host, '--port', String(pg.port), '--user', pg.user, '--password', ''];
    const sql = (...args: string[]) => runAsync(build.sqlTool, [...base, '--database', database, ...args]);
    await sql('create-database');
    await sql('setup-schema', '-v', '0.0');
    await sql('update-schema', '-d', path.join(build.moduleDir, 'schema', 'postgresql', 'v12', kind, 'versioned'));
  }
}

/** The highest membership port the server can record: its Postgres schema keeps it in a `smallint`. */
const MAX_MEMBERSHIP_PORT = 32_767;

/** How many consecutive ports the server takes, from the frontend's (`temporalServerPorts`). */
export const TEMPORAL_SERVER_PORT_COUNT = 10;

/** The server's ports, consecutive from the frontend's gRPC port. */
export function temporalServerPorts(frontend: number) {
  if (frontend + 7 > MAX_MEMBERSHIP_PORT)
    throw new Error(
      `the Temporal server's ports must stay below ${MAX_MEMBERSHIP_PORT + 1} (its schema stores them as smallint): got ${frontend}`,
    );
  return {
    frontend,
    history: frontend + 1,
    matching: frontend + 2,
    worker: frontend + 3,
    membership: { frontend: frontend + 4, history: frontend + 5, matching: frontend + 6, worker: frontend + 7 },
    http: frontend + 8,
    metrics: frontend + 9,
  };
}

/**
 * The server's configuration: the module's `config/development-postgres12.yaml` with our
 * Postgres, our ports (all on loopback), warn-level logs, and archival, pprof and the dynamic
 * config file removed (nothing here uses them).
 */
export function temporalServerConfig(build: TemporalServerBuild, pg: TemporalPostgres, frontendPort: number): string {
  const doc = YAML.parse(fs.readFileSync(path.join(build.moduleDir, 'config', 'development-postgres12.yaml'), 'utf8'));
  const ports = temporalServerPorts(frontendPort);
  doc.log = { stdout: true, level: 'warn' };
  const stores = doc.persistence.datastores;
  for (const [store, database] of [
    ['postgres-default', pg.databases.temporal],
    ['postgres-visibility', pg.databases.visibility],
  ] as const) {
    Object.assign(stores[store].sql, { databaseName: database, connectAddr: `${pg.host}:${pg.port}`, user: pg.user, password: '' });
  }
  delete doc.global.pprof;
  doc.global.metrics.prometheus.listenAddress = `127.0.0.1:${ports.metrics}`;
  for (const service of ['frontend', 'history', 'matching', 'worker'] as const) {
    Object.assign(doc.services[service].rpc, {
      grpcPort: ports[service],
      membershipPort: ports.membership[service],
      bindOnLocalHost: true,
    });
  }
  doc.services.frontend.rpc.httpPort = ports.http;
  doc.clusterMetadata.clusterInformation.active.rpcAddress = `127.0.0.1:${ports.frontend}`;
  delete doc.archival;
  delete doc.namespaceDefaults;
  delete doc.dynamicConfigClient;
  return YAML.stringify(doc);
}

export interface TemporalServer {
  address: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `server start` with the given config and waits until the `namespace` exists and answers. */
export async function startTemporalServer(opts: {
  build: TemporalServerBuild;
  configFile: string;
  frontendPort: number;
  logFile: string;
  namespace: string;
}): Promise<TemporalServer> {
  // Otherwise the wait below would take another server (a dev server on 7233) for this one.
  if (await canConnect('127.0.0.1', opts.frontendPort))
    throw new Error(`port ${opts.frontendPort} is in use: the Temporal server needs it`);
  const child = spawnLogged(opts.build.server, ['--config-file', opts.configFile, '--allow-no-auth', 'start'], opts.logFile);
  const address = `127.0.0.1:${opts.frontendPort}`;
  try {
    await waitForPort('127.0.0.1', opts.frontendPort, 120_000, child);
    await ensureNamespace(address, opts.namespace, child);
  } catch (err) {
    await stopProcess(child);
    throw err;
  }
  return { address, process: child, stop: () => stopProcess(child) };
}

/**
 * Registers the namespace (a fresh server has none), retrying while the services join their ring, until it can be used.
 * `child`: the server's process when started here (its exit ends the wait).
 */
export async function ensureNamespace(address: string, namespace: string, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + 180_000;
  const failed = async (err: unknown, what: string) => {
    if (child && child.exitCode !== null) throw new Error(`the Temporal server exited with ${child.exitCode}`, { cause: err });
    if (Date.now() > deadline) throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
    await new Promise((resolve) => setTimeout(resolve, 500)); // pacing: retry interval while the server's services join
  };
  // The frontend's port opens before it answers: connecting fails until then.
  let connection: Connection | undefined;
  while (!connection) {
    try {
      connection = await Connection.connect({ address, connectTimeout: '5s' });
    } catch (err) {
      await failed(err, `the Temporal server at ${address} did not answer`);
    }
  }
  try {
    for (;;) {
      try {
        // Through the frontend's namespace cache, which learns a new namespace some seconds after it is registered.
        await connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
        return;
      } catch {
        try {
          // Retention of closed workflows' histories: docs/decisions/operations.md "Cluster topology".
          await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') });
        } catch (err) {
          await failed(err, `namespace ${namespace} could not be registered`);
        }
      }
    }
  } finally {
    await connection.close();
  }
}

export type TemporalServerStart = Parameters<typeof startTemporalServer>[0];

/**
 * Everything before `startTemporalServer` (the build, found or made; both databases and their schema on the Postgres
 * server `adminUrl` names; the config file in `configDir`): the options to start it with, and to start it again.
 */
export async function prepareTemporalServer(opts: {
  toolCacheDir: string;
  adminUrl: string;
  databases: TemporalPostgres['databases'];
  frontendPort: number;
  configDir: string;
  logFile: string;
  namespace: string;
  log: Log;
}): Promise<TemporalServerStart> {
  const build = await ensureTemporalServerBuild(opts.toolCacheDir, opts.log);
  const admin = new URL(opts.adminUrl);
  const pg = {
    host: admin.hostname,
    port: Number(admin.port || 5432),
    user: decodeURIComponent(admin.username),
    databases: opts.databases,
  };
  opts.log('setting up the Temporal schema (temporal sql tool)');
  await setupTemporalSchema(build, pg);
  return {
    build,
    configFile: writeTemporalServerConfig(path.join(opts.configDir, 'config.yaml'), temporalServerConfig(build, pg, opts.frontendPort)),
    frontendPort: opts.frontendPort,
    logFile: opts.logFile,
    namespace: opts.namespace,
  };
}

/** Writes the config where the server reads it (returns the file). */
export function writeTemporalServerConfig(file: string, yaml: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, yaml);
  return file;
}
