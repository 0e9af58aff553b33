import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/platform/config';
import { freePort } from '../../src/platform/net/freePort';
import { DEV_SERVER_SQLITE_PRAGMAS, ensureTemporalCli, startDevServer, type DevServer } from '../../dev/infra/temporal';
import { testDataConverter } from '../support/payloadCodec';
import { FAILURE_CONVERTER_PATH } from '../../src/platform/codecs/failureConverter';

/**
 * The dev Temporal server as `up`, the tests and the benches start it (`startDevServer`, with its SQLite settings) keeps
 * every workflow whose start it acknowledged across a SIGKILL of the server process: started workflows are all there
 * after a restart on the same file, and they run to completion. The same check against a server that keeps nothing (in
 * memory) finds them all missing, so it does detect lost starts. This covers the death of the server process, which is
 * what the settings are chosen for; an OS crash or power loss is not simulated (see docs/decisions/operations.md).
 */
describe('the dev Temporal server across a kill -9', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-dev-server-durability-'));
  const taskQueue = 'dev-server-durability';
  /** Started and awaited before the kill. */
  const SETTLED_STARTS = 30;
  /** Started all at once; the server is killed as soon as the first few are acknowledged, the rest still in flight. */
  const BURST_STARTS = 40;
  const KILL_AFTER_BURST_ACKS = 5;
  let cli: string;
  let workflowCode: string;
  const servers: DevServer[] = [];

  beforeAll(async () => {
    cli = ensureTemporalCli(loadConfig().toolCacheDir, () => undefined);
    ({ code: workflowCode } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../support/workflows/waitForRelease'),
      failureConverterPath: FAILURE_CONVERTER_PATH,
      logger: new DefaultLogger('ERROR'),
    }));
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(dbFile: string | undefined, name: string): Promise<DevServer> {
    const server = await startDevServer({ cli, port: await freePort(), dbFile, logFile: path.join(dir, `${name}.log`) });
    servers.push(server);
    return server;
  }

  async function connect(server: DevServer): Promise<Client> {
    return new Client({
      connection: await Connection.connect({ address: server.address }),
      namespace: 'default',
      dataConverter: testDataConverter(),
    });
  }

  async function killHard(server: DevServer): Promise<void> {
    const exited = new Promise<NodeJS.Signals | null>((resolve) => server.process.once('exit', (_code, signal) => resolve(signal)));
    server.process.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
  }

  /**
   * Starts waiting workflows, then SIGKILLs the server in the middle of a burst of starts. Returns the ids of every start
   * the server acknowledged (its answer reached the client), settled ones and those of the burst alike.
   */
  async function startThenKill(server: DevServer, prefix: string): Promise<string[]> {
    const client = await connect(server);
    // A deadline on each start, so the ones in flight at the kill fail rather than retry into the restarted server.
    const startOne = (workflowId: string) =>
      client.connection.withDeadline(Date.now() + 5_000, () => client.workflow.start('waitForRelease', { taskQueue, workflowId }));
    const acknowledged: string[] = [];
    await Promise.all(
      Array.from({ length: SETTLED_STARTS }, async (_, i) => {
        await startOne(`${prefix}-settled-${i}`);
        acknowledged.push(`${prefix}-settled-${i}`);
      }),
    );
    expect(acknowledged).toHaveLength(SETTLED_STARTS);

    let burstAcks = 0;
    let killed: Promise<void> | undefined;
    const burst = Array.from({ length: BURST_STARTS }, async (_, i) => {
      await startOne(`${prefix}-burst-${i}`);
      acknowledged.push(`${prefix}-burst-${i}`);
      burstAcks += 1;
      if (burstAcks === KILL_AFTER_BURST_ACKS) killed = killHard(server);
    });
    await Promise.allSettled(burst);
    expect(killed).toBeDefined();
    await killed;
    await client.connection.close();
    return acknowledged;
  }

  /** The acknowledged workflows the restarted server does not know, or knows in another state than running. */
  async function missingAfterRestart(client: Client, ids: readonly string[]): Promise<string[]> {
    const missing: string[] = [];
    for (const workflowId of ids) {
      try {
        const description = await client.workflow.getHandle(workflowId).describe();
        if (description.status.name !== 'RUNNING') missing.push(`${workflowId} (${description.status.name})`);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        missing.push(workflowId);
      }
    }
    return missing;
  }

  it('keeps every acknowledged start of a SQLite-file server, and each runs to completion after the restart', async () => {
    const dbFile = path.join(dir, 'temporal.db');
    const acknowledged = await startThenKill(await start(dbFile, 'file-before-kill'), 'file');
    expect(acknowledged.length).toBeGreaterThanOrEqual(SETTLED_STARTS + KILL_AFTER_BURST_ACKS);

    const restarted = await start(dbFile, 'file-after-kill');
    // The settings under test are in force: a write-ahead log beside the file.
    expect(DEV_SERVER_SQLITE_PRAGMAS.journal_mode).toBe('wal');
    expect(fs.existsSync(`${dbFile}-wal`)).toBe(true);
    const client = await connect(restarted);
    try {
      expect(await missingAfterRestart(client, acknowledged)).toEqual([]);

      const connection = await NativeConnection.connect({ address: restarted.address });
      const worker = await Worker.create({
        connection,
        namespace: 'default',
        taskQueue,
        workflowBundle: { code: workflowCode },
        dataConverter: testDataConverter(),
      });
      try {
        const results = await worker.runUntil(
          Promise.all(
            acknowledged.map(async (workflowId) => {
              const handle = client.workflow.getHandle(workflowId);
              await handle.signal('release');
              return handle.result();
            }),
          ),
        );
        expect(results).toEqual(acknowledged.map(() => 'released'));
      } finally {
        await connection.close();
      }
    } finally {
      await client.connection.close();
    }
  }, 180_000);

  it('the same check finds every start missing on a server that keeps nothing (in memory)', async () => {
    const acknowledged = await startThenKill(await start(undefined, 'memory-before-kill'), 'memory');
    const client = await connect(await start(undefined, 'memory-after-kill'));
    try {
      expect(await missingAfterRestart(client, acknowledged)).toEqual(acknowledged);
    } finally {
      await client.connection.close();
    }
  }, 120_000);
});
