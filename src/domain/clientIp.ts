import ipaddr from 'ipaddr.js';

export type CidrList = ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

/** Parses `10.0.0.0/8, 127.0.0.1, ::1` into CIDR pairs; throws on a bad entry (named by the caller). */
export function parseCidrList(text: string): CidrList {
  const out: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    if (item.includes('/')) {
      out.push(ipaddr.parseCIDR(item));
    } else {
      const addr = ipaddr.parse(item);
      out.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
    }
  }
  return out;
}

function normalize(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  // ipaddr.isValid also takes inet_aton shorthands (`12345`, `127.1`, octal `010.0.0.1`);
  // no proxy writes those, and reading them would record an address nobody sent.
  if (!ipaddr.IPv4.isValidFourPartDecimal(ip) && !ipaddr.IPv6.isValid(ip)) return null;
  const addr = ipaddr.parse(ip);
  // A v4 peer on a dual-stack socket arrives as ::ffff:a.b.c.d.
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

export function isTrusted(ip: string, trusted: CidrList): boolean {
  if (trusted.length === 0) return false;
  const addr = normalize(ip);
  if (!addr) return false;
  for (const [range, bits] of trusted) {
    if (range.kind() === addr.kind() && addr.match(range, bits)) return true;
  }
  return false;
}

function validIp(v: string | undefined): string | null {
  if (!v) return null;
  const t = v.trim();
  const addr = normalize(t);
  return addr ? addr.toString() : null;
}

type HeaderValue = string | string[] | undefined;
const first = (h: HeaderValue): string | undefined => (Array.isArray(h) ? h[0] : h);

/**
 * The client address (docs/server.md#client-address): the socket peer, unless the peer is a
 * trusted proxy; then True-Client-IP, X-Real-IP, or the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy.
 */
export function clientIp(peer: string, headers: Record<string, HeaderValue>, trusted: CidrList): string {
  // The common case, no proxies to believe: the socket peer as Node reports it,
  // with a dual-stack `::ffff:` prefix removed. Runs on every redirect.
  if (trusted.length === 0) return peer.startsWith('::ffff:') && peer.includes('.') ? peer.slice(7) : peer;
  const peerIp = validIp(peer) ?? peer;
  if (!isTrusted(peerIp, trusted)) return peerIp;
  const tci = validIp(first(headers['true-client-ip']));
  if (tci) return tci;
  const real = validIp(first(headers['x-real-ip']));
  if (real) return real;
  const xff = headers['x-forwarded-for'];
  const entries = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',');
  for (let i = entries.length - 1; i >= 0; i--) {
    const ip = validIp(entries[i]);
    if (ip && !isTrusted(ip, trusted)) return ip;
  }
  return peerIp;
}
