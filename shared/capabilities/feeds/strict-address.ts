/**
 * The one address grammar every importer and range-feed parser accepts: canonical dotted-quad
 * IPv4 (four decimal octets, no leading zeros) and RFC 4291 IPv6 text without a zone, each
 * optionally with a decimal prefix length no shorter than the feed allows.
 *
 * ipaddr.js alone is too lenient for data that flags addresses: it reads `185.220.10` as
 * 185.220.0.10, `3232235777` as 192.168.1.1, `017.1.1.1` as octal 15.1.1.1 and `1.2.3.4/016` as
 * a /16, and accepts `fe80::1%eth0`. A publisher's file holding any of these is garbled, so the
 * text is checked here first and ipaddr.js only converts what passed.
 */
import ipaddr from 'ipaddr.js';

/** The widest prefix a feed accepts, per family: nothing shorter than /v4 or /v6. */
export interface PrefixFloor {
  v4: number;
  v6: number;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)';
const DOTTED_QUAD = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
const HEXTET = /^[0-9a-f]{1,4}$/i;
const PREFIX = /^(?:0|[1-9]\d{0,2})$/;

export function isCanonicalIPv4(text: string): boolean {
  return DOTTED_QUAD.test(text);
}

/** RFC 4291 section 2.2 text: eight hextets, one `::` at most, maybe a dotted quad at the end. */
export function isStrictIPv6(text: string): boolean {
  if (!text.includes(':')) return false;
  let body = text;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!DOTTED_QUAD.test(tail)) return false;
    // The dotted quad stands for two hextets.
    body = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  if (halves.length === 1) {
    const all = groups(body);
    return all.length === 8 && all.every((g) => HEXTET.test(g));
  }
  const all = [...groups(halves[0]!), ...groups(halves[1]!)];
  return all.length <= 7 && all.every((g) => HEXTET.test(g));
}

export interface StrictRange {
  /** The network address: a prefix with host bits set is refused, never masked into one. */
  address: ipaddr.IPv4 | ipaddr.IPv6;
  bits: number;
  /** `address/bits` in ipaddr.js's normal form, IPv4-mapped IPv6 written as IPv4. */
  cidr: string;
}

/** The address with every bit past the first `bits` cleared: the network it is in. */
function networkOf(address: ipaddr.IPv4 | ipaddr.IPv6, bits: number): ipaddr.IPv4 | ipaddr.IPv6 {
  const bytes = address.toByteArray().map((b, i) => {
    const kept = Math.max(0, Math.min(8, bits - i * 8));
    return b & (0xff << (8 - kept)) & 0xff;
  });
  return ipaddr.fromByteArray(bytes);
}

/**
 * An address or CIDR, or the reason it is refused. An IPv4-mapped IPv6 range is read as the IPv4
 * range it maps, so `::ffff:0:0/96` is 0.0.0.0/0 and meets the IPv4 floor.
 *
 * A CIDR with host bits set (`1.2.3.4/8`) is refused: masking it would turn one mistyped address
 * into its whole network (16.8 million addresses for a /8), and a publisher that writes one is
 * garbled or means something else; either way the file is not data to widen.
 */
export function parseStrictRange(text: string, floor: PrefixFloor): StrictRange | string {
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  if (isCanonicalIPv4(addressText)) address = ipaddr.IPv4.parse(addressText);
  else if (isStrictIPv6(addressText)) address = ipaddr.IPv6.parse(addressText);
  else return 'not a dotted-quad IPv4 or an IPv6 address';
  let width = address.kind() === 'ipv4' ? 32 : 128;
  let bits = width;
  if (prefixText !== undefined) {
    if (!PREFIX.test(prefixText) || Number(prefixText) > width)
      return `'/${prefixText}' is not a prefix length`;
    bits = Number(prefixText);
  }
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    if (bits < 96) return `/${bits} reaches beyond the IPv4-mapped block`;
    address = (address as ipaddr.IPv6).toIPv4Address();
    bits -= 96;
    width = 32;
  }
  const min = width === 32 ? floor.v4 : floor.v6;
  if (bits < min) return `/${bits} is wider than this feed accepts (/${min} at most)`;
  // Checked after mapping, so an IPv4-mapped range names the IPv4 network it stands for.
  const network = networkOf(address, bits);
  if (network.toString() !== address.toString()) {
    return `'${text}' has host bits set: the network is ${network.toString()}/${bits}`;
  }
  return { address, bits, cidr: `${address.toString()}/${bits}` };
}
