import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { aptInstall, isExecutable, isRoot, run, tryRun } from './proc';

/**
 * A project-owned PostgreSQL cluster for development and tests: installs Debian's
 * `postgresql` when no server binaries exist, initialises a data directory, starts
 * it on loopback and creates the database. DATABASE_URL bypasses all of this.
 */
export interface PostgresHandle {
  /** Connection URL of the server's maintenance database (`postgres`). */
  adminUrl: string;
  urlFor(database: string): string;
  /** True when this call started the server (so the caller should stop it). */
  startedHere: boolean;
  stop(): void;
  /**
   * Stops the server unless another run has a database on it: throwaway stacks (tests, benches) on the shared test
   * cluster, where a second `jest` may have found the server running and be using it.
   */
  stopUnlessShared(): Promise<void>;
}

const SUPERUSER = 'switchboard';

export function findPostgresBinDir(): string | undefined {
  const fromEnv = process.env.PG_BIN_DIR;
  if (fromEnv && isExecutable(path.join(fromEnv, 'pg_ctl'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => isExecutable(path.join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : undefined;
}

export async function installPostgres(log: (line: string) => void): Promise<string> {
  if (!isRoot()) {
    throw new Error(
      'PostgreSQL server binaries are missing and this user cannot install them: run `apt-get install postgresql` as root, or set DATABASE_URL',
    );
  }
  await aptInstall(['postgresql'], log);
  const bin = findPostgresBinDir();
  if (!bin) throw new Error('apt-get installed postgresql but no pg_ctl was found under /usr/lib/postgresql/*/bin');
  return bin;
}

/** The OS user that owns and runs the cluster: Postgres refuses to run as root. */
function clusterOwner(): string | undefined {
  if (!isRoot()) return undefined;
  if (!tryRun('id', ['-u', 'postgres']))
    run('useradd', ['--system', '--home-dir', '/var/lib/postgresql', '--shell', '/bin/bash', 'postgres']);
  return 'postgres';
}

/**
 * Running as root, the cluster belongs to `postgres`, which may not be able to reach the
 * requested directory (e.g. under /root). Then the cluster lives under Postgres's own home,
 * in a directory named after the requested path, so the same path always maps to the same cluster.
 */
function reachableDataDir(requested: string, owner: string | undefined, log: (line: string) => void): string {
  if (!owner) return requested;
  const existed = fs.existsSync(requested);
  fs.mkdirSync(requested, { recursive: true });
  run('chown', [`${owner}:`, requested]);
  if (tryRun('runuser', ['-u', owner, '--', 'test', '-w', requested])) return requested;
  if (!existed) fs.rmdirSync(requested);
  const id = crypto.createHash('sha256').update(path.resolve(requested)).digest('hex').slice(0, 12);
  const relocated = path.join('/var/lib/postgresql/switchboard', `${path.basename(requested)}-${id}`);
  fs.mkdirSync(path.dirname(relocated), { recursive: true });
  run('chown', [`${owner}:`, path.dirname(relocated)]);
  log(`${owner} cannot reach ${requested}; keeping the cluster in ${relocated}`);
  return relocated;
}

export async function ensurePostgres(opts: { dataDir: string; port: number; log: (line: string) => void }): Promise<PostgresHandle> {
  const { port, log } = opts;
  const binDir = findPostgresBinDir() ?? (await installPostgres(log));
  const owner = clusterOwner();
  const dataDir = reachableDataDir(opts.dataDir, owner, log);
  const pgCtl = path.join(binDir, 'pg_ctl');
  const adminUrl = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  const urlFor = (db: string) => `postgres://${SUPERUSER}@127.0.0.1:${port}/${db}`;

  fs.mkdirSync(dataDir, { recursive: true });
  if (owner) run('chown', ['-R', `${owner}:`, dataDir]);
  fs.chmodSync(dataDir, 0o700);

  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log(`initialising PostgreSQL cluster in ${dataDir}`);
    // Trust auth on loopback only: the cluster is a private dev/test instance owned by this project.
    run(path.join(binDir, 'initdb'), ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8'], {
      asUser: owner,
    });
  }

  const running = tryRunStatus(pgCtl, dataDir, owner);
  let startedHere = false;
  if (!running) {
    log(`starting PostgreSQL on 127.0.0.1:${port}`);
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${dataDir}' -c max_connections=200 -c fsync=off -c synchronous_commit=off`;
    run(pgCtl, ['-D', dataDir, '-l', path.join(dataDir, 'server.log'), '-o', options, '-w', '-t', '60', 'start'], { asUser: owner });
    startedHere = true;
  }
  await waitForDatabase(adminUrl, 30_000);
  return {
    adminUrl,
    urlFor,
    startedHere,
    stop() {
      tryRunAs(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', 'stop'], owner);
    },
    async stopUnlessShared() {
      // Another run (a second `jest`, a bench, `up`) may have found the cluster running and be using it: its
      // databases are still there. Stop only a cluster nobody else has a database on (leftovers keep it up).
      const others = await otherDatabases(adminUrl).catch(() => ['(unknown)']);
      if (others.length === 0) tryRunAs(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', 'stop'], owner);
      else log(`leaving PostgreSQL on 127.0.0.1:${port} running: other databases are on it (${others.slice(0, 3).join(', ')})`);
    },
  };
}

/** The databases on the cluster besides the built-in ones. */
async function otherDatabases(adminUrl: string): Promise<string[]> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      "select datname from pg_database where not datistemplate and datname <> 'postgres' order by datname",
    );
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

function tryRunStatus(pgCtl: string, dataDir: string, owner: string | undefined): boolean {
  return tryRunAs(pgCtl, ['-D', dataDir, 'status'], owner);
}

function tryRunAs(cmd: string, args: string[], owner: string | undefined): boolean {
  return owner ? tryRun('runuser', ['-u', owner, '--', cmd, ...args]) : tryRun(cmd, args);
}

async function waitForDatabase(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new Error(`PostgreSQL at ${url} did not accept connections: ${(err as Error).message}`, { cause: err });
      await new Promise((resolve) => setTimeout(resolve, 200)); // pacing: poll interval until the server accepts connections
    }
  }
}

export async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`refusing unusual database name ${database}`);
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const existing = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (existing.rowCount === 0) await client.query(`create database ${database}`);
  } finally {
    await client.end();
  }
}

/** A copy of `template` (already migrated) under `database`: much faster than migrating again. No one may be connected to `template`. */
export async function cloneDatabase(adminUrl: string, template: string, database: string): Promise<void> {
  for (const name of [template, database]) if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`refusing unusual database name ${name}`);
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database ${database} template ${template}`);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`refusing unusual database name ${database}`);
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists ${database} with (force)`);
  } finally {
    await client.end();
  }
}
