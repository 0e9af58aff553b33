import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseNetworks } from './net/addresses';
import { PASSWORD_KDF } from './crypto/password';
import { RUNS_FROM_BUILD } from './buildLayout';

/**
 * All runtime configuration comes from the environment, read once here.
 * Defaults describe the single-machine dev setup that `npm run up` creates.
 */
export interface Config {
  host: string;
  port: number;
  databaseUrl: string | undefined;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  /**
   * TLS to the Temporal frontend (Temporal Cloud; the official chart with TLS on), from Temporal's own environment
   * names: TEMPORAL_TLS=true, or a client certificate's TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH
   * (mTLS); TEMPORAL_TLS_SERVER_CA_CERT_PATH for a private CA, TEMPORAL_TLS_SERVER_NAME when the certificate names
   * another host. Undefined: plaintext. `temporalTlsOf` (src/platform/temporal/client.ts) reads the files.
   */
  temporalTls: TemporalTlsSettings | undefined;
  taskQueue: string;
  toolCacheDir: string;
  dataDir: string;
  logLevel: string;
  maxBodyBytes: number;
  /** Ceiling on an upload route's body (a campaign's contact list as CSV: `x-body-limit-bytes`); `MAX_BODY_BYTES` caps JSON bodies. */
  maxUploadBytes: number;
  /** Time to receive a whole request (headers and body) and its headers; slower clients get 408. */
  httpRequestTimeoutMs: number;
  /** How long an API process trusts a cached key row at most (revocations also reach it at once by NOTIFY); 0 turns the cache off. */
  apiKeyCacheTtlMs: number;
  /** How often an API process writes the `last_used_at` of the keys used since (one statement for all). */
  apiLastUsedFlushMs: number;
  httpHeadersTimeoutMs: number;
  simulatorUrl: string;
  /**
   * The card processor of each environment. The test environment's is always configured apart
   * (the simulator or a provider's test mode), so test usage can never reach live credentials.
   */
  paymentsLiveUrl: string;
  paymentsTestUrl: string;
  /**
   * Which card processor each environment charges through: `simulator` (the default, at
   * PAYMENTS_<ENV>_URL) or `stripe`. PAYMENTS_PROVIDER sets both; PAYMENTS_TEST_PROVIDER and
   * PAYMENTS_LIVE_PROVIDER override one (e.g. the simulator for test, Stripe for live).
   */
  paymentsProviders: Readonly<Record<'test' | 'live', string>>;
  /**
   * Stripe, one account mode per environment: the test environment's key must be a test-mode key
   * (`sk_test_`/`rk_test_`), the live one's a live-mode key (src/platform/startupCheck.ts).
   */
  stripe: {
    secretKeys: Readonly<Record<'test' | 'live', string | undefined>>;
    /** The signing secrets (`whsec_…`) of the webhook endpoints of each mode (POST /payments/stripe/webhook). */
    webhookSecrets: Readonly<Record<'test' | 'live', string | undefined>>;
    /** Another API base than https://api.stripe.com: stripe-mock or a contract stub, in tests. */
    apiBase: string | undefined;
  };
  /**
   * `SWITCHBOARD_PROFILE`: `production` (the default) or `dev`. Only the dev profile, bound to
   * loopback, tolerates weak secrets and reads the ones `npm run up` keeps in the data directory
   * (src/platform/startupCheck.ts).
   */
  profile: string;
  /**
   * `SIGNUP_MODE` (issue 27, H5): who may create a workspace in the portal. `invite` (the production
   * default): nobody; the first owner comes from the CLI (`workspace create`) or `npm run up`, everyone
   * else by invitation. `open`: anyone, and the workspace is usable once the owner's address is
   * verified by mail. `approval`: as `open`, and an operator approves each workspace with the CLI
   * (`workspace approve`). The dev profile defaults to `open`.
   */
  signupMode: string;
  /**
   * `SMTP_URL`: where the portal's mail goes (verification, password reset, invitations), as
   * nodemailer reads it (`smtp://user:pass@host:587`, `smtps://…:465`). Unset: in the dev profile the
   * mail is written to the API's log; in production `open`/`approval` refuse to start.
   */
  smtpUrl: string | undefined;
  /** `SIGNUP_RATE_PER_HOUR`: portal signups the whole deployment accepts per rolling hour (100). */
  signupRatePerHour: number;
  /** `MAIL_FROM`: the sender of that mail (`Switchboard <no-reply@example.com>`). */
  mailFrom: string;
  /** Carrier → API: the carrier signs its callbacks with it (src/adapters/carrier/callbacks/signature.ts). */
  carrierWebhookSecret: string | undefined;
  /**
   * The carrier of each environment, one of `CARRIER_PROVIDERS` (`simulator` by default), parsed once here
   * (`carrierFromEnv`) from `CARRIER_PROVIDER_TEST` / `CARRIER_PROVIDER_LIVE`, or from the deprecated
   * `CARRIER_PROVIDER` when neither is set (`CARRIER_PROVIDER_ALIASES`). Test keys never reach the live
   * environment's carrier; a carrier without a test mode (Telnyx) serves the live environment only
   * (its adapter's `requiredSettings`).
   */
  carrier: { test: CarrierProvider; live: CarrierProvider };
  /**
   * `CARRIER_PROVIDER`, the deprecated one-carrier setting, when set: `telnyx` reads as
   * `CARRIER_PROVIDER_LIVE=telnyx` with the simulator for test traffic (`simulator`: both on the
   * simulator). Logged as deprecated at startup; refused beside the per-environment settings.
   */
  carrierProviderAlias: string | undefined;
  /**
   * Twilio accounts per environment (`TWILIO_TEST_ACCOUNT_SID`/`TWILIO_TEST_AUTH_TOKEN`: Twilio's
   * test credentials; `TWILIO_LIVE_ACCOUNT_SID`/`TWILIO_LIVE_AUTH_TOKEN`), and `TWILIO_API_BASE_URL`
   * replacing https://api.twilio.com (the tests' contract stub).
   */
  twilio: {
    test?: { accountSid: string; authToken: string };
    live?: { accountSid: string; authToken: string };
    apiBaseUrl?: string;
    /**
     * TWILIO_LIVE_MESSAGING_SERVICE_SID (`MG…`): the Messaging Service, registered for US A2P 10DLC, every
     * live number joins after purchase and every live SMS is sent through. Test credentials cannot use
     * Messaging Services (403), so the test account has none (docs/carriers.md "Texting US numbers").
     */
    liveMessagingServiceSid?: string;
    /**
     * TWILIO_LIVE_ADDRESS_SIDS / TWILIO_LIVE_BUNDLE_SIDS (`DE:AD…,FR:AD…`): the Address and the Regulatory
     * Bundle a live number of that country is bought with, where Twilio requires them (docs/carriers.md).
     */
    liveAddressSids?: Readonly<Record<string, string>>;
    liveBundleSids?: Readonly<Record<string, string>>;
    /**
     * Audio lines: the worker listens on TWILIO_MEDIA_PORT for Twilio's Media Streams, which Twilio reaches at
     * TWILIO_MEDIA_URL (a `wss://` URL of this worker). Both unset: audio lines are refused on Twilio.
     */
    mediaUrl?: string;
    mediaPort?: number;
  };
  /** → carrier: bearer of the carrier's API and media socket (worker). */
  carrierApiKey: string | undefined;
  /** TELNYX_*: the Telnyx account (src/adapters/carrier/telnyx/client.ts); read when the live environment is on Telnyx. */
  telnyx: {
    apiKey: string | undefined;
    /** Base64 Ed25519 public key of the account: verifies Telnyx's webhooks (API). */
    publicKey: string | undefined;
    connectionId: string | undefined;
    messagingProfileId: string | undefined;
    /** TELNYX_10DLC_CAMPAIGN_ID: the approved 10DLC campaign every US local number is assigned to (src/adapters/carrier/telnyx/messaging.ts). */
    campaignId?: string;
    /** TELNYX_REQUIREMENT_GROUPS (`DE:<id>,FR:<id>`): the requirement group a number order of that country carries. */
    requirementGroups?: Readonly<Record<string, string>>;
    /** TELNYX_BASE_URL: Telnyx's API by default; a local contract stub in tests. */
    baseUrl: string | undefined;
    /**
     * TELNYX_WEBHOOK_FAILOVER_URL: where Telnyx posts a webhook the primary URL did not take (another entry point to
     * the API's `/carrier/telnyx/events`): sent with every message; the same URL the operator sets on the Call Control
     * application and the messaging profile, which the worker checks at start (docs/carriers.md).
     */
    webhookFailoverUrl?: string;
    /**
     * Audio lines: the worker listens on TELNYX_MEDIA_PORT for Telnyx's media sockets, which Telnyx reaches at
     * TELNYX_MEDIA_URL (a `wss://` URL of this worker). Both unset: audio lines are refused on Telnyx.
     */
    mediaUrl: string | undefined;
    mediaPort: number | undefined;
  };
  /**
   * SMS_NON_US_ONLY=true: the operator declares that live lines text no US numbers, so the startup check
   * does not require US A2P registration (a Twilio Messaging Service, a Telnyx 10DLC campaign). README
   * "Texting US numbers".
   */
  smsNonUsOnly: boolean;
  /** → card processor: bearer of the processor's charge API (worker). */
  paymentsApiKey: string | undefined;
  /** Bearer of the simulator's control API and recordings. */
  simulatorControlToken: string | undefined;
  /** The only base URL the simulator posts callbacks under (the API's URL); `PUBLIC_BASE_URL` by default. */
  simulatorCallbackBaseUrl: string;
  /** When set, `GET /metrics` requires it as a bearer; when unset, /metrics is served only in the dev profile. */
  metricsToken: string | undefined;
  /**
   * `WORKER_METRICS_PORT`: where a worker serves its `GET /metrics` (on `HOST`, the same access
   * rule as the API's); unset, the worker serves none. Optional.
   */
  workerMetricsPort: number | undefined;
  /** Settings found in the environment that are no longer read; every process refuses to start with one. */
  obsoleteSettings: string[];
  /** How long POST /lines waits for number provisioning before answering `provisioning`. */
  lineProvisionWaitMs: number;
  /**
   * scrypt's N for new password hashes: always PASSWORD_KDF.N (src/platform/crypto/password.ts), never read from the
   * environment, so no deployment can weaken it. Test harnesses lower it, as Django's and Rails' test settings lower
   * their hashers' cost: hashes name their parameters, and everything else about a password is checked the same.
   */
  passwordScryptN: number;
  /**
   * 32-byte key sealing secrets at rest (webhook signing secrets), or a comma-separated key ring
   * whose first key seals and all open; see src/platform/crypto/secretBox.ts.
   */
  secretsKey: string | undefined;
  /**
   * `TEMPORAL_PAYLOAD_KEY`: the key ring (SECRETS_KEY's format: `<new>,<old>,...`) of the payload codec every
   * Temporal client and worker uses (src/platform/codecs/payloadEncryption.ts): the first key encrypts, all decrypt.
   */
  temporalPayloadKey: string | undefined;
  /**
   * `TEMPORAL_CODEC_TOKEN`: the bearer of the codec endpoint (`/temporal-codec`, api/routes/temporalCodec.ts) the
   * Temporal UI and the `temporal` CLI decode payloads through. Unset: the endpoint answers 404.
   */
  temporalCodecToken: string | undefined;
  /** `TEMPORAL_CODEC_CORS_ORIGINS`: the Temporal UI origins (comma-separated) whose browser may call the codec endpoint. */
  temporalCodecCorsOrigins: string[];
  /** Where the carrier and customers reach this API (carrier event callbacks are built from it). */
  publicBaseUrl: string;
  /**
   * `TRUST_PROXY_HOPS` (or the older `TRUST_PROXY=1`, one hop): how many reverse proxies in front of
   * the API append to `X-Forwarded-For`. The client address is the entry the outermost trusted proxy
   * appended, never one the client wrote (issue 27, L12); 0 (the default) ignores the header.
   */
  trustProxyHops: number;
  /** `TEMPORAL_UI_URL`: the Temporal Web UI operators use; the portal links a call to its workflow there. Unset: no link. */
  temporalUiUrl: string | undefined;
  /** Budgets of a streamed NDJSON reply to a `message` event (spec: 15 s per line, 5 min total). */
  ndjsonLineBudgetMs: number;
  ndjsonTotalBudgetMs: number;
  /** The OpenAI-compatible model hosted lines talk to (src/adapters/model/openAiCompatible.ts); the simulator's by default. */
  modelBaseUrl: string;
  modelApiKey: string;
  modelName: string;
  /** Caps of one hosted turn (src/adapters/model/openAiCompatible.ts has the defaults). */
  modelMaxTokens: number | undefined;
  modelMaxReplyChars: number | undefined;
  /**
   * Networks customer URLs may reach although they are not public (OUTBOUND_ALLOWED_NETWORKS,
   * CIDR list; empty by default). For local development and tests; see src/platform/net/egress.ts.
   */
  outboundAllowedNetworks: string[];
  /** How long POST /api/v1/webhooks/test waits for its attempt before answering `pending`. */
  webhookTestWaitMs: number;
  /** On SIGTERM, how long an API process lets in-flight requests finish before it cuts them (src/platform/lifecycle/drain.ts). */
  apiDrainSeconds: number;
  /** On SIGTERM, how long a worker lets running activities finish before Temporal cancels them (`shutdownGraceTime`). */
  workerShutdownGraceSeconds: number;
  /**
   * Where recordings and transcripts are kept once copied from the carrier (issue 32; the port is
   * src/adapters/storage/port.ts, the choices docs/decisions/recordings.md).
   */
  recordings: {
    /** `RECORDINGS_STORE`: `filesystem` (the default: files under `RECORDINGS_DIR`) or `s3` (an S3-compatible bucket). */
    store: RecordingStoreKind;
    /** `RECORDINGS_DIR`: the filesystem store's root, `<data directory>/recordings` by default. */
    dir: string;
    /**
     * The S3-compatible bucket (`RECORDINGS_STORE=s3`): `S3_BUCKET`, `S3_ENDPOINT` (unset: AWS S3), `S3_REGION`
     * (else `AWS_REGION`, else `us-east-1`), `S3_FORCE_PATH_STYLE` (path-style URLs; `true` by default when
     * `S3_ENDPOINT` is set), `S3_SSE` (the server-side encryption asked with every write: `AES256`, the default,
     * `aws:kms`, or `none` for a store that refuses the header) and `S3_SSE_KMS_KEY_ID` (SSE-KMS's key; setting it
     * alone means `aws:kms`). Credentials are the AWS SDK's own chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`,
     * a profile, an instance role), never read here.
     */
    s3: {
      bucket: string | undefined;
      endpoint: string | undefined;
      region: string;
      forcePathStyle: boolean;
      serverSideEncryption: S3ServerSideEncryption;
      kmsKeyId: string | undefined;
    };
  };
}

/** The recordings stores `RECORDINGS_STORE` chooses from (src/adapters/storage/). */
export const RECORDING_STORES = ['filesystem', 's3'] as const;
export type RecordingStoreKind = (typeof RECORDING_STORES)[number];
/** Server-side encryption of the S3 store (`S3_SSE`): SSE-S3, SSE-KMS, or none. */
export const S3_SERVER_SIDE_ENCRYPTIONS = ['AES256', 'aws:kms', 'none'] as const;
export type S3ServerSideEncryption = (typeof S3_SERVER_SIDE_ENCRYPTIONS)[number];

/** `RECORDINGS_*` and `S3_*` (see `Config.recordings`), each value checked here so a typo refuses to start. */
function recordingsFromEnv(env: NodeJS.ProcessEnv, dataDir: string): Config['recordings'] {
  const store = env.RECORDINGS_STORE || 'filesystem';
  if (!(RECORDING_STORES as readonly string[]).includes(store))
    throw new Error(`RECORDINGS_STORE must be one of ${RECORDING_STORES.join(', ')}, got "${store}"`);
  const kmsKeyId = env.S3_SSE_KMS_KEY_ID || undefined;
  const sse = env.S3_SSE || (kmsKeyId ? 'aws:kms' : 'AES256');
  if (!(S3_SERVER_SIDE_ENCRYPTIONS as readonly string[]).includes(sse))
    throw new Error(`S3_SSE must be one of ${S3_SERVER_SIDE_ENCRYPTIONS.join(', ')}, got "${sse}"`);
  if (kmsKeyId && sse !== 'aws:kms')
    throw new Error(`S3_SSE_KMS_KEY_ID is a key of SSE-KMS, but S3_SSE is "${sse}": set S3_SSE=aws:kms or unset the key`);
  const endpoint = env.S3_ENDPOINT || undefined;
  return {
    store: store as RecordingStoreKind,
    dir: env.RECORDINGS_DIR || path.join(dataDir, 'recordings'),
    s3: {
      bucket: env.S3_BUCKET || undefined,
      endpoint,
      region: env.S3_REGION || env.AWS_REGION || 'us-east-1',
      forcePathStyle: env.S3_FORCE_PATH_STYLE ? booleanFromEnv('S3_FORCE_PATH_STYLE', env) : endpoint !== undefined,
      serverSideEncryption: sse as S3ServerSideEncryption,
      kmsKeyId,
    },
  };
}

/**
 * The carriers an environment can run on: the one list the configuration, the startup check
 * (src/platform/startupCheck.ts) and the worker's wiring (src/main/carriers.ts) read.
 */
export const CARRIER_PROVIDERS = ['simulator', 'twilio', 'telnyx'] as const;
export type CarrierProvider = (typeof CARRIER_PROVIDERS)[number];
export type CarrierEnvironmentName = 'test' | 'live';

/** What the deprecated `CARRIER_PROVIDER` stands for, when neither per-environment setting is given. */
export const CARRIER_PROVIDER_ALIASES: Readonly<Record<string, Readonly<Record<CarrierEnvironmentName, CarrierProvider>>>> = {
  telnyx: { live: 'telnyx', test: 'simulator' },
  simulator: { live: 'simulator', test: 'simulator' },
};

/** One environment's carrier: its `CARRIER_PROVIDER_<ENV>`, else what the deprecated `CARRIER_PROVIDER` stands for, else the simulator. */
function carrierFromEnv(environment: CarrierEnvironmentName, env: NodeJS.ProcessEnv): CarrierProvider {
  const name = `CARRIER_PROVIDER_${environment.toUpperCase()}`;
  const aliased = env.CARRIER_PROVIDER_TEST || env.CARRIER_PROVIDER_LIVE ? undefined : CARRIER_PROVIDER_ALIASES[env.CARRIER_PROVIDER ?? ''];
  const raw = env[name] || aliased?.[environment] || 'simulator';
  if (!(CARRIER_PROVIDERS as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${CARRIER_PROVIDERS.join(', ')}, got "${raw}"`);
  return raw as CarrierProvider;
}

/** The environments whose traffic runs on `provider` (a carrier's callbacks may act on these only). */
export function environmentsOnCarrier(config: Pick<Config, 'carrier'>, provider: CarrierProvider): CarrierEnvironmentName[] {
  return (['test', 'live'] as const).filter((environment) => config.carrier[environment] === provider);
}

/** A Twilio account from `<prefix>_ACCOUNT_SID` and `<prefix>_AUTH_TOKEN`, when both are set. */
function twilioAccountFromEnv(prefix: string, env: NodeJS.ProcessEnv): { accountSid: string; authToken: string } | undefined {
  const accountSid = env[`${prefix}_ACCOUNT_SID`];
  const authToken = env[`${prefix}_AUTH_TOKEN`];
  return accountSid && authToken ? { accountSid, authToken } : undefined;
}

export function intFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/** `true` or `false` (unset: false); anything else is a typo, refused loudly. */
function booleanFromEnv(name: string, env: NodeJS.ProcessEnv): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/** `CC:value,CC:value` (ISO 3166 alpha-2 country codes) as a map; a malformed entry is refused at startup. */
function byCountryFromEnv(name: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const entries = (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const byCountry: Record<string, string> = {};
  for (const entry of entries) {
    const match = /^([A-Z]{2}):(\S+)$/.exec(entry);
    if (!match) throw new Error(`${name} must be a list of COUNTRY:value (e.g. DE:AD0123…,FR:AD4567…), got "${entry}"`);
    byCountry[match[1]] = match[2];
  }
  return byCountry;
}

/** A TCP port (0: any free one) from the environment. */
function portFromEnv(name: string, env: NodeJS.ProcessEnv): number {
  const port = intFromEnv(name, 0, env);
  if (port > 65_535) throw new Error(`${name} must be a TCP port (0-65535), got "${env[name]}"`);
  return port;
}

/** The repository (or the image's /app): two levels above this file in the sources, three in the build (dist/src/platform). */
export const projectRoot = path.resolve(__dirname, RUNS_FROM_BUILD ? '../../..' : '../..');

/** Settings that replaced `CARRIER_EVENTS_SECRET`, which was one secret shared by every direction. */
export const OBSOLETE_SETTINGS: Record<string, string> = {
  CARRIER_EVENTS_SECRET:
    'it was split into CARRIER_WEBHOOK_SECRET (carrier → API callbacks), CARRIER_API_KEY (→ carrier API and media), PAYMENTS_API_KEY (→ card processor) and SIMULATOR_CONTROL_TOKEN (simulator control API)',
};

/** The secrets `npm run up` generates once per data directory (mode 600) for the dev profile. */
export const DEV_SECRETS_FILE = 'dev-secrets.json';
export const SECRETS_KEY_FILE = 'secrets.key';
export const DEV_SECRET_SETTINGS = [
  'CARRIER_WEBHOOK_SECRET',
  'CARRIER_API_KEY',
  'PAYMENTS_API_KEY',
  'SIMULATOR_CONTROL_TOKEN',
  'TEMPORAL_PAYLOAD_KEY',
  'TEMPORAL_CODEC_TOKEN',
] as const;

/** Where `npm run up -- --cluster` keeps its data (Postgres, secrets, runtime.json), inside the data directory. */
export const CLUSTER_DATA_SUBDIR = 'cluster';

interface Runtime {
  databaseUrl?: string;
  temporalAddress?: string;
  profile?: string;
  /** The `up` process that wrote it. */
  pid?: number;
  /** The directory it was read from: that run's secrets are beside it. */
  dir: string;
}

/**
 * `npm run up` records where it started Postgres and Temporal in `.data/runtime.json` (and that
 * it runs the dev profile), so the CLI and a separately started worker find them without
 * exporting variables by hand; `up --cluster` records its own in `.data/cluster/runtime.json`. The one whose `up`
 * is running wins (the dev profile's when both run); when none runs, the dev profile's, else the cluster's.
 * Explicit environment variables always win.
 */
function runtimeFile(dataDir: string): Runtime | undefined {
  const recorded = [dataDir, path.join(dataDir, CLUSTER_DATA_SUBDIR)].flatMap((dir): Runtime[] => {
    try {
      return [{ ...(JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8')) as Omit<Runtime, 'dir'>), dir }];
    } catch {
      return [];
    }
  });
  return recorded.find((runtime) => isRunning(runtime.pid)) ?? recorded[0];
}

function isRunning(pid: number | undefined): boolean {
  if (!Number.isInteger(pid) || pid! <= 0) return false;
  try {
    process.kill(pid!, 0);
    return true;
  } catch (err) {
    // Alive, but another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The dev profile's secrets kept with the data: what `up` generated, for a process started on its own. */
function devSecrets(dataDir: string): Record<string, string | undefined> {
  const read = (file: string) => {
    try {
      return fs.readFileSync(path.join(dataDir, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  let secrets: Record<string, string | undefined>;
  try {
    secrets = JSON.parse(read(DEV_SECRETS_FILE) ?? '{}') as Record<string, string | undefined>;
  } catch {
    secrets = {};
  }
  return { ...secrets, SECRETS_KEY: read(SECRETS_KEY_FILE)?.trim() || undefined };
}

export interface TemporalTlsSettings {
  clientCertPath?: string;
  clientKeyPath?: string;
  serverCaCertPath?: string;
  serverName?: string;
}

/** TLS to Temporal from its environment names (`Config.temporalTls`): undefined when none is set. */
export function temporalTlsFromEnv(env: NodeJS.ProcessEnv): TemporalTlsSettings | undefined {
  const settings: TemporalTlsSettings = {
    clientCertPath: env.TEMPORAL_TLS_CLIENT_CERT_PATH || undefined,
    clientKeyPath: env.TEMPORAL_TLS_CLIENT_KEY_PATH || undefined,
    serverCaCertPath: env.TEMPORAL_TLS_SERVER_CA_CERT_PATH || undefined,
    serverName: env.TEMPORAL_TLS_SERVER_NAME || undefined,
  };
  const any = Object.values(settings).some((value) => value !== undefined);
  const flag = env.TEMPORAL_TLS ? booleanFromEnv('TEMPORAL_TLS', env) : undefined;
  if (flag === false) {
    if (any) throw new Error('TEMPORAL_TLS=false beside TEMPORAL_TLS_* paths: unset one or the other');
    return undefined;
  }
  if (!any && !flag) return undefined;
  if (!settings.clientCertPath !== !settings.clientKeyPath)
    throw new Error('TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together (the client certificate and its key)');
  return settings;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const simulatorUrl = env.SIMULATOR_URL ?? 'http://127.0.0.1:8090';
  const dataDir = env.SWITCHBOARD_DATA_DIR ?? path.join(projectRoot, '.data');
  const runtime: Partial<Runtime> = (env.DATABASE_URL || env.TEMPORAL_ADDRESS ? undefined : runtimeFile(dataDir)) ?? {};
  const profile = env.SWITCHBOARD_PROFILE || runtime.profile || 'production';
  // Only the dev profile falls back to secrets kept in the data directory (the running `up`'s); the environment wins.
  const kept = profile === 'dev' ? devSecrets(runtime.dir ?? dataDir) : {};
  const secret = (name: string) => env[name] || kept[name] || undefined;
  const int = (name: string, fallback: number) => intFromEnv(name, fallback, env);
  const publicBaseUrl = env.PUBLIC_BASE_URL || `http://${env.HOST ?? '127.0.0.1'}:${int('PORT', 8080)}`;
  return {
    host: env.HOST ?? '127.0.0.1',
    port: int('PORT', 8080),
    databaseUrl: env.DATABASE_URL || runtime.databaseUrl,
    temporalAddress: env.TEMPORAL_ADDRESS || runtime.temporalAddress,
    temporalNamespace: env.TEMPORAL_NAMESPACE ?? 'default',
    temporalTls: temporalTlsFromEnv(env),
    taskQueue: env.TEMPORAL_TASK_QUEUE ?? 'switchboard',
    toolCacheDir: env.SWITCHBOARD_TOOL_CACHE ?? path.join(os.homedir(), '.cache', 'switchboard'),
    dataDir,
    logLevel: env.LOG_LEVEL ?? 'info',
    maxBodyBytes: int('MAX_BODY_BYTES', 1024 * 1024),
    maxUploadBytes: int('MAX_UPLOAD_BYTES', 16 * 1024 * 1024),
    httpRequestTimeoutMs: int('HTTP_REQUEST_TIMEOUT_MS', 30_000),
    apiKeyCacheTtlMs: int('API_KEY_CACHE_TTL_MS', 300_000),
    apiLastUsedFlushMs: int('API_LAST_USED_FLUSH_MS', 5_000),
    httpHeadersTimeoutMs: int('HTTP_HEADERS_TIMEOUT_MS', 15_000),
    simulatorUrl,
    paymentsLiveUrl: env.PAYMENTS_LIVE_URL || simulatorUrl,
    paymentsTestUrl: env.PAYMENTS_TEST_URL || simulatorUrl,
    paymentsProviders: {
      test: env.PAYMENTS_TEST_PROVIDER || env.PAYMENTS_PROVIDER || 'simulator',
      live: env.PAYMENTS_LIVE_PROVIDER || env.PAYMENTS_PROVIDER || 'simulator',
    },
    stripe: {
      secretKeys: { test: env.STRIPE_TEST_SECRET_KEY || undefined, live: env.STRIPE_LIVE_SECRET_KEY || undefined },
      webhookSecrets: { test: env.STRIPE_WEBHOOK_SECRET_TEST || undefined, live: env.STRIPE_WEBHOOK_SECRET_LIVE || undefined },
      apiBase: env.STRIPE_API_BASE || undefined,
    },
    profile,
    signupMode: env.SIGNUP_MODE || (profile === 'dev' ? 'open' : 'invite'),
    smtpUrl: env.SMTP_URL || undefined,
    signupRatePerHour: int('SIGNUP_RATE_PER_HOUR', 100),
    mailFrom: env.MAIL_FROM || 'Switchboard <no-reply@switchboard.local>',
    carrierWebhookSecret: secret('CARRIER_WEBHOOK_SECRET'),
    carrier: {
      test: carrierFromEnv('test', env),
      live: carrierFromEnv('live', env),
    },
    carrierProviderAlias: env.CARRIER_PROVIDER || undefined,
    twilio: {
      test: twilioAccountFromEnv('TWILIO_TEST', env),
      live: twilioAccountFromEnv('TWILIO_LIVE', env),
      apiBaseUrl: env.TWILIO_API_BASE_URL || undefined,
      liveMessagingServiceSid: env.TWILIO_LIVE_MESSAGING_SERVICE_SID || undefined,
      liveAddressSids: byCountryFromEnv('TWILIO_LIVE_ADDRESS_SIDS', env),
      liveBundleSids: byCountryFromEnv('TWILIO_LIVE_BUNDLE_SIDS', env),
      mediaUrl: env.TWILIO_MEDIA_URL || undefined,
      mediaPort: env.TWILIO_MEDIA_PORT ? int('TWILIO_MEDIA_PORT', 0) : undefined,
    },
    carrierApiKey: secret('CARRIER_API_KEY'),
    telnyx: {
      apiKey: env.TELNYX_API_KEY || undefined,
      publicKey: env.TELNYX_PUBLIC_KEY || undefined,
      connectionId: env.TELNYX_CONNECTION_ID || undefined,
      messagingProfileId: env.TELNYX_MESSAGING_PROFILE_ID || undefined,
      campaignId: env.TELNYX_10DLC_CAMPAIGN_ID || undefined,
      requirementGroups: byCountryFromEnv('TELNYX_REQUIREMENT_GROUPS', env),
      baseUrl: env.TELNYX_BASE_URL || undefined,
      webhookFailoverUrl: env.TELNYX_WEBHOOK_FAILOVER_URL || undefined,
      mediaUrl: env.TELNYX_MEDIA_URL || undefined,
      mediaPort: env.TELNYX_MEDIA_PORT ? int('TELNYX_MEDIA_PORT', 0) : undefined,
    },
    smsNonUsOnly: booleanFromEnv('SMS_NON_US_ONLY', env),
    paymentsApiKey: secret('PAYMENTS_API_KEY'),
    simulatorControlToken: secret('SIMULATOR_CONTROL_TOKEN'),
    simulatorCallbackBaseUrl: env.SIMULATOR_CALLBACK_BASE_URL || publicBaseUrl,
    metricsToken: env.METRICS_TOKEN || undefined,
    workerMetricsPort: env.WORKER_METRICS_PORT ? portFromEnv('WORKER_METRICS_PORT', env) : undefined,
    obsoleteSettings: Object.keys(OBSOLETE_SETTINGS).filter((name) => env[name] !== undefined),
    lineProvisionWaitMs: int('LINE_PROVISION_WAIT_MS', 10_000),
    passwordScryptN: PASSWORD_KDF.N,
    secretsKey: secret('SECRETS_KEY'),
    temporalPayloadKey: secret('TEMPORAL_PAYLOAD_KEY'),
    temporalCodecToken: secret('TEMPORAL_CODEC_TOKEN'),
    temporalCodecCorsOrigins: (env.TEMPORAL_CODEC_CORS_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim().replace(/\/+$/, ''))
      .filter((origin) => origin !== ''),
    ndjsonLineBudgetMs: int('NDJSON_LINE_BUDGET_MS', 15_000),
    ndjsonTotalBudgetMs: int('NDJSON_TOTAL_BUDGET_MS', 300_000),
    publicBaseUrl,
    trustProxyHops: int('TRUST_PROXY_HOPS', env.TRUST_PROXY === '1' ? 1 : 0),
    temporalUiUrl: env.TEMPORAL_UI_URL?.replace(/\/+$/, '') || undefined,
    modelBaseUrl: env.MODEL_BASE_URL || `${simulatorUrl.replace(/\/+$/, '')}/v1`,
    // Not a secret: the simulator accepts any bearer. Real deployments set MODEL_API_KEY.
    modelApiKey: env.MODEL_API_KEY || 'simulator',
    modelName: env.MODEL_NAME || 'switchboard-sim-1',
    modelMaxTokens: env.MODEL_MAX_TOKENS ? int('MODEL_MAX_TOKENS', 0) : undefined,
    modelMaxReplyChars: env.MODEL_MAX_REPLY_CHARS ? int('MODEL_MAX_REPLY_CHARS', 0) : undefined,
    outboundAllowedNetworks: outboundAllowedNetworks(env),
    webhookTestWaitMs: int('WEBHOOK_TEST_WAIT_MS', 15_000),
    apiDrainSeconds: int('API_DRAIN_SECONDS', 20),
    workerShutdownGraceSeconds: int('WORKER_SHUTDOWN_GRACE_SECONDS', 20),
    recordings: recordingsFromEnv(env, dataDir),
  };
}

/** OUTBOUND_ALLOWED_NETWORKS, checked at startup so a typo fails loudly rather than at the first delivery. */
function outboundAllowedNetworks(env: NodeJS.ProcessEnv): string[] {
  const raw = env.OUTBOUND_ALLOWED_NETWORKS ?? '';
  try {
    parseNetworks(raw);
  } catch (err) {
    throw new Error(`OUTBOUND_ALLOWED_NETWORKS: ${(err as Error).message}`, { cause: err });
  }
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Resolved config for code paths that need a database or Temporal address to exist. */
export function requireSetting<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`${name} is not set; run through \`npm run up\` or set it in the environment`);
  return value;
}
