/**
 * What an importer makes of one downloaded public file: the entries of one of the project's feed
 * files (docs/data-sources.md), the date of the data and where it came from. The importers are
 * pure (bytes and a fetch date in, text out) so each can be tested on a few lines of its format;
 * the `feeds:update` command (../update.ts) reads the files, checks plausibility and writes.
 */
import { FeedError } from '../feed-error.ts';
import type { PrefixFloor } from '../strict-address.ts';

/** The feeds importers write: the names their capabilities declare (registry.ts checks them at load). */
export type ImportTarget = 'torExits' | 'hosting' | 'vpnProxy' | 'allocatedRanges';

/** What a feed file may hold, checked when it is written (`feeds:update`) and when it is read. */
export interface FeedLimits {
  /** The widest range: a range wider than this is a garbled file, not data. */
  minPrefix: PrefixFloor;
  /** Checked before the bytes become text (a file past 512 MB cannot). */
  maxBytes: number;
  maxRecords: number;
  /**
   * It may list whole autonomous systems (`AS<number>`), matched against the origin AS of the
   * node's routing table at lookup (range-set.ts), never expanded at import.
   */
  systems?: boolean;
}

const MB = 1024 * 1024;

/** Per feed: about ten times what a genuine file holds, and the widest range it can carry. */
export const FEED_LIMITS: Readonly<Record<ImportTarget, FeedLimits>> = {
  // Some 1,000 to 2,000 exits; the Tor Project's file is about 20 kB of single addresses. A
  // MaxMind DB joins adjacent exits into networks, and the largest block one exit operator fills
  // is a /22 (IPv6: a /48, one site): wider is not a list of exits.
  torExits: { minPrefix: { v4: 22, v6: 48 }, maxBytes: 2 * MB, maxRecords: 20_000 },
  // A cloud or data-centre network's prefixes: the widest single block a provider holds is a
  // legacy IPv4 /8 (/10 today); in IPv6 no registry has allocated one holder more than a /19.
  hosting: { minPrefix: { v4: 8, v6: 19 }, maxBytes: 64 * MB, maxRecords: 1_000_000, systems: true },
  // VPN servers and VPN providers' own networks: /16 and /29 are the widest today; a VPN provider
  // announcing more than a /12 or a /24 would be a carrier, not a VPN. Its size is set by the
  // privacy relays' egress ranges it may carry (some 300,000).
  vpnProxy: { minPrefix: { v4: 12, v6: 24 }, maxBytes: 96 * MB, maxRecords: 1_500_000, systems: true },
  // Registry delegations: IANA hands the registries IPv4 /8s and IPv6 /12s, so nothing they
  // delegate onwards is wider.
  allocatedRanges: { minPrefix: { v4: 8, v6: 12 }, maxBytes: 128 * MB, maxRecords: 2_000_000 },
};

export interface ImportedFeed {
  feed: ImportTarget;
  /** One line naming the source, written as the feed's `# source:` comment. */
  source: string;
  /** The date of the data. */
  asOf: Date;
  /** The entry lines, in the project's format (an address or CIDR, maybe a trailing `# comment`). */
  lines: string[];
  /** Entries, as the refresher's parser counts them (one per line). */
  records: number;
  /** The whole feed file: `# as-of:`, `# source:`, then the lines. */
  text: string;
}

/** A feed file's text: the as-of header the refresher requires (as-of.ts), its sources, its entries. */
export function renderFeed(asOf: Date, sources: readonly string[], lines: readonly string[]): string {
  const header = [`# as-of: ${asOf.toISOString().replace(/\.000Z$/, 'Z')}`];
  for (const s of sources) header.push(`# source: ${s.replace(/[\r\n]+/g, ' ')}`);
  return `${[...header, ...lines].join('\n')}\n`;
}

export function imported(feed: ImportTarget, source: string, asOf: Date, lines: string[]): ImportedFeed {
  if (Number.isNaN(asOf.getTime())) throw new FeedError(`${source}: the date of the data is unknown`);
  if (lines.length > FEED_LIMITS[feed].maxRecords) {
    throw new FeedError(
      `${lines.length} records, more than the ${FEED_LIMITS[feed].maxRecords} the ${feed} feed may hold`,
    );
  }
  return { feed, source, asOf, lines, records: lines.length, text: renderFeed(asOf, [source], lines) };
}

/**
 * Several imports into one feed file (AWS and Google into the hosting ranges, the five RIRs into
 * the allocations): the entries of all, the first listing of a range kept, and the oldest date,
 * since the merged file is no newer than its oldest part.
 */
export function mergeImports(parts: readonly ImportedFeed[]): ImportedFeed {
  const first = parts[0];
  if (!first) throw new FeedError('nothing to merge');
  if (parts.length === 1) return first;
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const part of parts) {
    for (const line of part.lines) {
      const key = line.replace(/#.*$/, '').trim();
      if (seen.has(key)) continue;
      seen.add(key);
      lines.push(line);
    }
  }
  const asOf = new Date(Math.min(...parts.map((p) => p.asOf.getTime())));
  const sources = parts.map((p) => p.source);
  return {
    feed: first.feed,
    source: sources.join('; '),
    asOf,
    lines,
    records: lines.length,
    text: renderFeed(asOf, sources, lines),
  };
}
