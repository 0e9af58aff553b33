import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CARRIER_PROVIDERS, CLUSTER_DATA_SUBDIR, loadConfig } from '../../src/platform/config';
import {
  assertStartupConfiguration,
  ConfigurationError,
  configurationReport,
  deploymentSettings,
  deprecatedSettings,
  PROCESS_ROLES,
  ROLE_REQUIREMENTS,
  type ProcessRole,
} from '../../src/platform/startupCheck';
import { PROVIDER_SETTINGS } from '../../src/adapters/settings';

/** The one startup check every process runs (security review C1, M9). */
describe('startup configuration check', () => {
  const strong = () => crypto.randomBytes(32).toString('hex');
  const emptyDataDir = path.join(os.tmpdir(), `switchboard-no-data-${crypto.randomUUID()}`);
  /** A complete production configuration, every secret strong and distinct. */
  const productionEnv = (): NodeJS.ProcessEnv => ({
    DATABASE_URL: 'postgres://switchboard@postgres:5432/switchboard',
    TEMPORAL_ADDRESS: 'temporal:7233',
    HOST: '0.0.0.0',
    PUBLIC_BASE_URL: 'https://switchboard.example.com',
    SIMULATOR_URL: 'http://0.0.0.0:8090',
    SIMULATOR_CALLBACK_BASE_URL: 'http://api:8080',
    CARRIER_WEBHOOK_SECRET: strong(),
    CARRIER_API_KEY: strong(),
    PAYMENTS_API_KEY: strong(),
    SIMULATOR_CONTROL_TOKEN: strong(),
    SECRETS_KEY: strong(),
    TEMPORAL_PAYLOAD_KEY: strong(),
    SWITCHBOARD_DATA_DIR: emptyDataDir,
  });
  /** The live card processor a real live carrier needs in production (L17). */
  const liveStripe = () => ({
    PAYMENTS_LIVE_PROVIDER: 'stripe',
    STRIPE_LIVE_SECRET_KEY: `sk_live_${strong()}`,
    STRIPE_WEBHOOK_SECRET_LIVE: `whsec_${strong()}`,
  });
  const problemsOf = (role: ProcessRole, env: NodeJS.ProcessEnv) => configurationReport(role, loadConfig(env), PROVIDER_SETTINGS).problems;
  const settingsOf = (role: ProcessRole, env: NodeJS.ProcessEnv) => problemsOf(role, env).map((p) => p.setting);

  it('lets every process start with a complete, strong configuration', () => {
    for (const role of PROCESS_ROLES) expect({ role, problems: problemsOf(role, productionEnv()) }).toEqual({ role, problems: [] });
  });

  it('names every secret a process needs when it is missing', () => {
    for (const role of PROCESS_ROLES) {
      for (const name of ROLE_REQUIREMENTS[role].secrets) {
        const env = productionEnv();
        delete env[name];
        expect({ role, refused: settingsOf(role, env) }).toEqual({ role, refused: [name] });
      }
    }
    const nothing = {
      SWITCHBOARD_DATA_DIR: emptyDataDir,
      DATABASE_URL: 'postgres://x',
      TEMPORAL_ADDRESS: 'x:7233',
      PUBLIC_BASE_URL: 'https://switchboard.example.com',
    };
    expect(settingsOf('simulator', nothing).sort()).toEqual([
      'CARRIER_API_KEY',
      'CARRIER_WEBHOOK_SECRET',
      'PAYMENTS_API_KEY',
      'SIMULATOR_CONTROL_TOKEN',
    ]);
    expect(settingsOf('api', nothing).sort()).toEqual(['CARRIER_WEBHOOK_SECRET', 'SECRETS_KEY', 'TEMPORAL_PAYLOAD_KEY']);
    expect(settingsOf('worker', nothing).sort()).toEqual(['CARRIER_API_KEY', 'PAYMENTS_API_KEY', 'SECRETS_KEY', 'TEMPORAL_PAYLOAD_KEY']);
  });

  it('refuses weak and known values, naming the setting', () => {
    const weak = [
      'dev-carrier-secret',
      'DEV-CARRIER-SECRET',
      'short',
      crypto.randomBytes(31).toString('hex'), // 31 bytes of key material
      crypto.randomBytes(16).toString('base64'), // 16 bytes, in base64
      'a'.repeat(64),
      `changeme-${strong()}`,
      '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    ];
    for (const value of weak) {
      const env = { ...productionEnv(), CARRIER_WEBHOOK_SECRET: value };
      expect({ value, refused: settingsOf('api', env) }).toEqual({ value, refused: ['CARRIER_WEBHOOK_SECRET'] });
      expect({ value, refused: settingsOf('simulator', env) }).toEqual({ value, refused: ['CARRIER_WEBHOOK_SECRET'] });
    }
    // 32 random bytes in base64 are enough.
    expect(settingsOf('api', { ...productionEnv(), CARRIER_WEBHOOK_SECRET: crypto.randomBytes(32).toString('base64') })).toEqual([]);
  });

  it('wants a separate secret for every direction', () => {
    const env = productionEnv();
    env.CARRIER_API_KEY = env.CARRIER_WEBHOOK_SECRET;
    expect(settingsOf('simulator', env)).toEqual(['CARRIER_API_KEY']);
    expect(problemsOf('simulator', env)[0].message).toMatch(/same value as CARRIER_WEBHOOK_SECRET/);
  });

  it('refuses the old shared CARRIER_EVENTS_SECRET everywhere, saying what replaced it', () => {
    for (const role of PROCESS_ROLES) {
      const problems = problemsOf(role, { ...productionEnv(), CARRIER_EVENTS_SECRET: strong() });
      expect(problems.map((p) => p.setting)).toEqual(['CARRIER_EVENTS_SECRET']);
      for (const replacement of ['CARRIER_WEBHOOK_SECRET', 'CARRIER_API_KEY', 'PAYMENTS_API_KEY', 'SIMULATOR_CONTROL_TOKEN'])
        expect(problems[0].message).toContain(replacement);
    }
  });

  it('holds SECRETS_KEY and TEMPORAL_PAYLOAD_KEY to 32 random bytes in strict hex or base64, for every key of the ring', () => {
    const refused = [
      'dGVzdA==', // 4 bytes
      `${crypto.randomBytes(32).toString('base64').slice(0, -2)}==`, // not canonical
      strong().slice(0, 63), // 63 hex characters
      '00'.repeat(32),
      `${strong()},`, // an empty entry
      `${strong()},${'11'.repeat(32)}`, // a patterned older key
      'not a key at all, just a long sentence that is more than thirty-two bytes',
    ];
    for (const setting of ['SECRETS_KEY', 'TEMPORAL_PAYLOAD_KEY'])
      for (const value of refused) {
        for (const role of ['api', 'worker'] as const)
          expect({ value, refused: settingsOf(role, { ...productionEnv(), [setting]: value }) }).toEqual({
            value,
            refused: [setting],
          });
      }
    // The CLI needs the payload key only for the history commands, but a weak one is refused there too.
    expect(settingsOf('cli', { ...productionEnv(), TEMPORAL_PAYLOAD_KEY: '00'.repeat(32) })).toEqual(['TEMPORAL_PAYLOAD_KEY']);
    expect(settingsOf('cli', { ...productionEnv(), TEMPORAL_PAYLOAD_KEY: undefined })).toEqual([]);
    // One key per purpose: the payload key is not the secrets key.
    const shared = strong();
    expect(settingsOf('worker', { ...productionEnv(), SECRETS_KEY: shared, TEMPORAL_PAYLOAD_KEY: shared })).toEqual([
      'TEMPORAL_PAYLOAD_KEY',
    ]);
    for (const value of [
      strong(),
      crypto.randomBytes(32).toString('base64'),
      crypto.randomBytes(32).toString('base64url'),
      `${strong()},${strong()}`,
    ]) {
      expect(settingsOf('worker', { ...productionEnv(), SECRETS_KEY: value })).toEqual([]);
      expect(settingsOf('api', { ...productionEnv(), TEMPORAL_PAYLOAD_KEY: value })).toEqual([]);
    }
  });

  it('refuses a worker whose PUBLIC_BASE_URL no other process can reach, and a simulator likewise', () => {
    const worker = productionEnv();
    delete worker.PUBLIC_BASE_URL; // falls back to http://0.0.0.0:8080 with HOST 0.0.0.0
    expect(settingsOf('worker', worker)).toEqual(['PUBLIC_BASE_URL']);
    const simulator = productionEnv();
    delete simulator.PUBLIC_BASE_URL;
    delete simulator.SIMULATOR_CALLBACK_BASE_URL;
    expect(settingsOf('simulator', simulator)).toEqual(['SIMULATOR_CALLBACK_BASE_URL']);
    // Every role refuses exactly the URLs its requirements list.
    for (const role of PROCESS_ROLES) {
      const env = { ...productionEnv(), PUBLIC_BASE_URL: 'http://[::]:8080', SIMULATOR_CALLBACK_BASE_URL: 'http://0.0.0.0:8080' };
      expect({ role, refused: settingsOf(role, env).sort() }).toEqual({ role, refused: [...ROLE_REQUIREMENTS[role].reachableUrls].sort() });
    }
  });

  it('refuses an API whose PUBLIC_BASE_URL is plain http on a network address outside the dev profile, or unset there (L16)', () => {
    const api = (env: NodeJS.ProcessEnv) => settingsOf('api', { ...productionEnv(), ...env });
    expect(api({ PUBLIC_BASE_URL: 'http://switchboard.example.com' })).toEqual(['PUBLIC_BASE_URL']);
    expect(api({ PUBLIC_BASE_URL: 'http://203.0.113.7:8080' })).toEqual(['PUBLIC_BASE_URL']);
    const unset = { ...productionEnv() };
    delete unset.PUBLIC_BASE_URL; // falls back to http://0.0.0.0:8080 with HOST 0.0.0.0
    expect(settingsOf('api', unset)).toEqual(['PUBLIC_BASE_URL']);
    expect(settingsOf('api', { ...unset, HOST: '192.0.2.10' })).toEqual(['PUBLIC_BASE_URL']);
    // https, a loopback-only deployment (nothing crosses a network), and the dev profile are accepted.
    expect(api({ PUBLIC_BASE_URL: 'https://switchboard.example.com/' })).toEqual([]);
    for (const url of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080'])
      expect({ url, refused: api({ PUBLIC_BASE_URL: url }) }).toEqual({ url, refused: [] });
    expect(api({ PUBLIC_BASE_URL: 'http://switchboard.test:8080', SWITCHBOARD_PROFILE: 'dev', HOST: '127.0.0.1' })).toEqual([]);
    // The worker hands the carrier an internal URL: plain http on the compose network stays fine there.
    expect(settingsOf('worker', { ...productionEnv(), PUBLIC_BASE_URL: 'http://api:8080' })).toEqual([]);
  });

  it('lists what a deployment must give each process: the refusals, the URLs, the listen address and loopback defaults', () => {
    expect(deploymentSettings('api').sort()).toEqual([
      'CARRIER_WEBHOOK_SECRET',
      'DATABASE_URL',
      'HOST',
      'PUBLIC_BASE_URL',
      'SECRETS_KEY',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_PAYLOAD_KEY',
    ]);
    expect(deploymentSettings('worker').sort()).toEqual([
      'CARRIER_API_KEY',
      'DATABASE_URL',
      'HOST',
      'PAYMENTS_API_KEY',
      'PUBLIC_BASE_URL',
      'SECRETS_KEY',
      'SIMULATOR_URL',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_PAYLOAD_KEY',
    ]);
    expect(deploymentSettings('simulator').sort()).toEqual([
      'CARRIER_API_KEY',
      'CARRIER_WEBHOOK_SECRET',
      'PAYMENTS_API_KEY',
      'SIMULATOR_CALLBACK_BASE_URL',
      'SIMULATOR_CONTROL_TOKEN',
      'SIMULATOR_URL',
    ]);
    expect(deploymentSettings('cli').sort()).toEqual(['DATABASE_URL', 'HOST']);
    // Each one the check refuses without is in the list.
    for (const role of PROCESS_ROLES) {
      const env = productionEnv();
      for (const name of deploymentSettings(role)) delete env[name];
      for (const refused of settingsOf(role, env))
        expect({ role, refused, listed: deploymentSettings(role).includes(refused) }).toEqual({ role, refused, listed: true });
    }
  });

  it('wants a Twilio account for each environment on Twilio, in the API and the worker, and a separate one for test', () => {
    const sid = () => `AC${crypto.randomBytes(16).toString('hex')}`;
    const service = { TWILIO_LIVE_MESSAGING_SERVICE_SID: `MG${'0'.repeat(32)}` };
    const twilio = { ...productionEnv(), ...liveStripe(), CARRIER_PROVIDER_LIVE: 'twilio', CARRIER_PROVIDER_TEST: 'twilio', ...service };
    for (const role of PROCESS_ROLES) {
      const expected = ROLE_REQUIREMENTS[role].carrierAccounts ? ['TWILIO_LIVE_ACCOUNT_SID', 'TWILIO_TEST_ACCOUNT_SID'] : [];
      expect({ role, refused: settingsOf(role, twilio).sort() }).toEqual({ role, refused: expected });
    }
    const live = { TWILIO_LIVE_ACCOUNT_SID: sid(), TWILIO_LIVE_AUTH_TOKEN: strong() };
    const test = { TWILIO_TEST_ACCOUNT_SID: sid(), TWILIO_TEST_AUTH_TOKEN: strong() };
    expect(settingsOf('worker', { ...twilio, ...live, ...test })).toEqual([]);
    expect(settingsOf('api', { ...twilio, ...live, ...test, TWILIO_TEST_ACCOUNT_SID: live.TWILIO_LIVE_ACCOUNT_SID })).toEqual([
      'TWILIO_TEST_ACCOUNT_SID',
    ]);
    expect(settingsOf('api', { ...twilio, ...live, ...test, TWILIO_LIVE_ACCOUNT_SID: 'not-a-sid' })).toEqual(['TWILIO_LIVE_ACCOUNT_SID']);
    // The API verifies Twilio's signatures over PUBLIC_BASE_URL: it must be the reachable one there too.
    const unreachable: NodeJS.ProcessEnv = { ...twilio, ...live, ...test };
    delete unreachable.PUBLIC_BASE_URL;
    expect(settingsOf('api', unreachable)).toEqual(['PUBLIC_BASE_URL']);
    // Only the environments on Twilio need an account; the simulator default needs none.
    expect(settingsOf('worker', { ...productionEnv(), ...liveStripe(), CARRIER_PROVIDER_LIVE: 'twilio', ...live, ...service })).toEqual([]);
    expect(() => loadConfig({ ...productionEnv(), CARRIER_PROVIDER_LIVE: 'carrier-pigeon' })).toThrow(
      /CARRIER_PROVIDER_LIVE must be one of/,
    );
  });

  it('an optional METRICS_TOKEN is held to the same rule when set', () => {
    expect(settingsOf('api', { ...productionEnv(), METRICS_TOKEN: 'metrics' })).toEqual(['METRICS_TOKEN']);
    expect(settingsOf('api', { ...productionEnv(), METRICS_TOKEN: strong() })).toEqual([]);
  });

  it('SIGNUP_MODE (issue 27, H5): invite by default; open and approval need SMTP_URL outside dev; no other mode', () => {
    expect(loadConfig(productionEnv()).signupMode).toBe('invite');
    for (const mode of ['open', 'approval']) {
      expect(settingsOf('api', { ...productionEnv(), SIGNUP_MODE: mode })).toEqual(['SMTP_URL']);
      expect(settingsOf('api', { ...productionEnv(), SIGNUP_MODE: mode, SMTP_URL: 'smtp://relay.example.com:587' })).toEqual([]);
      // Only the API serves the portal: the other roles do not care.
      expect(settingsOf('worker', { ...productionEnv(), SIGNUP_MODE: mode })).toEqual([]);
    }
    expect(settingsOf('api', { ...productionEnv(), SIGNUP_MODE: 'public' })).toEqual(['SIGNUP_MODE']);
  });

  describe('the dev profile', () => {
    const devEnv = (overrides: NodeJS.ProcessEnv = {}) => ({
      ...productionEnv(),
      SWITCHBOARD_PROFILE: 'dev',
      HOST: '127.0.0.1',
      SIMULATOR_URL: 'http://127.0.0.1:8090',
      ...overrides,
    });

    it('tolerates weak secrets on loopback, as warnings', () => {
      const report = configurationReport('api', loadConfig(devEnv({ CARRIER_WEBHOOK_SECRET: 'dev-carrier-secret' })), PROVIDER_SETTINGS);
      expect(report.problems).toEqual([]);
      expect(report.warnings.map((w) => w.setting)).toEqual(['CARRIER_WEBHOOK_SECRET']);
      // Missing is still missing: the processes could not work without a value.
      expect(settingsOf('api', devEnv({ CARRIER_WEBHOOK_SECRET: undefined }))).toEqual(['CARRIER_WEBHOOK_SECRET']);
    });

    it('defaults SIGNUP_MODE to open and writes mail to its log without SMTP_URL', () => {
      const config = loadConfig(devEnv());
      expect(config).toMatchObject({ signupMode: 'open', smtpUrl: undefined });
      expect(configurationReport('api', config, PROVIDER_SETTINGS).problems).toEqual([]);
    });

    it('refuses to start on a non-loopback address', () => {
      expect(settingsOf('api', devEnv({ HOST: '0.0.0.0' }))).toEqual(['SWITCHBOARD_PROFILE']);
      expect(settingsOf('simulator', devEnv({ SIMULATOR_URL: 'http://0.0.0.0:8090' }))).toEqual(['SWITCHBOARD_PROFILE']);
      const weakAndExposed = settingsOf('api', devEnv({ HOST: '192.168.1.20', CARRIER_WEBHOOK_SECRET: 'dev-carrier-secret' }));
      expect(weakAndExposed.sort()).toEqual(['CARRIER_WEBHOOK_SECRET', 'SWITCHBOARD_PROFILE']);
    });

    it('is the only relaxed profile', () => {
      expect(settingsOf('api', { ...productionEnv(), SWITCHBOARD_PROFILE: 'staging' })).toEqual(['SWITCHBOARD_PROFILE']);
      expect(settingsOf('api', { ...productionEnv(), HOST: '127.0.0.1', CARRIER_WEBHOOK_SECRET: 'dev-carrier-secret' })).toEqual([
        'CARRIER_WEBHOOK_SECRET',
      ]);
    });

    it('a process started on its own finds the secrets `up` keeps with the data (and the profile in runtime.json)', () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-data-'));
      try {
        const secrets = {
          CARRIER_WEBHOOK_SECRET: strong(),
          CARRIER_API_KEY: strong(),
          PAYMENTS_API_KEY: strong(),
          SIMULATOR_CONTROL_TOKEN: strong(),
          TEMPORAL_PAYLOAD_KEY: strong(),
          TEMPORAL_CODEC_TOKEN: strong(),
        };
        const secretsKey = strong();
        fs.writeFileSync(path.join(dataDir, 'dev-secrets.json'), JSON.stringify(secrets), { mode: 0o600 });
        fs.writeFileSync(path.join(dataDir, 'secrets.key'), `${secretsKey}\n`, { mode: 0o600 });
        fs.writeFileSync(
          path.join(dataDir, 'runtime.json'),
          JSON.stringify({ databaseUrl: 'postgres://127.0.0.1:54320/switchboard', temporalAddress: '127.0.0.1:7233', profile: 'dev' }),
        );
        const config = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir });
        expect(config).toMatchObject({
          profile: 'dev',
          secretsKey,
          carrierWebhookSecret: secrets.CARRIER_WEBHOOK_SECRET,
          carrierApiKey: secrets.CARRIER_API_KEY,
          temporalPayloadKey: secrets.TEMPORAL_PAYLOAD_KEY,
          temporalCodecToken: secrets.TEMPORAL_CODEC_TOKEN,
          databaseUrl: 'postgres://127.0.0.1:54320/switchboard',
        });
        for (const role of PROCESS_ROLES)
          expect(configurationReport(role, config, PROVIDER_SETTINGS)).toEqual({ problems: [], warnings: [] });
        // Outside the dev profile the data directory's secrets are never used.
        expect(loadConfig({ SWITCHBOARD_DATA_DIR: dataDir, DATABASE_URL: 'postgres://elsewhere/db' }).carrierWebhookSecret).toBeUndefined();
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('a process started on its own finds a running `up --cluster` as it finds `up`: the running one, with its secrets', () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-data-'));
      try {
        // A pid that ran and ended: an `up` that is no longer running.
        const ended = spawnSync(process.execPath, ['-e', '']).pid;
        const keep = (dir: string, databaseUrl: string, pid: number | undefined) => {
          fs.mkdirSync(dir, { recursive: true });
          const secretsKey = strong();
          fs.writeFileSync(path.join(dir, 'secrets.key'), `${secretsKey}\n`, { mode: 0o600 });
          fs.writeFileSync(path.join(dir, 'dev-secrets.json'), JSON.stringify({ TEMPORAL_PAYLOAD_KEY: strong() }), { mode: 0o600 });
          fs.writeFileSync(
            path.join(dir, 'runtime.json'),
            JSON.stringify({ databaseUrl, temporalAddress: '127.0.0.1:7233', profile: 'dev', pid }),
          );
          return secretsKey;
        };
        const clusterDir = path.join(dataDir, CLUSTER_DATA_SUBDIR);
        const devKey = keep(dataDir, 'postgres://127.0.0.1:54320/switchboard', ended);
        // Only the cluster's runtime: found although its `up` no longer runs (a refused connection says more than a missing setting).
        fs.renameSync(path.join(dataDir, 'runtime.json'), path.join(dataDir, 'runtime.json.away'));
        const clusterKey = keep(clusterDir, 'postgres://127.0.0.1:54321/switchboard', ended);
        expect(loadConfig({ SWITCHBOARD_DATA_DIR: dataDir })).toMatchObject({
          databaseUrl: 'postgres://127.0.0.1:54321/switchboard',
          secretsKey: clusterKey,
        });
        fs.renameSync(path.join(dataDir, 'runtime.json.away'), path.join(dataDir, 'runtime.json'));
        // Neither runs: the dev profile's, as before the cluster recorded its own.
        expect(loadConfig({ SWITCHBOARD_DATA_DIR: dataDir })).toMatchObject({
          databaseUrl: 'postgres://127.0.0.1:54320/switchboard',
          secretsKey: devKey,
        });
        // The cluster's `up` runs (this process stands in for it): its database and its secrets, every setting a process needs.
        keep(clusterDir, 'postgres://127.0.0.1:54321/switchboard', process.pid);
        const running = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir });
        const clusterSecrets = JSON.parse(fs.readFileSync(path.join(clusterDir, 'dev-secrets.json'), 'utf8')) as Record<string, string>;
        expect(running).toMatchObject({
          profile: 'dev',
          databaseUrl: 'postgres://127.0.0.1:54321/switchboard',
          secretsKey: fs.readFileSync(path.join(clusterDir, 'secrets.key'), 'utf8').trim(),
          temporalPayloadKey: clusterSecrets.TEMPORAL_PAYLOAD_KEY,
        });
        // Both run: the dev profile's.
        keep(dataDir, 'postgres://127.0.0.1:54320/switchboard', process.pid);
        expect(loadConfig({ SWITCHBOARD_DATA_DIR: dataDir }).databaseUrl).toBe('postgres://127.0.0.1:54320/switchboard');
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  it('refuses with one message naming every problem', () => {
    const env = { ...productionEnv(), CARRIER_WEBHOOK_SECRET: 'dev-carrier-secret', SECRETS_KEY: undefined };
    let error: unknown;
    try {
      assertStartupConfiguration('api', loadConfig(env), PROVIDER_SETTINGS);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const message = (error as Error).message;
    expect(message).toMatch(/^switchboard api refuses to start: 2 settings are missing, weak or not allowed\n/);
    expect(message).toContain('CARRIER_WEBHOOK_SECRET is a known');
    expect(message).toContain('SECRETS_KEY is not set');
    expect(message).not.toContain('dev-carrier-secret'); // values are never echoed
  });

  it('production pairs the live carrier and card processor: a real carrier with simulated cards is refused, and the reverse (L17)', () => {
    const twilioLive = {
      ...productionEnv(),
      CARRIER_PROVIDER_LIVE: 'twilio',
      TWILIO_LIVE_ACCOUNT_SID: `AC${crypto.randomBytes(16).toString('hex')}`,
      TWILIO_LIVE_AUTH_TOKEN: strong(),
      TWILIO_LIVE_MESSAGING_SERVICE_SID: `MG${'0'.repeat(32)}`,
    };
    const stripeLive = {
      PAYMENTS_LIVE_PROVIDER: 'stripe',
      STRIPE_LIVE_SECRET_KEY: `sk_live_${strong()}`,
      STRIPE_WEBHOOK_SECRET_LIVE: `whsec_${strong()}`,
    };
    for (const role of ['api', 'worker', 'cli'] as const) {
      // Any Luhn-valid number would "save" as a live card and unlock real numbers and premium-rate calls.
      expect(settingsOf(role, twilioLive)).toEqual(['PAYMENTS_LIVE_PROVIDER']);
      expect(problemsOf(role, twilioLive)[0].message).toMatch(/simulator while CARRIER_PROVIDER_LIVE is twilio/);
      // Real cards charged for simulated calls.
      expect(settingsOf(role, { ...productionEnv(), ...stripeLive })).toEqual(['CARRIER_PROVIDER_LIVE']);
      expect(settingsOf(role, { ...twilioLive, ...stripeLive })).toEqual([]);
    }
    expect(settingsOf('simulator', twilioLive)).toEqual([]);
    // The dev profile on loopback and the test environment (no money on either side) may pair as they like.
    expect(settingsOf('api', { ...twilioLive, SWITCHBOARD_PROFILE: 'dev', HOST: '127.0.0.1' })).toEqual([]);
    const testOnTwilio = {
      ...productionEnv(),
      CARRIER_PROVIDER_TEST: 'twilio',
      TWILIO_TEST_ACCOUNT_SID: `AC${crypto.randomBytes(16).toString('hex')}`,
      TWILIO_TEST_AUTH_TOKEN: strong(),
    };
    expect(settingsOf('api', testOnTwilio)).toEqual([]);
  });

  it('the API needs CARRIER_WEBHOOK_SECRET only while an environment runs on the simulator (L20)', () => {
    const twilioAndTelnyx = {
      ...productionEnv(),
      ...liveStripe(),
      CARRIER_PROVIDER_TEST: 'twilio',
      TWILIO_TEST_ACCOUNT_SID: `AC${crypto.randomBytes(16).toString('hex')}`,
      TWILIO_TEST_AUTH_TOKEN: strong(),
      CARRIER_PROVIDER_LIVE: 'telnyx',
      TELNYX_API_KEY: `KEY${strong()}`,
      TELNYX_PUBLIC_KEY: crypto.randomBytes(32).toString('base64'),
      CARRIER_WEBHOOK_SECRET: undefined,
    };
    expect(settingsOf('api', twilioAndTelnyx)).toEqual([]);
    expect(settingsOf('api', { ...twilioAndTelnyx, CARRIER_PROVIDER_TEST: 'simulator' })).toEqual(['CARRIER_WEBHOOK_SECRET']);
    // Set anyway, it is still held to the rules.
    expect(settingsOf('api', { ...twilioAndTelnyx, CARRIER_WEBHOOK_SECRET: 'secret' })).toEqual(['CARRIER_WEBHOOK_SECRET']);
  });

  describe('the carrier of each environment (one list: CARRIER_PROVIDERS)', () => {
    const telnyxAccount = () => ({
      TELNYX_API_KEY: `KEY${strong()}`,
      TELNYX_PUBLIC_KEY: crypto.randomBytes(32).toString('base64'),
      TELNYX_CONNECTION_ID: '1494404757140276705',
      TELNYX_MESSAGING_PROFILE_ID: '40017f2e-5b2c-4b1f-9d1a-8c4a2f1e0b7d',
      TELNYX_10DLC_CAMPAIGN_ID: '4b300178-131c-d902-d54e-72d90ba1620j',
    });

    it('the config, the startup check and the worker read the same list', () => {
      expect(CARRIER_PROVIDERS).toEqual(['simulator', 'twilio', 'telnyx']);
      expect(() => loadConfig({ ...productionEnv(), CARRIER_PROVIDER_TEST: 'carrier-pigeon' })).toThrow(
        'CARRIER_PROVIDER_TEST must be one of simulator, twilio, telnyx, got "carrier-pigeon"',
      );
    });

    it('Telnyx live, the simulator for test: the Telnyx account settings in the API and the worker, nothing in the others', () => {
      const telnyx = { ...productionEnv(), ...liveStripe(), CARRIER_PROVIDER_LIVE: 'telnyx', CARRIER_PROVIDER_TEST: 'simulator' };
      expect(loadConfig(telnyx).carrier).toEqual({ live: 'telnyx', test: 'simulator' });
      expect(settingsOf('api', telnyx).sort()).toEqual(['TELNYX_API_KEY', 'TELNYX_PUBLIC_KEY']);
      expect(settingsOf('worker', telnyx).sort()).toEqual([
        'TELNYX_10DLC_CAMPAIGN_ID',
        'TELNYX_API_KEY',
        'TELNYX_CONNECTION_ID',
        'TELNYX_MESSAGING_PROFILE_ID',
      ]);
      expect(problemsOf('worker', telnyx)[0].message).toContain('CARRIER_PROVIDER_LIVE=telnyx needs it');
      expect(settingsOf('simulator', telnyx)).toEqual([]);
      const complete = { ...telnyx, ...telnyxAccount() };
      for (const role of PROCESS_ROLES) expect({ role, problems: problemsOf(role, complete) }).toEqual({ role, problems: [] });
      expect(deprecatedSettings(loadConfig(complete))).toEqual([]);
    });

    it('refuses Telnyx for the test environment: it has no test mode, so test keys would spend real money', () => {
      const env = {
        ...productionEnv(),
        ...liveStripe(),
        ...telnyxAccount(),
        CARRIER_PROVIDER_LIVE: 'telnyx',
        CARRIER_PROVIDER_TEST: 'telnyx',
      };
      for (const role of ['api', 'worker'] as const) {
        const problems = problemsOf(role, env);
        expect(problems.map((p) => p.setting)).toEqual(['CARRIER_PROVIDER_TEST']);
        expect(problems[0].message).toMatch(/no test mode/);
      }
    });

    it('Telnyx live beside Twilio test credentials is one deployment, each environment with its own account', () => {
      const env = {
        ...productionEnv(),
        ...liveStripe(),
        ...telnyxAccount(),
        CARRIER_PROVIDER_LIVE: 'telnyx',
        CARRIER_PROVIDER_TEST: 'twilio',
        TWILIO_TEST_ACCOUNT_SID: `AC${crypto.randomBytes(16).toString('hex')}`,
        TWILIO_TEST_AUTH_TOKEN: strong(),
      };
      for (const role of PROCESS_ROLES) expect({ role, problems: problemsOf(role, env) }).toEqual({ role, problems: [] });
    });

    it('refuses a live SMS configuration that cannot text US numbers, unless the operator declares non-US-only texting', () => {
      const twilioLive = {
        ...productionEnv(),
        ...liveStripe(),
        CARRIER_PROVIDER_LIVE: 'twilio',
        TWILIO_LIVE_ACCOUNT_SID: `AC${crypto.randomBytes(16).toString('hex')}`,
        TWILIO_LIVE_AUTH_TOKEN: strong(),
      };
      const telnyxLive = {
        ...productionEnv(),
        ...liveStripe(),
        ...telnyxAccount(),
        CARRIER_PROVIDER_LIVE: 'telnyx',
        TELNYX_10DLC_CAMPAIGN_ID: undefined,
      };
      expect(settingsOf('worker', twilioLive)).toEqual(['TWILIO_LIVE_MESSAGING_SERVICE_SID']);
      expect(problemsOf('worker', twilioLive)[0].message).toMatch(/A2P 10DLC-registered Messaging Service.*SMS_NON_US_ONLY=true/);
      expect(settingsOf('worker', telnyxLive)).toEqual(['TELNYX_10DLC_CAMPAIGN_ID']);
      expect(problemsOf('worker', telnyxLive)[0].message).toMatch(/approved 10DLC campaign.*SMS_NON_US_ONLY=true/);
      // The API neither buys nor sends; the test environment sends nothing real.
      expect(settingsOf('api', twilioLive)).toEqual([]);
      expect(
        settingsOf('worker', {
          ...productionEnv(),
          CARRIER_PROVIDER_TEST: 'twilio',
          TWILIO_TEST_ACCOUNT_SID: twilioLive.TWILIO_LIVE_ACCOUNT_SID,
          TWILIO_TEST_AUTH_TOKEN: strong(),
        }),
      ).toEqual([]);

      expect(
        settingsOf('worker', { ...twilioLive, TWILIO_LIVE_MESSAGING_SERVICE_SID: `MG${crypto.randomBytes(16).toString('hex')}` }),
      ).toEqual([]);
      expect(settingsOf('worker', { ...twilioLive, TWILIO_LIVE_MESSAGING_SERVICE_SID: 'PN123' })).toEqual([
        'TWILIO_LIVE_MESSAGING_SERVICE_SID',
      ]);
      expect(settingsOf('worker', { ...telnyxLive, TELNYX_10DLC_CAMPAIGN_ID: '4b300178-131c-d902-d54e-72d90ba1620j' })).toEqual([]);
      for (const env of [twilioLive, telnyxLive]) expect(settingsOf('worker', { ...env, SMS_NON_US_ONLY: 'true' })).toEqual([]);
      expect(() => loadConfig({ ...telnyxLive, SMS_NON_US_ONLY: 'yes' })).toThrow('SMS_NON_US_ONLY must be true or false, got "yes"');
    });

    it('reads per-country regulatory settings as COUNTRY:value lists and refuses a malformed one', () => {
      const config = loadConfig({
        ...productionEnv(),
        TWILIO_LIVE_ADDRESS_SIDS: `DE:AD${'a'.repeat(32)}, FR:AD${'b'.repeat(32)}`,
        TWILIO_LIVE_BUNDLE_SIDS: `DE:BU${'c'.repeat(32)}`,
        TELNYX_REQUIREMENT_GROUPS: 'GB:3fa85f64-5717-4562-b3fc-2c963f66afa6',
      });
      expect(config.twilio.liveAddressSids).toEqual({ DE: `AD${'a'.repeat(32)}`, FR: `AD${'b'.repeat(32)}` });
      expect(config.twilio.liveBundleSids).toEqual({ DE: `BU${'c'.repeat(32)}` });
      expect(config.telnyx.requirementGroups).toEqual({ GB: '3fa85f64-5717-4562-b3fc-2c963f66afa6' });
      expect(() => loadConfig({ ...productionEnv(), TWILIO_LIVE_BUNDLE_SIDS: 'germany=BU1' })).toThrow(
        'TWILIO_LIVE_BUNDLE_SIDS must be a list of COUNTRY:value',
      );
    });

    it('CARRIER_PROVIDER=telnyx still works, as live Telnyx with test on the simulator, and is reported as deprecated', () => {
      const alias = { ...productionEnv(), ...liveStripe(), ...telnyxAccount(), CARRIER_PROVIDER: 'telnyx' };
      const config = loadConfig(alias);
      expect(config.carrier).toEqual({ live: 'telnyx', test: 'simulator' });
      for (const role of PROCESS_ROLES) expect({ role, problems: problemsOf(role, alias) }).toEqual({ role, problems: [] });
      expect(deprecatedSettings(config)).toEqual([
        {
          setting: 'CARRIER_PROVIDER',
          message: 'is deprecated: it reads as CARRIER_PROVIDER_LIVE=telnyx and CARRIER_PROVIDER_TEST=simulator; set those instead',
        },
      ]);
      // Saying the same per environment is fine; contradicting it is refused; an unknown alias too.
      expect(settingsOf('worker', { ...alias, CARRIER_PROVIDER_LIVE: 'telnyx' })).toEqual([]);
      const twilioToo = {
        ...alias,
        CARRIER_PROVIDER_LIVE: 'twilio',
        TWILIO_LIVE_ACCOUNT_SID: `AC${crypto.randomBytes(16).toString('hex')}`,
        TWILIO_LIVE_AUTH_TOKEN: strong(),
        TWILIO_LIVE_MESSAGING_SERVICE_SID: `MG${'0'.repeat(32)}`,
      };
      for (const role of ['api', 'worker'] as const) expect(settingsOf(role, twilioToo)).toEqual(['CARRIER_PROVIDER']);
      expect(settingsOf('worker', { ...productionEnv(), CARRIER_PROVIDER: 'twilio-ish' })).toEqual(['CARRIER_PROVIDER']);
    });
  });
});
