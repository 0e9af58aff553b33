import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabaseIfMissing, dropDatabase } from '../../dev/infra/postgres';
import { freePortBlock } from '../../dev/infra/proc';
import { freePort } from '../../src/platform/net/freePort';
import { eventually, webhookLine } from '../support/harness';
import { expectSummaryCodecDecrypts } from '../support/payloadCodec';
import { childProcesses, explainingFailure, interruptUp, startUp, type UpProcess } from '../support/upProcess';
import { until } from '../support/waits';

/**
 * `npm run up` (the dev profile) as an operator meets Temporal payloads (security review L10): encrypted in
 * the dev server, and its Temporal UI wired to the API's codec endpoint, which decrypts for the UI's origin.
 * Then its supervision (issue 33): the worker killed with kill -9 is started again and the stack keeps serving; Ctrl-C
 * stops everything without a restart.
 */
/** The test key `up` printed. */
const testKeyOf = (output: string): string => /Test key\s+(\S+)/.exec(output)![1];

/** Creates a webhook line through the API, as a customer; resolves to its id. */
async function createLine(apiUrl: string, key: string): Promise<string> {
  const created = await fetch(`${apiUrl}/api/v1/lines`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(webhookLine()),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { line: { id: string } }).line.id;
}

describe('up (dev profile): encrypted payloads, decrypted in the Temporal UI; a killed worker restarted', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-dev-up-'));
  const app = `devup_${crypto.randomBytes(4).toString('hex')}`;
  const server = new URL(process.env.DATABASE_URL!);
  const adminUrl = Object.assign(new URL(server), { pathname: '/postgres' }).toString();
  let started: UpProcess | undefined;
  let apiUrl: string;

  afterAll(async () => {
    if (started) await interruptUp(started);
    await dropDatabase(adminUrl, app);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("starts the dev server's UI with the codec endpoint, which decrypts the stored payloads for the UI's origin and the printed token", async () => {
    await createDatabaseIfMissing(adminUrl, app);
    const port = await freePortBlock(4);
    const temporalPort = await freePort();
    const uiPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SWITCHBOARD_DATA_DIR: dataDir,
      DATABASE_URL: Object.assign(new URL(server), { pathname: `/${app}` }).toString(),
      PORT: String(port),
      TEMPORAL_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(uiPort),
      SIMULATOR_URL: `http://127.0.0.1:${await freePort()}`,
      // As an operator's `up` logs (the suite's own processes are silent): a failure quotes the children's last lines.
      LOG_LEVEL: 'info',
    };
    // What `up` generates or finds itself: every secret, where Temporal runs, where its UI is.
    for (const name of [
      'SECRETS_KEY',
      'TEMPORAL_PAYLOAD_KEY',
      'TEMPORAL_CODEC_TOKEN',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_UI_URL',
      'PUBLIC_BASE_URL',
      // The test worker's own namespace (test/support/workerResources.ts): `up` runs as the README has it, on `default`.
      'TEMPORAL_NAMESPACE',
    ])
      delete env[name];
    started = await startUp([], env);
    apiUrl = `http://127.0.0.1:${port}`;
    const uiOrigin = `http://127.0.0.1:${uiPort}`;
    expect(started.output()).toMatch(new RegExp(`Temporal UI\\s+${uiOrigin}`));

    // The UI tells the browser where to decode: the API's codec endpoint, the generated token as its last segment.
    const settings = (await (await fetch(`${uiOrigin}/api/v1/settings`)).json()) as { Codec: { Endpoint: string } };
    const token = fs.readFileSync(path.join(dataDir, 'dev-secrets.json'), 'utf8').match(/"TEMPORAL_CODEC_TOKEN": "([0-9a-f]{64})"/)![1];
    expect(settings.Codec.Endpoint).toBe(`${apiUrl}/temporal-codec/${token}`);

    const key = testKeyOf(started.output());
    const lineId = await createLine(apiUrl, key);
    await expectSummaryCodecDecrypts(started.output(), `line-provision:${lineId}`, lineId);

    // The browser's view: a preflight and a decode from the UI's origin, as the UI sends them.
    const preflight = await fetch(`${settings.Codec.Endpoint}/decode`, {
      method: 'OPTIONS',
      headers: { origin: uiOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    const decoded = await fetch(`${settings.Codec.Endpoint}/decode`, {
      method: 'POST',
      headers: { origin: uiOrigin, 'content-type': 'application/json', 'x-namespace': 'default' },
      body: JSON.stringify({ payloads: [] }),
    });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(uiOrigin);
  }, 600_000);

  it('starts the worker again after kill -9, which then provisions a line; Ctrl-C stops everything and restarts nothing', async () => {
    const up = started!;
    await explainingFailure(up, path.join(dataDir, 'logs'), async () => {
      const worker = childProcesses(up.child.pid!).find((child) => child.cmdline.includes('src/main/worker.ts'));
      expect(worker).toBeDefined();
      process.kill(worker!.pid, 'SIGKILL');
      await until(() => /worker restarted \(pid \d+\)/.test(up.output()), 'the worker to be restarted', { timeoutMs: 30_000 });
      expect(up.output()).toContain(
        '[up] worker exited unexpectedly (signal SIGKILL); restarting it in 1s (failure 1 of 5 allowed within 1m00s)',
      );
      const restarted = Number(/worker restarted \(pid (\d+)\)/.exec(up.output())![1]);
      expect(childProcesses(up.child.pid!).map((child) => child.pid)).toContain(restarted);

      // A line is provisioned by its workflow, which only a worker runs: the restarted one.
      const key = testKeyOf(up.output());
      const lineId = await createLine(apiUrl, key);
      await eventually(
        async () => {
          const line = (await (
            await fetch(`${apiUrl}/api/v1/lines/${lineId}`, { headers: { authorization: `Bearer ${key}` } })
          ).json()) as {
            line: { status: string };
          };
          return line.line.status === 'active' ? true : undefined;
        },
        60_000,
        'the line to be provisioned by the restarted worker',
      );

      const before = up.output().length;
      expect(await interruptUp(up)).toBe(0);
      expect(up.output().slice(before)).not.toMatch(/exited unexpectedly|restart/);
      expect(() => process.kill(restarted, 0)).toThrow();
    });
  }, 120_000);
});
