/**
 * Apple's list of iCloud Private Relay egress ranges, `egress-ip-ranges.csv`
 * (https://mask-api.icloud.com/egress-ip-ranges.csv): one `prefix,country,region,city,` line per
 * range, IPv4 and IPv6. Apple publishes it so that networks and sites can recognise relay
 * traffic and keep serving it by its region; the file states no licence, so it is not checked
 * in: a deployment fetches it from Apple (docs/data-sources.md).
 *
 * A relay egress carries ordinary Apple customers who turned on a default privacy feature, so
 * its ranges become kind `relay` of the VPN/proxy feed: named in explain, never scored as an
 * anonymiser (ip.ts, the VPN/proxy and network-type capabilities, engine.ts).
 */
import ipaddr from 'ipaddr.js';
import { FeedError } from '../feed-error.ts';
import { imported, type ImportedFeed } from './imported-feed.ts';

export const PRIVATE_RELAY_SERVICE = 'iCloud Private Relay';

export function importPrivateRelayEgress(bytes: Buffer, fetchedAt: Date): ImportedFeed {
  const lines: string[] = [];
  const seen = new Set<string>();
  const text = bytes.toString('utf8').split('\n');
  for (let i = 0; i < text.length; i++) {
    const line = text[i]!.trim();
    if (line === '') continue;
    const prefix = line.slice(0, line.indexOf(',') < 0 ? line.length : line.indexOf(','));
    let cidr: string;
    try {
      const [addr, bits] = ipaddr.parseCIDR(prefix);
      cidr = `${addr.toString()}/${bits}`;
      // A relay egress is a provider's block, never a whole address family's worth.
      if (bits < (addr.kind() === 'ipv4' ? 8 : 16)) throw new Error('too wide');
    } catch {
      throw new FeedError(`line ${i + 1}: not 'prefix,country,region,city,'`);
    }
    if (seen.has(cidr)) continue;
    seen.add(cidr);
    lines.push(`${cidr},relay # ${PRIVATE_RELAY_SERVICE}`);
  }
  return imported(
    'vpnProxy',
    `${PRIVATE_RELAY_SERVICE} egress ranges (date: when it was fetched)`,
    fetchedAt,
    lines,
  );
}
