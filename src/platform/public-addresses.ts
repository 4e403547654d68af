// Which IP addresses Folio may connect to when a client names the URL. A fetch of
// a client's document must not become a request into Folio's own network (SSRF):
// draft-ietf-oauth-client-id-metadata-document, "Server Side Request Forgery
// (SSRF) Attacks", refuses the special-use addresses of RFC 6890.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to; injected so tests need no DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export interface AddressPolicy {
  /** Private (RFC 1918), unique-local and CGNAT addresses: only where an operator says so. */
  allowPrivateAddresses: boolean;
  /** Loopback addresses: only for a loopback host outside production. */
  allowLoopback: boolean;
}

// Instance metadata services answer with cloud credentials. Two sit in ranges an
// operator may open (fd00::/8 unique-local, 100.64.0.0/10 CGNAT), so they are
// refused by address whatever the policy.
const METADATA_SERVICES = new Set(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200']);
const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'carrierGradeNat']);
/** RFC 6052 §2.1: the well-known NAT64 prefix carries an IPv4 address in its last 32 bits. */
const NAT64_PREFIX = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * The range `address` belongs to as ipaddr.js names it ('unicast' for an ordinary
 * public address), after unwrapping the IPv4 inside an IPv4-mapped or NAT64 address.
 */
export function addressRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.range();
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.match(NAT64_PREFIX)) {
    const [high, low] = ipv6.parts.slice(6) as [number, number];
    return ipaddr.IPv4.parse(`${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`).range();
  }
  const range = ipv6.range();
  // The deprecated IPv4-compatible form (::a.b.c.d), which ipaddr.js calls unicast.
  if (range === 'unicast' && ipv6.parts.slice(0, 6).every((part) => part === 0)) return 'ipv4Compatible';
  return range;
}

/** Why Folio may not connect to `address`, or null when it may. */
export function forbiddenAddressReason(address: string, policy: AddressPolicy): string | null {
  const normalized = ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
  if (METADATA_SERVICES.has(normalized)) return 'a cloud metadata service';
  const range = addressRange(address);
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy.allowLoopback) return null;
  if (PRIVATE_RANGES.has(range) && policy.allowPrivateAddresses) return null;
  return `special-use (${range})`;
}
