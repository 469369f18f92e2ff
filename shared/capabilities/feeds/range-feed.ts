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
 * when the file is larger or longer than it may be: a garbled file never becomes a snapshot.
 */
import type { RangeEntry } from '../../resolution/range-set.ts';
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

/**
 * Parses a range feed. With `kinds`, every line must name one of them and an entry's `kind` is its
 * index + 1; without, lines carry only the address and every entry has kind 1.
 */
export function parseRangeFeed(
  bytes: Buffer,
  kinds?: readonly string[],
  limits: FeedLimits = ANY_RANGE_FEED,
): RangeEntry[] {
  if (bytes.length > limits.maxBytes) {
    throw new FeedError(`${bytes.length} bytes, more than the ${limits.maxBytes} this feed may have`);
  }
  const out: RangeEntry[] = [];
  for (const [line, text, comment] of feedLines(bytes)) {
    const [address = '', kindName, ...rest] = text.split(',').map((s) => s.trim());
    const range = parseStrictRange(address, limits.minPrefix);
    if (typeof range === 'string') throw new FeedError(`line ${line}: not an IP address or CIDR: ${range}`);
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
    const width = range.address.kind() === 'ipv4' ? 32 : 128;
    const hostBits = BigInt(width - range.bits);
    const start = (toBigInt(range.address.toByteArray()) >> hostBits) << hostBits;
    out.push({
      version: width === 32 ? 4 : 6,
      start,
      end: start + (1n << hostBits) - 1n,
      kind,
      ...(comment ? { service: comment } : {}),
    });
  }
  return out;
}
