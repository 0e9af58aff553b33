import { loadConfig, requireSetting } from '../src/platform/config';
import { createLogger } from '../src/platform/logger';
import { PROVIDER_SETTINGS } from '../src/adapters/settings';
import { assertStartupConfiguration, exitOnStartupFailure } from '../src/platform/startupCheck';
import { startSimulator } from './app';

/** Entry point of the simulator process (`npm run simulator`). Refuses to start on a weak configuration. */
async function main(): Promise<void> {
  const config = loadConfig();
  const warnings = assertStartupConfiguration('simulator', config, PROVIDER_SETTINGS);
  const log = createLogger('simulator', config.logLevel);
  for (const warning of warnings) log.warn({ setting: warning.setting }, `dev profile: ${warning.setting} ${warning.message}`);
  const url = new URL(config.simulatorUrl);
  const { server } = await startSimulator({
    host: url.hostname,
    port: Number(url.port || 8090),
    credentials: {
      carrierApiKey: requireSetting(config.carrierApiKey, 'CARRIER_API_KEY'),
      paymentsApiKey: requireSetting(config.paymentsApiKey, 'PAYMENTS_API_KEY'),
      webhookSecret: requireSetting(config.carrierWebhookSecret, 'CARRIER_WEBHOOK_SECRET'),
      controlToken: requireSetting(config.simulatorControlToken, 'SIMULATOR_CONTROL_TOKEN'),
    },
    callbackBaseUrl: config.simulatorCallbackBaseUrl,
  });
  log.info({ url: config.simulatorUrl, callback_base: config.simulatorCallbackBaseUrl }, 'carrier simulator listening');
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch(exitOnStartupFailure);
