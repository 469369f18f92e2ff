/**
 * The Tor Project's bulk exit list (https://check.torproject.org/torbulkexitlist): one IPv4 or
 * IPv6 address per line, no header and no date. Its date is therefore when it was fetched, which
 * the caller supplies (`feeds:update --as-of`, else the file's modification time).
 */
import { FeedError } from '../feed-error.ts';
import { parseStrictRange } from '../strict-address.ts';
import { imported, type FeedLimits, type ImportedFeed } from './imported-feed.ts';

export function importTorBulkExitList(bytes: Buffer, fetchedAt: Date, limits: FeedLimits): ImportedFeed {
  const lines: string[] = [];
  const seen = new Set<string>();
  const text = bytes.toString('utf8').split('\n');
  for (let i = 0; i < text.length; i++) {
    const entry = text[i]!.trim();
    if (entry === '' || entry.startsWith('#')) continue;
    // Addresses only: a CIDR or anything else means this is not the exit list (an error page, say).
    const range = entry.includes('/') ? 'a CIDR' : parseStrictRange(entry, limits.minPrefix);
    if (typeof range === 'string') throw new FeedError(`line ${i + 1}: not an IP address: ${range}`);
    const address = range.address.toString();
    if (seen.has(address)) continue;
    seen.add(address);
    lines.push(address);
  }
  return imported(
    'torExits',
    'Tor Project bulk exit list (date: when it was fetched)',
    fetchedAt,
    lines,
    limits,
  );
}
