/**
 * Address-list feeds: the Tor exit list, hosting ranges, VPN and proxy ranges. One entry per
 * line: an IPv4 or IPv6 address or CIDR, then, when the feed has kinds, a comma and the kind.
 * `#` starts a comment; a comment after an entry names the service the range belongs to
 * (`185.65.134.0/24,vpn # Mullvad VPN`), which resolution reports for an analyst. This is the shape of the Tor Project's bulk exit list
 * (https://check.torproject.org/torbulkexitlist: one address per line) and of the usual
 * commercial VPN/proxy range exports.
 */
import ipaddr from 'ipaddr.js';
import type { RangeEntry } from '../range-set.ts';
import { FeedError, feedLines } from './feed-error.ts';

function toBigInt(bytes: number[]): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function parseRange(text: string): Omit<RangeEntry, 'kind'> | undefined {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  let bits: number;
  try {
    if (text.includes('/')) [addr, bits] = ipaddr.parseCIDR(text);
    else {
      if (!ipaddr.isValid(text)) return undefined;
      addr = ipaddr.parse(text);
      bits = addr.kind() === 'ipv4' ? 32 : 128;
    }
  } catch {
    return undefined;
  }
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
    bits = Math.max(0, bits - 96);
  }
  const width = addr.kind() === 'ipv4' ? 32 : 128;
  const value = toBigInt(addr.toByteArray());
  const hostBits = BigInt(width - bits);
  const start = (value >> hostBits) << hostBits;
  return { version: width === 32 ? 4 : 6, start, end: start + (1n << hostBits) - 1n };
}

/**
 * Parses a range feed. With `kinds`, every line must name one of them and an entry's `kind` is its
 * index + 1; without, lines carry only the address and every entry has kind 1.
 */
export function parseRangeFeed(bytes: Buffer, kinds?: readonly string[]): RangeEntry[] {
  const out: RangeEntry[] = [];
  for (const [line, text, comment] of feedLines(bytes)) {
    const [address = '', kindName, ...rest] = text.split(',').map((s) => s.trim());
    const range = parseRange(address);
    if (!range) throw new FeedError(`line ${line}: not an IP address or CIDR`);
    let kind = 1;
    if (kinds) {
      kind = kindName === undefined ? 0 : kinds.indexOf(kindName) + 1;
      if (kind === 0) throw new FeedError(`line ${line}: kind must be one of ${kinds.join(', ')}`);
    } else if (kindName !== undefined) throw new FeedError(`line ${line}: unexpected second column`);
    if (rest.length > 0) throw new FeedError(`line ${line}: too many columns`);
    if (comment.length > 80) throw new FeedError(`line ${line}: service name longer than 80 characters`);
    out.push({ ...range, kind, ...(comment ? { service: comment } : {}) });
  }
  return out;
}
