import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseNetworks } from './net/addresses';

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
  taskQueue: string;
  toolCacheDir: string;
  dataDir: string;
  logLevel: string;
  maxBodyBytes: number;
  /** Time to receive a whole request (headers and body) and its headers; slower clients get 408. */
  httpRequestTimeoutMs: number;
  httpHeadersTimeoutMs: number;
  simulatorUrl: string;
  /**
   * The card processor of each environment. The test environment's is always configured apart
   * (the simulator or a provider's test mode), so test usage can never reach live credentials.
   */
  paymentsLiveUrl: string;
  paymentsTestUrl: string;
  carrierEventsSecret: string;
  /** How long POST /lines waits for number provisioning before answering `provisioning`. */
  lineProvisionWaitMs: number;
  /** 32-byte key sealing secrets at rest (webhook signing secrets); see src/crypto/secretBox.ts. */
  secretsKey: string | undefined;
  /** Where the carrier and customers reach this API (carrier event callbacks are built from it). */
  publicBaseUrl: string;
  /** Budgets of a streamed NDJSON reply to a `message` event (spec: 15 s per line, 5 min total). */
  ndjsonLineBudgetMs: number;
  ndjsonTotalBudgetMs: number;
  /** The OpenAI-compatible model hosted lines talk to (activities/model/openAiCompatible.ts); the simulator's by default. */
  modelBaseUrl: string;
  modelApiKey: string;
  modelName: string;
  /** Caps of one hosted turn (activities/model/openAiCompatible.ts has the defaults). */
  modelMaxTokens: number | undefined;
  modelMaxReplyChars: number | undefined;
  /**
   * Networks customer URLs may reach although they are not public (OUTBOUND_ALLOWED_NETWORKS,
   * CIDR list; empty by default). For local development and tests; see src/net/egress.ts.
   */
  outboundAllowedNetworks: string[];
  /** How long POST /api/v1/webhooks/test waits for its attempt before answering `pending`. */
  webhookTestWaitMs: number;
}

export function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export const projectRoot = path.resolve(__dirname, '..');

/**
 * `npm run up` records where it started Postgres and Temporal in `.data/runtime.json`, so the
 * CLI and a separately started worker find them without exporting variables by hand.
 * Explicit environment variables always win.
 */
function runtimeFile(dataDir: string): { databaseUrl?: string; temporalAddress?: string; secretsKey?: string } {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')) as { databaseUrl?: string; temporalAddress?: string; secretsKey?: string };
  } catch {
    return {};
  }
}

export function loadConfig(): Config {
  const simulatorUrl = process.env.SIMULATOR_URL ?? 'http://127.0.0.1:8090';
  const dataDir = process.env.SWITCHBOARD_DATA_DIR ?? path.join(projectRoot, '.data');
  const runtime = process.env.DATABASE_URL || process.env.TEMPORAL_ADDRESS ? {} : runtimeFile(dataDir);
  return {
    host: process.env.HOST ?? '127.0.0.1',
    port: intFromEnv('PORT', 8080),
    databaseUrl: process.env.DATABASE_URL || runtime.databaseUrl,
    temporalAddress: process.env.TEMPORAL_ADDRESS || runtime.temporalAddress,
    temporalNamespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: process.env.TEMPORAL_TASK_QUEUE ?? 'switchboard',
    toolCacheDir: process.env.SWITCHBOARD_TOOL_CACHE ?? path.join(os.homedir(), '.cache', 'switchboard'),
    dataDir,
    logLevel: process.env.LOG_LEVEL ?? 'info',
    maxBodyBytes: intFromEnv('MAX_BODY_BYTES', 1024 * 1024),
    httpRequestTimeoutMs: intFromEnv('HTTP_REQUEST_TIMEOUT_MS', 30_000),
    httpHeadersTimeoutMs: intFromEnv('HTTP_HEADERS_TIMEOUT_MS', 15_000),
    simulatorUrl,
    paymentsLiveUrl: process.env.PAYMENTS_LIVE_URL || simulatorUrl,
    paymentsTestUrl: process.env.PAYMENTS_TEST_URL || simulatorUrl,
    carrierEventsSecret: process.env.CARRIER_EVENTS_SECRET ?? 'dev-carrier-secret',
    lineProvisionWaitMs: intFromEnv('LINE_PROVISION_WAIT_MS', 10_000),
    secretsKey: process.env.SECRETS_KEY || runtime.secretsKey,
    ndjsonLineBudgetMs: intFromEnv('NDJSON_LINE_BUDGET_MS', 15_000),
    ndjsonTotalBudgetMs: intFromEnv('NDJSON_TOTAL_BUDGET_MS', 300_000),
    publicBaseUrl: process.env.PUBLIC_BASE_URL ?? `http://${process.env.HOST ?? '127.0.0.1'}:${intFromEnv('PORT', 8080)}`,
    modelBaseUrl: process.env.MODEL_BASE_URL || `${simulatorUrl.replace(/\/+$/, '')}/v1`,
    // Not a secret: the simulator accepts any bearer. Real deployments set MODEL_API_KEY.
    modelApiKey: process.env.MODEL_API_KEY || 'simulator',
    modelName: process.env.MODEL_NAME || 'switchboard-sim-1',
    modelMaxTokens: process.env.MODEL_MAX_TOKENS ? intFromEnv('MODEL_MAX_TOKENS', 0) : undefined,
    modelMaxReplyChars: process.env.MODEL_MAX_REPLY_CHARS ? intFromEnv('MODEL_MAX_REPLY_CHARS', 0) : undefined,
    outboundAllowedNetworks: outboundAllowedNetworks(),
    webhookTestWaitMs: intFromEnv('WEBHOOK_TEST_WAIT_MS', 15_000),
  };
}

/** OUTBOUND_ALLOWED_NETWORKS, checked at startup so a typo fails loudly rather than at the first delivery. */
function outboundAllowedNetworks(): string[] {
  const raw = process.env.OUTBOUND_ALLOWED_NETWORKS ?? '';
  try {
    parseNetworks(raw);
  } catch (err) {
    throw new Error(`OUTBOUND_ALLOWED_NETWORKS: ${(err as Error).message}`, { cause: err });
  }
  return raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
}

/** Resolved config for code paths that need a database or Temporal address to exist. */
export function requireSetting<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`${name} is not set; run through \`npm run up\` or set it in the environment`);
  return value;
}
