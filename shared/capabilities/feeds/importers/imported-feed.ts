/**
 * What an importer makes of one downloaded public file: the entries of one of the project's feed
 * files (docs/data-sources.md), the date of the data and where it came from. The importers are
 * pure (bytes and a fetch date in, text out) so each can be tested on a few lines of its format;
 * the `feeds:update` command (../update.ts) reads the files, checks plausibility and writes.
 */
import { FeedError } from '../feed-error.ts';
import type { PrefixFloor } from '../strict-address.ts';

/** The feed an importer writes: the name its capability declares it under (`sources`). */
export type ImportTarget = string;

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

/** One import's feed; past the feed's record bound (its `limits`, when the importer has them) it is refused. */
export function imported(
  feed: ImportTarget,
  source: string,
  asOf: Date,
  lines: string[],
  limits?: FeedLimits,
): ImportedFeed {
  if (Number.isNaN(asOf.getTime())) throw new FeedError(`${source}: the date of the data is unknown`);
  if (limits && lines.length > limits.maxRecords) {
    throw new FeedError(
      `${lines.length} records, more than the ${limits.maxRecords} the ${feed} feed may hold`,
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
