import { CARRIER_PROVIDER_ALIASES, environmentsOnCarrier, OBSOLETE_SETTINGS, type Config } from './config';
import { keyRingProblem, secretWeakness } from './secretStrength';

/**
 * The one place that decides whether a process may start with its configuration (security
 * review C1, M9). Each process (role) needs some settings; secrets among them must be set, carry
 * at least 32 bytes of key material, not be a known or dev value, and differ from each other
 * (one secret per direction). Every process calls `assertStartupConfiguration` before it does
 * anything else, `/readyz` reports not ready while `configurationProblems` finds any, and the
 * compose file is tested against the same function.
 *
 * What a provider (Twilio, Telnyx, Stripe) needs is the provider's own rule: each adapter exports its
 * `requiredSettings(role, config)`, `src/adapters/settings.ts` lists them (`PROVIDER_SETTINGS`), and every
 * caller passes that list in; this module knows no provider and runs them after its generic checks.
 *
 * The only exception is the dev profile (`SWITCHBOARD_PROFILE=dev`) on a loopback host: weak
 * secrets are tolerated there (and reported as warnings). A dev profile on any other host refuses.
 */
export type ProcessRole = 'api' | 'worker' | 'simulator' | 'cli';

export const PROCESS_ROLES: readonly ProcessRole[] = ['api', 'worker', 'simulator', 'cli'];

/** Secret settings, with what each one protects (named in refusals). */
export const SECRET_SETTINGS = {
  CARRIER_WEBHOOK_SECRET: { of: (c: Config) => c.carrierWebhookSecret, purpose: 'the carrier signs its callbacks to the API with it' },
  CARRIER_API_KEY: { of: (c: Config) => c.carrierApiKey, purpose: "the worker's bearer to the carrier's API and media socket" },
  PAYMENTS_API_KEY: { of: (c: Config) => c.paymentsApiKey, purpose: "the worker's bearer to the card processor" },
  SIMULATOR_CONTROL_TOKEN: { of: (c: Config) => c.simulatorControlToken, purpose: "the bearer of the simulator's control API" },
  SECRETS_KEY: { of: (c: Config) => c.secretsKey, purpose: 'seals webhook signing secrets at rest' },
  METRICS_TOKEN: { of: (c: Config) => c.metricsToken, purpose: 'the bearer of GET /metrics' },
  TEMPORAL_PAYLOAD_KEY: {
    of: (c: Config) => c.temporalPayloadKey,
    purpose: 'encrypts every Temporal payload (phone numbers, transcripts) before it reaches the Temporal server',
  },
  TEMPORAL_CODEC_TOKEN: {
    of: (c: Config) => c.temporalCodecToken,
    purpose: 'the bearer of the codec endpoint /temporal-codec the Temporal UI and CLI decrypt payloads through',
  },
} as const;

/** Key rings (SECRETS_KEY's format, src/platform/crypto/secretBox.ts): each key must be 32 random bytes. */
const KEY_RING_SETTINGS: readonly SecretSetting[] = ['SECRETS_KEY', 'TEMPORAL_PAYLOAD_KEY'];

export type SecretSetting = keyof typeof SECRET_SETTINGS;

/** URLs a process hands to another process, with what the other side does with it (named in refusals). */
export const REACHABLE_URL_SETTINGS = {
  PUBLIC_BASE_URL: {
    of: (c: Config) => c.publicBaseUrl,
    purpose: 'the carrier sends call events to it; the portal and its invitation links are served under it',
  },
  SIMULATOR_CALLBACK_BASE_URL: { of: (c: Config) => c.simulatorCallbackBaseUrl, purpose: 'the simulator posts callbacks only under it' },
} as const;

export type ReachableUrlSetting = keyof typeof REACHABLE_URL_SETTINGS;

/**
 * What each process role needs: the one list the startup check enforces and the compose file is
 * tested against (`deploymentSettings`).
 */
export interface RoleRequirements {
  /** Must be set and strong. */
  secrets: SecretSetting[];
  /** Held to the same rules when set. */
  optionalSecrets: SecretSetting[];
  /** Must be set (`npm run up` records them in runtime.json; nothing else provides them). */
  settings: Array<'DATABASE_URL' | 'TEMPORAL_ADDRESS'>;
  /** Must name a host other processes can reach, never the unspecified address. */
  reachableUrls: ReachableUrlSetting[];
  /** Where the process listens: the dev profile is allowed only when this is a loopback address. */
  listen: 'HOST' | 'SIMULATOR_URL';
  /**
   * Addresses of other services that default to this machine's loopback: right under `npm run up`,
   * to be set wherever the services run apart (containers, several hosts). Not refused at start,
   * since one machine is a valid deployment.
   */
  loopbackDefaults: Array<'SIMULATOR_URL'>;
  /**
   * Holds the credentials of each environment's carrier (`config.carrier`): the worker calls the
   * carrier with them, the API verifies the carrier's webhooks with them (the carrier adapters'
   * `requiredSettings` read this).
   */
  carrierAccounts: boolean;
}

export const ROLE_REQUIREMENTS: Record<ProcessRole, RoleRequirements> = {
  api: {
    secrets: ['CARRIER_WEBHOOK_SECRET', 'SECRETS_KEY', 'TEMPORAL_PAYLOAD_KEY'],
    optionalSecrets: ['METRICS_TOKEN', 'TEMPORAL_CODEC_TOKEN'],
    settings: ['DATABASE_URL', 'TEMPORAL_ADDRESS'],
    // The portal's links and cookies are built from it (issue 27, L16): https outside the dev profile (`publicUrlProblem`).
    reachableUrls: ['PUBLIC_BASE_URL'],
    listen: 'HOST',
    loopbackDefaults: [],
    carrierAccounts: true,
  },
  worker: {
    secrets: ['CARRIER_API_KEY', 'PAYMENTS_API_KEY', 'SECRETS_KEY', 'TEMPORAL_PAYLOAD_KEY'],
    // Read when WORKER_METRICS_PORT is set (the worker's /metrics).
    optionalSecrets: ['METRICS_TOKEN'],
    settings: ['DATABASE_URL', 'TEMPORAL_ADDRESS'],
    reachableUrls: ['PUBLIC_BASE_URL'],
    listen: 'HOST',
    // The carrier and card processor (the simulator is the only adapter of both so far).
    loopbackDefaults: ['SIMULATOR_URL'],
    carrierAccounts: true,
  },
  simulator: {
    secrets: ['CARRIER_WEBHOOK_SECRET', 'CARRIER_API_KEY', 'PAYMENTS_API_KEY', 'SIMULATOR_CONTROL_TOKEN'],
    optionalSecrets: [],
    settings: [],
    reachableUrls: ['SIMULATOR_CALLBACK_BASE_URL'],
    listen: 'SIMULATOR_URL',
    loopbackDefaults: [],
    carrierAccounts: false,
  },
  cli: {
    secrets: [],
    // The history commands connect to Temporal with it.
    optionalSecrets: ['TEMPORAL_PAYLOAD_KEY'],
    settings: ['DATABASE_URL'],
    reachableUrls: [],
    listen: 'HOST',
    loopbackDefaults: [],
    carrierAccounts: false,
  },
};

/**
 * A provider's own settings rule (each adapter exports one as `requiredSettings`): what the provider
 * needs of a process of this role, given the configuration; nothing when no environment uses it.
 */
export type RequiredSettings = (role: ProcessRole, config: Config) => ConfigurationProblem[];

/** Every provider's `RequiredSettings`, by provider: `PROVIDER_SETTINGS` (src/adapters/settings.ts). */
export type ProviderSettings = Readonly<Record<string, RequiredSettings>>;

/**
 * The deprecated CARRIER_PROVIDER (read by `carrierFromEnv`, src/platform/config.ts): a known alias,
 * and never beside per-environment settings that disagree with it.
 */
function carrierSelectionProblems(config: Config): ConfigurationProblem[] {
  const alias = config.carrierProviderAlias;
  if (alias === undefined) return [];
  const meant = CARRIER_PROVIDER_ALIASES[alias];
  if (!meant)
    return [
      {
        setting: 'CARRIER_PROVIDER',
        message: `must be one of ${Object.keys(CARRIER_PROVIDER_ALIASES).join(', ')}, not "${alias}" (it is deprecated: set CARRIER_PROVIDER_LIVE and CARRIER_PROVIDER_TEST instead)`,
      },
    ];
  if (meant.live !== config.carrier.live || meant.test !== config.carrier.test)
    return [
      {
        setting: 'CARRIER_PROVIDER',
        message: `is a deprecated alias of CARRIER_PROVIDER_LIVE=${meant.live} with CARRIER_PROVIDER_TEST=${meant.test}, which the per-environment settings contradict: unset it`,
      },
    ];
  return [];
}

/**
 * US texting on a real carrier (README "Texting US numbers"): unregistered 10DLC traffic to US phones is
 * blocked, so a carrier's `requiredSettings` wants its registration (`what`, a `noun`) for the live
 * environment unless the operator declares that live lines text no US numbers (SMS_NON_US_ONLY=true).
 */
export function usTextingProblem(setting: string, what: string, noun: string): ConfigurationProblem {
  return {
    setting,
    message: `is not set: US carriers block SMS from numbers outside ${what}; set it to that ${noun}, or declare SMS_NON_US_ONLY=true if live lines never text US numbers (README "Texting US numbers")`,
  };
}

/** Settings that still work but are on their way out: every process logs each at startup. */
export function deprecatedSettings(config: Config): ConfigurationProblem[] {
  const alias = config.carrierProviderAlias;
  if (alias === undefined || !CARRIER_PROVIDER_ALIASES[alias]) return [];
  const meant = CARRIER_PROVIDER_ALIASES[alias];
  return [
    {
      setting: 'CARRIER_PROVIDER',
      message: `is deprecated: it reads as CARRIER_PROVIDER_LIVE=${meant.live} and CARRIER_PROVIDER_TEST=${meant.test}; set those instead`,
    },
  ];
}

/**
 * Every setting a process of this role must be given when it runs anywhere but under `npm run up`
 * (a container, another host): what it refuses to start without, the URLs it hands out, where it
 * listens and the addresses whose defaults are loopback. `test/unit/composeFile.test.ts` holds each
 * compose service to it.
 */
export function deploymentSettings(role: ProcessRole): string[] {
  const r = ROLE_REQUIREMENTS[role];
  return [...new Set([...r.settings, ...r.secrets, ...r.reachableUrls, r.listen, ...r.loopbackDefaults])];
}

export interface ConfigurationProblem {
  /** The setting to fix. */
  setting: string;
  message: string;
}

export interface ConfigurationReport {
  /** Refusals: the process must not start. */
  problems: ConfigurationProblem[];
  /** Tolerated only because of the dev profile on loopback. */
  warnings: ConfigurationProblem[];
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The address a role listens on (`listen` of its requirements): SIMULATOR_URL's host or HOST. */
export function listenHostOf(role: ProcessRole, config: Config): { setting: string; host: string } {
  if (ROLE_REQUIREMENTS[role].listen === 'SIMULATOR_URL') {
    try {
      return { setting: 'SIMULATOR_URL', host: new URL(config.simulatorUrl).hostname };
    } catch {
      return { setting: 'SIMULATOR_URL', host: config.simulatorUrl };
    }
  }
  return { setting: 'HOST', host: config.host };
}

/** An http(s) URL another process can reach: not the unspecified address a server binds to. */
function reachableUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${value}" is not an http(s) URL`;
  if (['0.0.0.0', '[::]', '::'].includes(url.hostname))
    return `"${value}" names the unspecified address ${url.hostname}, which no other process can reach; set it to this service's reachable URL`;
  return null;
}

/** Whether a URL names this machine's loopback, so that only its own browser reaches it. */
export function isLoopbackUrl(value: string): boolean {
  try {
    return isLoopbackHost(new URL(value).hostname);
  } catch {
    return false;
  }
}

/**
 * The API's public URL outside the dev profile (issue 27, L16): https, so that session cookies,
 * CSRF tokens, invitation links and API keys never cross a network in clear. Plain http is
 * accepted only on a loopback host (a deployment reached from its own machine, or behind a TLS
 * proxy on the same host that the operator points at 127.0.0.1): no network sees that traffic.
 */
function publicUrlProblem(config: Config): string | null {
  if (config.profile === 'dev' || config.publicBaseUrl.startsWith('https:') || isLoopbackUrl(config.publicBaseUrl)) return null;
  return `"${config.publicBaseUrl}" is not https: set PUBLIC_BASE_URL to the https URL your TLS proxy serves the API and portal under (README, "TLS")`;
}

export const PAYMENT_PROVIDERS = ['simulator', 'stripe'] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

/** Whether any environment charges through the simulator (and so needs PAYMENTS_API_KEY). */
export function usesPaymentsSimulator(config: Config): boolean {
  return config.paymentsProviders.test === 'simulator' || config.paymentsProviders.live === 'simulator';
}

/**
 * The card processor of each environment (issue 16) is a known provider; what that provider needs is its
 * own rule (Stripe's: src/adapters/payments/stripeSettings.ts).
 */
export function paymentProviderProblems(config: Config): ConfigurationProblem[] {
  return (['test', 'live'] as const)
    .filter((environment) => !(PAYMENT_PROVIDERS as readonly string[]).includes(config.paymentsProviders[environment]))
    .map((environment) => ({
      setting: environment === 'test' ? 'PAYMENTS_TEST_PROVIDER' : 'PAYMENTS_LIVE_PROVIDER',
      message: `(or PAYMENTS_PROVIDER) must be one of ${PAYMENT_PROVIDERS.join(', ')}, not "${config.paymentsProviders[environment]}"`,
    }));
}

/**
 * The live environment's carrier and card processor are both real or both simulated (production
 * profile; security review L17). A real carrier beside the simulated processor would let any
 * Luhn-valid number "save" as a live card and unlock real numbers and premium-rate calls billed to
 * nobody; Stripe beside the simulated carrier would charge real cards for calls that never happened.
 * The test environment moves no money on either side (Twilio's test credentials, Stripe's test mode),
 * so any pairing is allowed there (docs/decisions/carriers.md, "(issue 27)").
 */
export function livePairingProblems(role: ProcessRole, config: Config): ConfigurationProblem[] {
  if (config.profile !== 'production' || role === 'simulator') return [];
  const carrier = config.carrier.live;
  const payments = config.paymentsProviders.live;
  if (carrier !== 'simulator' && payments === 'simulator')
    return [
      {
        setting: 'PAYMENTS_LIVE_PROVIDER',
        message: `(or PAYMENTS_PROVIDER) is the simulator while CARRIER_PROVIDER_LIVE is ${carrier}: a simulated card would unlock real numbers and calls billed to nobody. Set PAYMENTS_LIVE_PROVIDER=stripe`,
      },
    ];
  if (carrier === 'simulator' && payments === 'stripe')
    return [
      {
        setting: 'CARRIER_PROVIDER_LIVE',
        message: `is the simulator while PAYMENTS_LIVE_PROVIDER is ${payments}: real cards would be charged for simulated calls and texts. Set CARRIER_PROVIDER_LIVE to a real carrier, or PAYMENTS_LIVE_PROVIDER=simulator`,
      },
    ];
  return [];
}

/**
 * Every problem of this process's configuration: the generic checks here, then each provider's own
 * (`providers`: `PROVIDER_SETTINGS` of src/adapters/settings.ts).
 */
export function configurationReport(role: ProcessRole, config: Config, providers: ProviderSettings): ConfigurationReport {
  const problems: ConfigurationProblem[] = [];
  const weak: ConfigurationProblem[] = [];
  for (const name of config.obsoleteSettings) {
    problems.push({ setting: name, message: `is no longer read: ${OBSOLETE_SETTINGS[name]}. Unset it.` });
  }
  const listen = listenHostOf(role, config);
  const devOnLoopback = config.profile === 'dev' && isLoopbackHost(listen.host);
  if (config.profile !== 'dev' && config.profile !== 'production') {
    problems.push({ setting: 'SWITCHBOARD_PROFILE', message: `must be "production" (the default) or "dev", not "${config.profile}"` });
  } else if (config.profile === 'dev' && !devOnLoopback) {
    problems.push({
      setting: 'SWITCHBOARD_PROFILE',
      message: `is "dev", which is allowed only on a loopback address (127.0.0.1, ::1, localhost), but ${listen.setting} is "${listen.host}"`,
    });
  }

  if (role === 'api' || role === 'worker') problems.push(...carrierSelectionProblems(config));
  const requirements = ROLE_REQUIREMENTS[role];
  for (const name of requirements.settings) {
    const value = name === 'DATABASE_URL' ? config.databaseUrl : config.temporalAddress;
    if (!value) problems.push({ setting: name, message: 'is not set; run through `npm run up` or set it in the environment' });
  }
  problems.push(...paymentProviderProblems(config), ...livePairingProblems(role, config));
  if (role === 'api') problems.push(...signupProblems(config));
  // The worker reaches the simulated processor with PAYMENTS_API_KEY only if an environment uses it; the API
  // takes the simulator's callbacks (CARRIER_WEBHOOK_SECRET) only if an environment runs on it (L20).
  const required = requirements.secrets.filter(
    (name) =>
      (name !== 'PAYMENTS_API_KEY' || role !== 'worker' || usesPaymentsSimulator(config)) &&
      (name !== 'CARRIER_WEBHOOK_SECRET' || role !== 'api' || environmentsOnCarrier(config, 'simulator').length > 0),
  );
  const checked: Array<{ name: SecretSetting; value: string }> = [];
  for (const name of [...requirements.secrets, ...requirements.optionalSecrets]) {
    const value = SECRET_SETTINGS[name].of(config);
    if (value === undefined || value === '') {
      if (required.includes(name))
        problems.push({
          setting: name,
          message: `is not set (${SECRET_SETTINGS[name].purpose}); generate one with \`openssl rand -hex 32\``,
        });
      continue;
    }
    checked.push({ name, value });
    if (KEY_RING_SETTINGS.includes(name)) {
      const keyProblem = keyRingProblem(name, value);
      if (keyProblem) problems.push({ setting: name, message: keyProblem });
      continue;
    }
    const weakness = secretWeakness(value);
    if (weakness) weak.push({ setting: name, message: `${weakness} (${SECRET_SETTINGS[name].purpose})` });
  }
  // One secret per direction: a value shared between two settings leaks one direction to the other's holder.
  for (let i = 0; i < checked.length; i += 1) {
    for (let j = i + 1; j < checked.length; j += 1) {
      if (checked[i].value === checked[j].value)
        weak.push({ setting: checked[j].name, message: `has the same value as ${checked[i].name}; every direction needs its own secret` });
    }
  }

  for (const name of requirements.reachableUrls) {
    const problem = reachableUrlProblem(REACHABLE_URL_SETTINGS[name].of(config));
    if (problem) problems.push({ setting: name, message: `${problem} (${REACHABLE_URL_SETTINGS[name].purpose})` });
    else if (name === 'PUBLIC_BASE_URL' && role === 'api') {
      const notHttps = publicUrlProblem(config);
      if (notHttps) problems.push({ setting: name, message: notHttps });
    }
  }
  for (const requiredSettings of Object.values(providers)) problems.push(...requiredSettings(role, config));
  return devOnLoopback ? { problems, warnings: weak } : { problems: [...problems, ...weak], warnings: [] };
}

export const SIGNUP_MODES = ['invite', 'open', 'approval'] as const;

/**
 * SIGNUP_MODE (issue 27, H5): a known mode; `open` and `approval` verify each owner's address by
 * mail, so outside the dev profile (which writes mail to its log) they need SMTP_URL.
 */
function signupProblems(config: Config): ConfigurationProblem[] {
  if (!(SIGNUP_MODES as readonly string[]).includes(config.signupMode))
    return [{ setting: 'SIGNUP_MODE', message: `must be one of ${SIGNUP_MODES.join(', ')}, not "${config.signupMode}"` }];
  if (config.signupMode !== 'invite' && !config.smtpUrl && config.profile !== 'dev')
    return [
      {
        setting: 'SMTP_URL',
        message: `is not set, but SIGNUP_MODE=${config.signupMode} verifies every new owner's address by mail; set SMTP_URL (README "Configuration") or SIGNUP_MODE=invite`,
      },
    ];
  return [];
}

export function configurationProblems(role: ProcessRole, config: Config, providers: ProviderSettings): ConfigurationProblem[] {
  return configurationReport(role, config, providers).problems;
}

export class ConfigurationError extends Error {
  constructor(
    readonly role: ProcessRole,
    readonly problems: ConfigurationProblem[],
  ) {
    super(
      `switchboard ${role} refuses to start: ${problems.length === 1 ? 'one setting is' : `${problems.length} settings are`} missing, weak or not allowed\n${problems.map((p) => `  - ${p.setting} ${p.message}`).join('\n')}`,
    );
    this.name = 'ConfigurationError';
  }
}

/**
 * Throws `ConfigurationError` naming every problem; returns the warnings the dev profile tolerated,
 * for the caller to log.
 */
export function assertStartupConfiguration(role: ProcessRole, config: Config, providers: ProviderSettings): ConfigurationProblem[] {
  const report = configurationReport(role, config, providers);
  if (report.problems.length > 0) throw new ConfigurationError(role, report.problems);
  return report.warnings;
}

/** For entry points: prints a refusal as one clear message (no stack) and exits non-zero. */
export function exitOnStartupFailure(err: unknown): never {
  if (err instanceof ConfigurationError) console.error(err.message);
  else console.error(err);
  process.exit(1);
}
