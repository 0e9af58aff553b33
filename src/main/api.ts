import type http from 'node:http';
import { createApp } from '../../api/app';
import { createApiServer } from '../../api/server';
import { loadConfig, requireSetting, type Config } from '../platform/config';
import { createDb } from '../platform/db/knex';
import { createLogger } from '../platform/logger';
import { assertStartupConfiguration, exitOnStartupFailure } from '../platform/startupCheck';
import { connectTemporalClient } from '../platform/temporal/client';

/** Runs the HTTP API until SIGINT/SIGTERM, then stops accepting and drains. Refuses to start on a weak configuration. */
export async function runApi(config: Config = loadConfig()): Promise<http.Server> {
  const warnings = assertStartupConfiguration('api', config);
  const logger = createLogger('api', config.logLevel);
  for (const warning of warnings) logger.warn({ setting: warning.setting }, `dev profile: ${warning.setting} ${warning.message}`);
  const databaseUrl = requireSetting(config.databaseUrl, 'DATABASE_URL');
  const db = createDb(databaseUrl, { max: 20 });
  const temporal = await connectTemporalClient(requireSetting(config.temporalAddress, 'TEMPORAL_ADDRESS'), config.temporalNamespace);
  const app = createApp({ config, db, temporal, logger, now: () => new Date() });
  // Revocations reach this process's key cache within moments of their commit, not after its TTL.
  await app.listenForKeyChanges(databaseUrl);
  const server = createApiServer(app, { requestTimeoutMs: config.httpRequestTimeoutMs, headersTimeoutMs: config.httpHeadersTimeoutMs });
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  logger.info({ url: `http://${config.host}:${config.port}` }, 'api listening');

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'api shutting down');
    server.close(async () => {
      await app.close();
      await temporal.connection.close();
      await db.destroy();
      process.exit(0);
    });
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  return server;
}

if (require.main === module) {
  runApi().catch(exitOnStartupFailure);
}
