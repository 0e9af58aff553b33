import net from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * Pure address classification for customer egress (src/platform/net/egress.ts holds the policy): which IP
 * addresses are public, and what the others are. The ranges are ipaddr.js's (IANA special-purpose
 * registries); IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-translated, NAT64's
 * 64:ff9b::/96, 6to4) are judged by the IPv4 address they carry.
 */

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

const DESCRIPTIONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a unique local address',
  deprecatedSiteLocal: 'a site-local address',
  teredo: 'a Teredo tunnel address',
  reserved: 'a reserved address',
};

/** Global unicast IPv6 (2000::/3): everything outside it is reserved, unallocated or special. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
/** NAT64's well-known prefix carries a routable IPv4 address; 64:ff9b:1::/48 is local use. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

export interface AddressVerdict {
  /** The address as given, normalised. */
  address: string;
  /** The IPv4 address an IPv6 form carries, which is what the verdict is about. */
  embeddedIpv4?: string;
  /** Why the address is not public (e.g. "a loopback address"), or null for a public address. */
  nonPublic: string | null;
}

/** Classifies one IP address (v4 or v6, no brackets). Throws on a string that is not one. */
export function classifyAddress(address: string): AddressVerdict {
  const ip = ipaddr.parse(address);
  const normalised = ip.toString();
  if (ip.kind() === 'ipv4') return { address: normalised, nonPublic: describe(ip) };
  const embedded = embeddedIpv4(ip as ipaddr.IPv6);
  if (embedded) return { address: normalised, embeddedIpv4: embedded.toString(), nonPublic: describe(embedded) };
  return { address: normalised, nonPublic: describe(ip) };
}

function describe(ip: Ip): string | null {
  const range = ip.range();
  if (range === 'unicast') {
    if (ip.kind() === 'ipv6' && !ip.match(GLOBAL_UNICAST_V6)) return 'a reserved address';
    return null;
  }
  return DESCRIPTIONS[range] ?? `a reserved address (${range})`;
}

function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = ip.toByteArray();
  const range = ip.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || (range === 'rfc6052' && ip.match(NAT64_WELL_KNOWN)))
    return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
}

export type Network = [Ip, number];

/**
 * Parses a comma-separated list of networks in CIDR notation (a bare address is one host), as
 * the operator writes OUTBOUND_ALLOWED_NETWORKS. Throws naming the first entry that is not one.
 */
export function parseNetworks(list: string): Network[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      try {
        if (entry.includes('/')) return ipaddr.parseCIDR(entry);
        const ip = ipaddr.parse(entry);
        return [ip, ip.kind() === 'ipv4' ? 32 : 128] as Network;
      } catch {
        throw new Error(`"${entry}" is not a network in CIDR notation (e.g. 127.0.0.1/32 or ::1/128)`);
      }
    });
}

/** Whether the address (or the IPv4 address it carries) lies in one of the networks. */
export function inNetworks(verdict: AddressVerdict, networks: readonly Network[]): boolean {
  const candidates = [verdict.address, ...(verdict.embeddedIpv4 ? [verdict.embeddedIpv4] : [])].map((a) => ipaddr.parse(a));
  return candidates.some((ip) => networks.some(([network, prefix]) => network.kind() === ip.kind() && ip.match(network, prefix)));
}

/**
 * Whether a connection to the address ends on this host: loopback, unspecified (which connects
 * to this host) or one of its interfaces' addresses. A service listening here on some port is
 * reachable through any of them.
 */
export function isThisHost(verdict: AddressVerdict): boolean {
  const address = verdict.embeddedIpv4 ?? verdict.address;
  const range = ipaddr.parse(address).range();
  if (range === 'loopback' || range === 'unspecified') return true;
  return interfaceAddresses().has(address);
}

function interfaceAddresses(): Set<string> {
  const found = new Set<string>();
  for (const entries of Object.values(os.networkInterfaces())) {
    for (const entry of entries ?? []) found.add(ipaddr.parse(entry.address.split('%')[0]).toString());
  }
  return found;
}

/** The host of a URL without IPv6 brackets, and whether it is an IP literal. */
export function hostOf(url: URL): { host: string; literal: boolean } {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host, literal: net.isIP(host) !== 0 };
}

/**
 * The unit a per-client-address limit counts (issue 27, L12): an IPv4 address as it is; an IPv6
 * form that carries an IPv4 address (IPv4-mapped as `::ffff:a.b.c.d`, and the others above) as that
 * IPv4 address; any other IPv6 address as its /64, the smallest block a subscriber is given, so
 * rotating addresses inside one's own /64 gains nothing. A string that is no address stays as it is.
 */
export function addressLimitKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const embedded = embeddedIpv4(ip as ipaddr.IPv6);
  if (embedded) return embedded.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
