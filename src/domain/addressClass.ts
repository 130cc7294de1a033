import ipaddr from 'ipaddr.js';

/**
 * Address classes for the outbound SSRF guard (docs/lifecycle.md#ssrf-guard). The guard is
 * deny-by-default: only `public` may be dialled unless the operator sets
 * JOE_HEALTH_CHECK_ALLOW_PRIVATE. Classes come from ipaddr.js's maintained
 * special-purpose ranges; CGNAT, "this network" and NAT64 are also matched
 * explicitly because the spec names them and a library update must not be able
 * to drop them silently.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'uniqueLocal'
  | 'linkLocal'
  | 'multicast'
  | 'unspecified'
  | 'thisNetwork'
  | 'cgnat'
  | 'broadcast'
  | 'nat64'
  /** Documentation, benchmarking, 6to4, Teredo, future-use and other non-global ranges. */
  | 'reserved'
  /** Not an IP address literal at all; never dialled. */
  | 'invalid';

export interface AddressClassification {
  class: AddressClass;
  /** The address actually classified: IPv4-mapped and IPv4-compatible IPv6 are unmapped first. */
  address: string;
  family: 4 | 6;
  /** For NAT64 addresses, the IPv4 address the translator would reach. */
  embeddedIPv4?: string;
}

const CGNAT = ipaddr.parseCIDR('100.64.0.0/10');
const THIS_NETWORK = ipaddr.parseCIDR('0.0.0.0/8');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
// RFC 8215 local-use NAT64 prefix: the same reachability problem as the well-known one.
const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48');
// Global unicast as allocated by IANA; v6 space outside it is special or unallocated.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const V4_RANGES: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'linkLocal',
  multicast: 'multicast',
  carrierGradeNat: 'cgnat',
  broadcast: 'broadcast',
};

const V6_RANGES: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  uniqueLocal: 'uniqueLocal',
  linkLocal: 'linkLocal',
  multicast: 'multicast',
  unspecified: 'unspecified',
  rfc6052: 'nat64',
};

function classifyV4(addr: ipaddr.IPv4): AddressClass {
  if (addr.match(THIS_NETWORK)) return addr.toNormalizedString() === '0.0.0.0' ? 'unspecified' : 'thisNetwork';
  if (addr.match(CGNAT)) return 'cgnat';
  return V4_RANGES[addr.range()] ?? 'reserved';
}

/** The IPv4 address in the low 32 bits of an IPv6 address. */
function low32(addr: ipaddr.IPv6): ipaddr.IPv4 {
  const p = addr.parts;
  return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
}

function isIPv4Compatible(addr: ipaddr.IPv6): boolean {
  // ::a.b.c.d (deprecated, RFC 4291 §2.5.5.1); `::` and `::1` keep their own meaning.
  const p = addr.parts;
  return p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1);
}

function parseLiteral(raw: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  let s = raw.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  // A zone index (fe80::1%eth0) names an interface, not a different address.
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  if (s.includes(':')) return ipaddr.IPv6.isValid(s) ? ipaddr.IPv6.parse(s) : null;
  // Only dotted quads: shorthand forms (`127.1`) never come out of a resolver or a parsed URL.
  return ipaddr.IPv4.isValidFourPartDecimal(s) ? ipaddr.IPv4.parse(s) : null;
}

export function classifyAddress(raw: string): AddressClassification {
  const parsed = parseLiteral(raw);
  if (!parsed) return { class: 'invalid', address: raw, family: raw.includes(':') ? 6 : 4 };
  if (parsed.kind() === 'ipv4') {
    const v4 = parsed as ipaddr.IPv4;
    return { class: classifyV4(v4), address: v4.toString(), family: 4 };
  }
  const v6 = parsed as ipaddr.IPv6;
  // ::ffff:127.0.0.1 is loopback, not an unlisted v6 address: unmap before any range test.
  if (v6.isIPv4MappedAddress()) {
    const v4 = v6.toIPv4Address();
    return { class: classifyV4(v4), address: v4.toString(), family: 4 };
  }
  if (isIPv4Compatible(v6)) {
    const v4 = low32(v6);
    return { class: classifyV4(v4), address: v4.toString(), family: 4 };
  }
  const address = v6.toString();
  if (v6.match(NAT64_WELL_KNOWN) || v6.match(NAT64_LOCAL_USE)) {
    // Refused whatever it embeds: the translator sits inside the operator's network and would
    // carry the probe to any IPv4 address, private ones included.
    return { class: 'nat64', address, family: 6, embeddedIPv4: low32(v6).toString() };
  }
  const range = v6.range();
  const cls = V6_RANGES[range] ?? 'reserved';
  if (cls === 'public' && !v6.match(GLOBAL_UNICAST_V6)) return { class: 'reserved', address, family: 6 };
  return { class: cls, address, family: 6 };
}

/** True when the guard may dial this address with the private-address block in force. */
export function isPublicAddress(raw: string): boolean {
  return classifyAddress(raw).class === 'public';
}
