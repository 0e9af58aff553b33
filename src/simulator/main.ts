import { loadConfig } from '../config';
import { createLogger } from '../logger';
import { startCarrierSimulator } from './carrierSimulator';

/** Entry point of the simulator process (`npm run simulator`). */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('simulator', config.logLevel);
  const url = new URL(config.simulatorUrl);
  const { server } = await startCarrierSimulator({ host: url.hostname, port: Number(url.port || 8090), secret: config.carrierEventsSecret });
  log.info({ url: config.simulatorUrl }, 'carrier simulator listening');
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
