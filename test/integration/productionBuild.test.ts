import crypto from 'node:crypto';
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnService } from '../../dev/infra/services';
import { createDatabaseIfMissing, dropDatabase } from '../../dev/infra/postgres';
import { stopProcess } from '../../dev/infra/proc';
import { BUILD_ENTRY_POINTS, WORKFLOW_BUNDLE_FILE } from '../../src/platform/buildLayout';
import { projectRoot } from '../../src/platform/config';
import { freePort } from '../../src/platform/net/freePort';
import { createTenant, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';
import { eventually } from '../support/eventually';
import { BUILD_DIR_ENV } from '../support/workflowBundle';

/**
 * The production build (`npm run build`, made once per run by the global setup into a folder beside a link to
 * node_modules, as the image has /app/dist beside /app/node_modules) runs with plain node, no tsx (issue 33): the CLI
 * migrates an empty database, the API answers /readyz and takes a line, the worker starts from the bundle beside it
 * and runs the line's workflow, the MCP stdio entry relays to that API, the simulator listens. test/unit/dockerfile.test.ts checks that the image runs this
 * build; test/workflows/replay.test.ts replays the recorded histories against its bundle.
 */
describe('production build', () => {
  const { h } = useSuite({ tenant: 'none' });
  const build = process.env[BUILD_DIR_ENV]!;
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-build-run-'));
  const children: ChildProcess[] = [];
  const started = (child: ChildProcess) => (children.push(child), child);
  /** The build's API (started by the API and worker test) and a test key of a workspace of its own. */
  let builtApi: { url: string; key: string } | undefined;

  afterAll(async () => {
    for (const child of children) await stopProcess(child, 5_000);
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  it('holds every entry point, its assets and the workflow bundle; what they load needs production dependencies only', () => {
    for (const entry of Object.values(BUILD_ENTRY_POINTS))
      expect({ entry, built: fs.existsSync(path.join(build, entry)) }).toEqual({ entry, built: true });
    expect(fs.existsSync(path.join(build, WORKFLOW_BUNDLE_FILE))).toBe(true);
    expect(fs.existsSync(path.join(build, 'api/portal/assets/portal.css'))).toBe(true);
    const { dependencies } = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const packages = packagesLoadedBy(Object.values(BUILD_ENTRY_POINTS).map((entry) => path.join(build, entry)));
    expect(packages.size).toBeGreaterThan(10);
    expect([...packages].filter((name) => !(name in dependencies)).sort()).toEqual([]);
    expect(packages.has('tsx')).toBe(false);
  });

  it('migrates an empty database with the CLI', async () => {
    const server = new URL(process.env.DATABASE_URL!);
    const adminUrl = Object.assign(new URL(server), { pathname: '/postgres' }).toString();
    const database = `switchboard_build_${crypto.randomBytes(4).toString('hex')}`;
    await createDatabaseIfMissing(adminUrl, database);
    try {
      const databaseUrl = Object.assign(new URL(server), { pathname: `/${database}` }).toString();
      const migrate = () =>
        spawnSync(process.execPath, [path.join(build, BUILD_ENTRY_POINTS.cli), 'migrate', '--json'], {
          cwd: os.tmpdir(),
          env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
          encoding: 'utf8',
          timeout: 120_000,
        });
      const first = migrate();
      expect({ status: first.status, stderr: first.stderr }).toEqual({ status: 0, stderr: '' });
      expect((JSON.parse(first.stdout) as { applied: string[] }).applied.length).toBeGreaterThan(40);
      const again = migrate();
      expect(JSON.parse(again.stdout)).toEqual({ applied: [] });
    } finally {
      await dropDatabase(adminUrl, database);
    }
  }, 120_000);

  it("runs the API and the worker from the build: the worker loads the bundle beside it and runs a line's workflow", async () => {
    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const apiLog = path.join(logDir, 'api.log');
    const workerLog = path.join(logDir, 'worker.log');
    const api = started(h.spawnApiProcess(apiLog, port, {}, { build }));
    // No WORKFLOW_BUNDLE_PATH: the compiled worker finds the build's bundle itself.
    const worker = started(h.spawnWorkerProcess(workerLog, { WORKFLOW_BUNDLE_PATH: '' }, { build }));
    await eventually(
      async () => {
        if (api.exitCode !== null) throw new Error(`the API exited (${api.exitCode}): ${fs.readFileSync(apiLog, 'utf8').slice(-2000)}`);
        return fetch(`${apiUrl}/readyz`).then(
          (response) => (response.ok ? true : undefined),
          () => undefined,
        );
      },
      60_000,
      "the build's API to answer /readyz",
    );
    const tenant = await createTenant(h.db);
    builtApi = { url: apiUrl, key: tenant.keys.test };
    const request = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${apiUrl}${route}`, {
        method,
        headers: { authorization: `Bearer ${tenant.keys.test}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { line: { id: string; status: string } } };
    };
    const created = await request('POST', '/api/v1/lines', webhookLine());
    expect(created.status).toBe(201);
    const line = await eventually(
      async () => {
        if (worker.exitCode !== null)
          throw new Error(`the worker exited (${worker.exitCode}): ${fs.readFileSync(workerLog, 'utf8').slice(-2000)}`);
        const got = await request('GET', `/api/v1/lines/${created.body.line.id}`);
        return got.body.line.status === 'active' ? got.body.line : undefined;
      },
      90_000,
      "the line to become active through the build's worker",
    );
    expect(line.status).toBe('active');
    const bundleLine = logLines(workerLog).find((entry) => entry.workflow_bundle !== undefined);
    expect(bundleLine).toMatchObject({ workflow_bundle: 'prebuilt', path: path.join(build, WORKFLOW_BUNDLE_FILE) });
  }, 180_000);

  it("relays MCP over stdio from the build's entry point to the build's API", async () => {
    if (!builtApi) throw new Error("this test relays to the build's API, which the previous test starts");
    const { url, key } = builtApi;
    const client = new Client({ name: 'switchboard-build-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(build, BUILD_ENTRY_POINTS.mcp)],
        cwd: os.tmpdir(),
        env: { PATH: process.env.PATH ?? '', SWITCHBOARD_API_KEY: key, SWITCHBOARD_URL: url },
        stderr: 'pipe',
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['list_lines', 'place_call']));
    } finally {
      await client.close();
    }
  }, 60_000);

  it('starts the carrier simulator from the build', async () => {
    const port = await freePort();
    const secret = () => crypto.randomBytes(32).toString('hex');
    const simulatorLog = path.join(logDir, 'simulator.log');
    const simulator = started(
      spawnService(
        'simulator',
        {
          SIMULATOR_URL: `http://127.0.0.1:${port}`,
          SIMULATOR_CALLBACK_BASE_URL: 'http://127.0.0.1:9',
          CARRIER_WEBHOOK_SECRET: secret(),
          CARRIER_API_KEY: secret(),
          PAYMENTS_API_KEY: secret(),
          SIMULATOR_CONTROL_TOKEN: secret(),
          LOG_LEVEL: 'info',
        },
        simulatorLog,
        { build },
      ),
    );
    await eventually(
      async () => {
        if (simulator.exitCode !== null)
          throw new Error(`the simulator exited (${simulator.exitCode}): ${fs.readFileSync(simulatorLog, 'utf8').slice(-2000)}`);
        return fetch(`http://127.0.0.1:${port}/healthz`).then(
          (response) => (response.ok ? true : undefined),
          () => undefined,
        );
      },
      60_000,
      "the build's simulator to answer /healthz",
    );
  }, 90_000);
});

/** The JSON lines of a process's log. */
function logLines(file: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/**
 * The packages (not Node's own modules) that `entries` and every build file they require, eagerly or lazily, or
 * resolve by path, require: what the runtime stage must install.
 */
function packagesLoadedBy(entries: string[]): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.js')) continue;
    for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(/require(?:\.resolve)?\("([^"]+)"\)/g)) {
      if (specifier.startsWith('.')) {
        const base = path.resolve(path.dirname(file), specifier);
        const found = [base, `${base}.js`, `${base}.json`, path.join(base, 'index.js')].find(
          (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
        );
        if (!found) throw new Error(`${file} requires ${specifier}, which the build lacks`);
        queue.push(found);
      } else {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
        if (!builtinModules.includes(name.replace(/^node:/, ''))) packages.add(name);
      }
    }
  }
  return packages;
}
