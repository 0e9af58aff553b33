import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { loadConfig } from '../../src/platform/config';
import { dropDatabase } from '../../dev/infra/postgres';
import { freePortBlock } from '../../dev/infra/proc';
import {
  ensureTemporalServerBuild,
  setupTemporalSchema,
  startTemporalServer,
  temporalServerConfig,
  writeTemporalServerConfig,
  type TemporalPostgres,
  type TemporalServer,
  type TemporalServerBuild,
  TEMPORAL_SERVER_PORT_COUNT,
} from '../../dev/infra/temporalServer';
import { testDataConverter } from '../support/payloadCodec';

/**
 * The cluster profile's Temporal server: built from its Go module into the tool cache (reused when
 * there), its schema set up by its own sql tool (again on every start, idempotently), and a
 * workflow it accepted is still there after the server restarts.
 */
describe('the Temporal server on Postgres', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-temporal-server-'));
  const adminUrl = new URL(process.env.DATABASE_URL!);
  adminUrl.pathname = '/postgres';
  const suffix = crypto.randomBytes(4).toString('hex');
  const pg: TemporalPostgres = {
    host: adminUrl.hostname,
    port: Number(adminUrl.port),
    user: decodeURIComponent(adminUrl.username),
    databases: { temporal: `tsrv_${suffix}`, visibility: `tsrv_${suffix}_visibility` },
  };
  let build: TemporalServerBuild;
  let server: TemporalServer | undefined;

  beforeAll(async () => {
    // The first run on a machine builds the server (minutes); later runs find it in the tool cache.
    build = await ensureTemporalServerBuild(loadConfig().toolCacheDir, (line) => process.stderr.write(`[temporal-server] ${line}\n`));
  }, 1_800_000);
  afterAll(async () => {
    await server?.stop();
    for (const database of Object.values(pg.databases)) await dropDatabase(adminUrl.toString(), database);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sets up its schema twice without harm, and keeps a workflow across a restart', async () => {
    await setupTemporalSchema(build, pg);
    await setupTemporalSchema(build, pg);
    const versions = await schemaVersions(adminUrl, pg);
    expect(versions.temporal).toMatch(/^1\.\d+$/);
    expect(versions.visibility).toMatch(/^1\.\d+$/);

    const frontendPort = await freePortBlock(TEMPORAL_SERVER_PORT_COUNT);
    const options = {
      build,
      configFile: writeTemporalServerConfig(path.join(dir, 'temporal.yaml'), temporalServerConfig(build, pg, frontendPort)),
      frontendPort,
      logFile: path.join(dir, 'temporal.log'),
      namespace: 'default',
    };
    server = await startTemporalServer(options);
    const workflowId = `kept-${suffix}`;
    await withClient(server.address, (client) =>
      client.workflow.start('neverRuns', { taskQueue: `nobody-${suffix}`, workflowId, args: [] }).then(() => undefined),
    );

    await server.stop();
    server = await startTemporalServer(options);
    const status = await withClient(server.address, async (client) => (await client.workflow.getHandle(workflowId).describe()).status.name);
    expect(status).toBe('RUNNING');
  }, 240_000);
});

async function withClient<T>(address: string, use: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(new Client({ connection, namespace: 'default', dataConverter: testDataConverter() }));
  } finally {
    await connection.close();
  }
}

async function schemaVersions(adminUrl: URL, pg: TemporalPostgres): Promise<{ temporal: string; visibility: string }> {
  const read = async (database: string) => {
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    const client = new PgClient({ connectionString: url.toString() });
    await client.connect();
    try {
      return (await client.query('select curr_version from schema_version')).rows[0].curr_version as string;
    } finally {
      await client.end();
    }
  };
  return { temporal: await read(pg.databases.temporal), visibility: await read(pg.databases.visibility) };
}
