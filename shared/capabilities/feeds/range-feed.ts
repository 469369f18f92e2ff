/**
 * Address-list feeds: the Tor exit list, hosting ranges, VPN and proxy ranges. One entry per
 * line: an IPv4 or IPv6 address or CIDR, then, when the feed has kinds, a comma and the kind.
 * `#` starts a comment; a comment after an entry names the service the range belongs to
 * (`185.65.134.0/24,vpn # Mullvad VPN`), which resolution reports for an analyst. This is the shape of the Tor Project's bulk exit list
 * (https://check.torproject.org/torbulkexitlist: one address per line) and of the usual
 * commercial VPN/proxy range exports.
 *
 * Addresses are read as strictly as the importers write them (strict-address.ts), and a feed is
 * refused whole, naming the line, when one is not, when a range is wider than the feed allows or
 * has host bits set, or when the file is larger or longer than it may be: a garbled file never
 * becomes a snapshot.
 */
import type { FeedEntry, RangeEntry, SystemEntry } from '../../resolution/range-set.ts';
import { FeedError, feedLines } from './feed-error.ts';
import type { FeedLimits } from './importers/imported-feed.ts';
import { parseStrictRange } from './strict-address.ts';

/**
 * For a caller that names no feed: no range wider than IANA's units (an IPv4 /8, an IPv6 /12),
 * so `0.0.0.0/0` and `::/0` are refused whatever the feed.
 */
export const ANY_RANGE_FEED: FeedLimits = {
  minPrefix: { v4: 8, v6: 12 },
  maxBytes: 128 * 1024 * 1024,
  maxRecords: 2_000_000,
};

function toBigInt(bytes: number[]): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/** `AS<number>`: a whole autonomous system, in a feed that may list them (FeedLimits.systems). */
const SYSTEM = /^AS([1-9]\d{0,9})$/;

/**
 * Numbers that no network announces on the public internet (RFC 7607 AS 0, AS_TRANS 23456, the
 * documentation and private-use blocks of RFC 5398 and 6996, the last of each width): a list that
 * names one is garbled.
 */
function isPublicAsn(asn: number): boolean {
  return !(
    asn > 0xffffffff ||
    asn === 23456 ||
    (asn >= 64496 && asn <= 65535) ||
    (asn >= 65536 && asn <= 131071) ||
    asn >= 4200000000
  );
}

/** The entry a line's first column names: a range, a system, or why it is neither. */
function entryOf(
  address: string,
  line: number,
  limits: FeedLimits,
): Omit<RangeEntry, 'kind'> | Omit<SystemEntry, 'kind'> {
  const system = SYSTEM.exec(address);
  if (system) {
    const asn = Number(system[1]);
    if (!limits.systems)
      throw new FeedError(`line ${line}: this feed lists addresses, not autonomous systems`);
    if (!isPublicAsn(asn)) throw new FeedError(`line ${line}: ${address} is not a public AS number`);
    return { version: 'as', asn };
  }
  const range = parseStrictRange(address, limits.minPrefix);
  if (typeof range === 'string') throw new FeedError(`line ${line}: not an IP address or CIDR: ${range}`);
  const width = range.address.kind() === 'ipv4' ? 32 : 128;
  // The network address itself: parseStrictRange refuses a CIDR with host bits set (the line is
  // named above), so a mistyped `1.2.3.4/8` never becomes all of 1.0.0.0/8.
  const start = toBigInt(range.address.toByteArray());
  return { version: width === 32 ? 4 : 6, start, end: start + (1n << BigInt(width - range.bits)) - 1n };
}

/**
 * Parses a range feed. With `kinds`, every line must name one of them and an entry's `kind` is its
 * index + 1; without, lines carry only the address and every entry has kind 1. A feed whose limits
 * allow it may also list whole autonomous systems (`AS9009,vpn`), kept as numbers (range-set.ts).
 */
export function parseRangeFeed(
  bytes: Buffer,
  kinds?: readonly string[],
  limits: FeedLimits = ANY_RANGE_FEED,
): FeedEntry[] {
  if (bytes.length > limits.maxBytes) {
    throw new FeedError(`${bytes.length} bytes, more than the ${limits.maxBytes} this feed may have`);
  }
  const out: FeedEntry[] = [];
  for (const [line, text, comment] of feedLines(bytes)) {
    const [address = '', kindName, ...rest] = text.split(',').map((s) => s.trim());
    const entry = entryOf(address, line, limits);
    let kind = 1;
    if (kinds) {
      kind = kindName === undefined ? 0 : kinds.indexOf(kindName) + 1;
      if (kind === 0) throw new FeedError(`line ${line}: kind must be one of ${kinds.join(', ')}`);
    } else if (kindName !== undefined) throw new FeedError(`line ${line}: unexpected second column`);
    if (rest.length > 0) throw new FeedError(`line ${line}: too many columns`);
    if (comment.length > 80) throw new FeedError(`line ${line}: service name longer than 80 characters`);
    if (out.length === limits.maxRecords) {
      throw new FeedError(`line ${line}: more than the ${limits.maxRecords} records this feed may have`);
    }
    out.push({ ...entry, kind, ...(comment ? { service: comment } : {}) } as FeedEntry);
  }
  return out;
}
