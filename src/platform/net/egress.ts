import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import type { Config } from '../config';
import { classifyAddress, hostOf, inNetworks, isThisHost, parseNetworks, type AddressVerdict, type Network } from './addresses';
import { outboundHttpSpan } from '../tracing/http';

/**
 * The one policy for every connection to a customer-supplied URL (webhook_url,
 * status_callback_url, default_webhook_url, audio_handler_url): only public addresses, never one
 * of Switchboard's own services, checked when a URL is saved and again on every connection.
 *
 * - At connect time the name is resolved by `lookupFor`, every address is vetted, and the socket
 *   connects to a vetted address: a name that rebinds to an internal address after it was saved
 *   is refused. IP literals skip name resolution in Node, so they are vetted before connecting.
 *   `request` (webhooks, over node:http, which never follows redirects) and `webSocketOptions`
 *   (the audio relay's `ws`) are the two ways out.
 * - Operators may admit networks that are not public (OUTBOUND_ALLOWED_NETWORKS, off by default:
 *   local development and tests deliver to loopback). Own services stay refused even then.
 * - Own services are the addresses and ports the configuration names: the API (bind address and
 *   public base URL), the carrier (simulator), the model, Temporal and Postgres. A service on this
 *   host answers on every local address, so its port is refused on all of them.
 */

export class EgressRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefusedError';
  }
}

export interface ServiceEndpoint {
  host: string;
  port: number;
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface EgressRequest {
  method: string;
  headers: Record<string, string>;
  body: string;
  /** Aborting destroys the request: it fails with "socket hang up", a response being read with "aborted". */
  signal: AbortSignal;
}

export interface EgressPolicyOptions {
  /** CIDR networks admitted although not public (already validated by the config). */
  allowedNetworks?: readonly string[];
  /** Read at each check: the harness learns its API's port after building the policy. */
  ownServices?: () => readonly ServiceEndpoint[];
  /** Name resolution; the system resolver (`dns.lookup`, as sockets use) by default. */
  resolve?: Resolver;
}

/** How long own-service names stay resolved. */
const OWN_SERVICE_TTL_MS = 60_000;
/** A URL being saved whose name does not resolve within this is accepted (checked again at connect time). */
export const SAVE_TIME_RESOLVE_MS = 3_000;
const DEFAULT_PORTS: Record<string, number> = {
  'http:': 80,
  'ws:': 80,
  'https:': 443,
  'wss:': 443,
  'postgres:': 5432,
  'postgresql:': 5432,
};

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export class EgressPolicy {
  private readonly allowed: Network[];
  private readonly ownServices: () => readonly ServiceEndpoint[];
  private readonly resolve: Resolver;
  private readonly ownAddresses = new Map<string, { until: number; verdicts: Promise<AddressVerdict[]> }>();
  /** Keep-alive pools; a pooled socket was vetted when it connected. Idle sockets close after 4 s, before most servers close them. */
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, timeout: 4_000 }),
    https: new https.Agent({ keepAlive: true, timeout: 4_000 }),
  };

  constructor(options: EgressPolicyOptions = {}) {
    this.allowed = parseNetworks((options.allowedNetworks ?? []).join(','));
    this.ownServices = options.ownServices ?? (() => []);
    this.resolve = options.resolve ?? systemResolver;
  }

  /** Why connecting to `address` on `port` is refused (e.g. "a loopback address"), or null. */
  async refusalOf(address: string, port: number): Promise<string | null> {
    const verdict = classifyAddress(address);
    if (await this.isOwnService(verdict, port)) return "an address of Switchboard's own services";
    if (verdict.nonPublic && !inNetworks(verdict, this.allowed)) return verdict.nonPublic;
    return null;
  }

  /** Resolves `hostname` and returns its addresses if every one of them may be reached on `port`. */
  async resolveVetted(hostname: string, port: number): Promise<LookupAddress[]> {
    const addresses = await this.resolve(hostname);
    for (const { address } of addresses) {
      const refusal = await this.refusalOf(address, port);
      if (refusal) throw new EgressRefusedError(`${hostname} resolves to ${address}, ${refusal}`);
    }
    return addresses;
  }

  /** A `lookup` for `net`/`tls` sockets (and `ws`) connecting to `port`: only vetted addresses come out. */
  lookupFor(port: number): LookupFunction {
    return (hostname, options, callback) => {
      const reply = callback as (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
      this.resolveVetted(hostname, port).then(
        (addresses) => {
          const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
          const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
          if (usable.length === 0)
            return reply(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '', 0);
          if (options.all) reply(null, usable);
          else reply(null, usable[0].address, usable[0].family);
        },
        (err: NodeJS.ErrnoException) => reply(err, '', 0),
      );
    };
  }

  /**
   * An http(s) request to a customer URL: resolves with the response once its headers arrive.
   * A refused destination rejects with EgressRefusedError before a byte is sent. Redirects are
   * answers like any other (node:http never follows them).
   */
  async request(url: string, init: EgressRequest): Promise<http.IncomingMessage> {
    const target = new URL(url);
    const port = portOf(target);
    const { host, literal } = hostOf(target);
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new EgressRefusedError(`${target.protocol} URLs are not delivered to`);
    if (literal) {
      const refusal = await this.refusalOf(host, port);
      if (refusal) throw new EgressRefusedError(`${host} is ${refusal}`);
    }
    const secure = target.protocol === 'https:';
    init.signal.throwIfAborted();
    return outboundHttpSpan(init.method, target, (traceHeaders) => this.send(target, port, secure, init, traceHeaders));
  }

  private send(
    target: URL,
    port: number,
    secure: boolean,
    init: EgressRequest,
    traceHeaders: Record<string, string>,
  ): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const options = {
        method: init.method,
        headers: { ...traceHeaders, ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
        agent: secure ? this.agents.https : this.agents.http,
        lookup: this.lookupFor(port),
      };
      const req = (secure ? https : http).request(target, options, (response) => {
        // A response may fail after its reader has stopped (aborted, or cut off for its size):
        // that must not become an unhandled 'error'. Readers still see errors while they read.
        response.on('error', () => undefined);
        resolve(response);
      });
      // Not node's `signal` option, and no error given to `destroy`: both can make a keep-alive
      // socket that was just handed back to the pool emit an 'error' nobody listens to. A request
      // cut off this way fails with "socket hang up" (or its response with "aborted").
      const onAbort = () => req.destroy();
      init.signal.addEventListener('abort', onAbort, { once: true });
      req.once('close', () => init.signal.removeEventListener('abort', onAbort));
      req.on('error', reject);
      req.end(init.body);
    });
  }

  /** Options for `new WebSocket(url, ...)`: throws EgressRefusedError for a refused IP literal. */
  async webSocketOptions(url: string): Promise<{ lookup: LookupFunction }> {
    const parsed = new URL(url);
    const port = portOf(parsed);
    const { host, literal } = hostOf(parsed);
    if (literal) {
      const refusal = await this.refusalOf(host, port);
      if (refusal) throw new EgressRefusedError(`${host} is ${refusal}`);
    }
    return { lookup: this.lookupFor(port) };
  }

  /**
   * The save-time check of a customer URL (its scheme already checked): a refusal to show the
   * customer, or null. A name that does not resolve (yet) is accepted: DNS is often set up after
   * the line, and every connection is checked again. Live lines need https/wss unless every
   * address is in the operator's allow-list (local development).
   */
  async refusalOfUrl(raw: string, environment: 'test' | 'live'): Promise<string | null> {
    const url = new URL(raw);
    const port = portOf(url);
    const { host, literal } = hostOf(url);
    let addresses: string[] = [host];
    if (!literal) {
      try {
        addresses = (await withTimeout(this.resolve(host), SAVE_TIME_RESOLVE_MS)).map((a) => a.address);
      } catch {
        addresses = [];
      }
    }
    for (const address of addresses) {
      const refusal = await this.refusalOf(address, port);
      if (refusal)
        return `${literal ? address : `${host} resolves to ${address}, which`} is ${refusal}; only public addresses can be reached`;
    }
    const plain = url.protocol === 'http:' || url.protocol === 'ws:';
    if (
      environment === 'live' &&
      plain &&
      !(addresses.length > 0 && addresses.every((a) => inNetworks(classifyAddress(a), this.allowed)))
    ) {
      return `Must use ${url.protocol === 'ws:' ? 'wss' : 'https'} in the live environment`;
    }
    return null;
  }

  /** The save-time check of several URL fields (those given as strings): one `{field, message}` per refused field. */
  async fieldProblems(fields: Record<string, unknown>, environment: 'test' | 'live'): Promise<Array<{ field: string; message: string }>> {
    const problems: Array<{ field: string; message: string }> = [];
    for (const [field, value] of Object.entries(fields)) {
      if (typeof value !== 'string') continue;
      const refusal = await this.refusalOfUrl(value, environment);
      if (refusal) problems.push({ field, message: refusal });
    }
    return problems;
  }

  /** Closes pooled connections. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async isOwnService(verdict: AddressVerdict, port: number): Promise<boolean> {
    const local = isThisHost(verdict);
    for (const service of this.ownServices()) {
      if (service.port !== port) continue;
      for (const own of await this.addressesOf(service.host)) {
        if (own.address === verdict.address || (verdict.embeddedIpv4 !== undefined && own.address === verdict.embeddedIpv4)) return true;
        if (local && isThisHost(own)) return true;
      }
    }
    return false;
  }

  private addressesOf(host: string): Promise<AddressVerdict[]> {
    if (net.isIP(host)) return Promise.resolve([classifyAddress(host)]);
    const cached = this.ownAddresses.get(host);
    if (cached && cached.until > Date.now()) return cached.verdicts;
    // A name of ours that does not resolve cannot be connected to by that name either.
    const verdicts = this.resolve(host).then(
      (addresses) => addresses.map((a) => classifyAddress(a.address)),
      () => [],
    );
    this.ownAddresses.set(host, { until: Date.now() + OWN_SERVICE_TTL_MS, verdicts });
    return verdicts;
  }
}

function portOf(url: URL): number {
  return Number(url.port) || DEFAULT_PORTS[url.protocol] || 80;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The addresses and ports the configuration names for Switchboard's own services. */
export function ownServiceEndpoints(
  config: Pick<Config, 'host' | 'port' | 'publicBaseUrl' | 'simulatorUrl' | 'modelBaseUrl' | 'temporalAddress' | 'databaseUrl'>,
): ServiceEndpoint[] {
  const endpoints: ServiceEndpoint[] = [{ host: config.host, port: config.port }];
  const add = (raw: string | undefined, defaultPort?: number) => {
    if (!raw) return;
    try {
      const url = new URL(raw);
      const { host } = hostOf(url);
      if (host) endpoints.push({ host, port: Number(url.port) || defaultPort || portOf(url) });
    } catch {
      // not a URL the service could connect to either
    }
  };
  add(config.publicBaseUrl);
  add(config.simulatorUrl);
  add(config.modelBaseUrl);
  add(config.temporalAddress && `tcp://${config.temporalAddress}`, 7233);
  add(config.databaseUrl, 5432);
  return endpoints;
}

/** The loopback networks `npm run up`, the test suite and the benches admit: their receivers listen on 127.0.0.1. */
export const LOOPBACK_NETWORKS: readonly string[] = ['127.0.0.1/32', '::1/128'];

const policies = new WeakMap<Config, EgressPolicy>();

/** The policy of a configuration, built once per config object (its own services are read from it at each check). */
export function egressPolicyFor(config: Config): EgressPolicy {
  let policy = policies.get(config);
  if (!policy) {
    policy = new EgressPolicy({ allowedNetworks: config.outboundAllowedNetworks, ownServices: () => ownServiceEndpoints(config) });
    policies.set(config, policy);
  }
  return policy;
}
