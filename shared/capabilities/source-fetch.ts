/**
 * One refresh's fetch of one feed, from wherever its FEED_* variable points: the seed or another
 * file in the project's format, or the publisher's own public files (a comma-separated list of
 * URLs or paths, each recognised by its path, importers/formats.ts), which are imported with the
 * same importers and refusals as `npm run feeds:update`: a file that does not parse, has a date in
 * the future, or fewer records than a genuine file of its format (or than the feed declares) is
 * refused, and so is the feed.
 *
 * Every file is read within a bound (bounded-read.ts: its public format's, else its feed's), as
 * `feeds:update` reads it, and refused as soon as it is known to be larger.
 *
 * URLs are fetched conditionally: the ETag and Last-Modified a publisher sent last time (kept per
 * URL in Redis by the store) go back as If-None-Match and If-Modified-Since, and a 304 costs no
 * download. Each location's identity (a digest of its raw bytes, not of the imported text, whose
 * date is the fetch time for an undated list) decides whether the snapshot changed.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { byteLimit, pathOf, readBounded } from './bounded-read.ts';
import { FeedError } from './feeds/feed-error.ts';
import {
  recognise,
  recogniseTable,
  type PublicFormat,
  type PublicTableFormat,
} from './feeds/importers/formats.ts';
import { mergeTables, type ImportedTable } from './feeds/importers/network-tables.ts';
import { mergeImports, type ImportedFeed } from './feeds/importers/imported-feed.ts';
import { FEEDS, feedLimits, type FeedName } from './registry.ts';
import { fetchFeed, fetchOne } from './sources.ts';
import { errorMessage } from '../error-message.ts';

/** What the store keeps per location between refreshes. */
export interface LocationState {
  etag?: string;
  lastModified?: string;
  /** SHA-256 of the raw bytes last accepted from it. */
  identity: string;
}

export interface FetchedFeed {
  /** The feed's files as the capability's build reads them; absent when every location answered 304. */
  files?: Map<string, Buffer>;
  /** An optional feed with nothing to read (no seed checked in, no FEED_* set): built without. */
  absent?: true;
  /** Digest of its locations' identities: equal to the last one's when nothing changed. */
  identity: string;
  /** The state to keep per location once the refresh succeeded. */
  state: Record<string, LocationState>;
}

export interface FetchOptions {
  timeoutMs: number;
  /** The state kept from the last successful refresh, by location; empty to fetch unconditionally. */
  known: Readonly<Record<string, LocationState>>;
  now: Date;
}

/** Allowance for clock skew between a publisher and this machine, as `feeds:update` allows. */
const FUTURE_SLACK_MS = 60 * 60 * 1000;

const isUrl = (location: string) => /^https?:\/\//i.test(location);
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const identityOf = (parts: readonly string[]) => sha256(Buffer.from(parts.join(',')));

type Download = { bytes: Buffer; etag?: string; lastModified?: string } | 'not-modified';

async function download(feed: FeedName, url: string, known: LocationState | undefined, timeoutMs: number) {
  const host = new URL(url).host;
  const headers: Record<string, string> = {};
  if (known?.etag) headers['if-none-match'] = known.etag;
  if (known?.lastModified) headers['if-modified-since'] = known.lastModified;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const why = (err as Error).name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : 'unreachable';
    throw new FeedError(`${feed}: ${host} ${why}`);
  }
  if (res.status === 304 && known) {
    await res.body?.cancel();
    return 'not-modified' as const;
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new FeedError(`${feed}: HTTP ${res.status} from ${host}`);
  }
  // Refused as soon as it passes the bound `feeds:update` applies to the same file.
  const bytes = await readBounded(res, byteLimit(feed, url), `${feed}: ${host}`);
  const etag = res.headers.get('etag') ?? undefined;
  const lastModified = res.headers.get('last-modified') ?? undefined;
  return { bytes, ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

/** Imports one public file and checks it on its own, as `feeds:update` does. */
function importOne(feed: FeedName, format: PublicFormat, bytes: Buffer, now: Date): ImportedFeed {
  // Read within this bound already (bounded-read.ts); checked again so that no way of reading a
  // file, a path's or a URL's, can hand the importer more than its format may have.
  if (bytes.length > format.maxBytes) {
    throw new FeedError(
      `${feed}: ${format.name}: ${bytes.length} bytes, more than the ${format.maxBytes} a genuine one may have`,
    );
  }
  let result: ImportedFeed;
  try {
    result = format.importer(bytes, now, feedLimits(feed));
  } catch (err) {
    throw new FeedError(`${feed}: ${format.name}: ${errorMessage(err)}`);
  }
  if (result.feed !== feed) throw new FeedError(`${feed}: ${format.name} belongs to ${result.feed}`);
  if (result.asOf.getTime() > now.getTime() + FUTURE_SLACK_MS) {
    throw new FeedError(`${feed}: ${format.name}: its date ${result.asOf.toISOString()} is in the future`);
  }
  if (result.records < format.minRecords) {
    throw new FeedError(
      `${feed}: ${format.name}: only ${result.records} records, a genuine one has at least ${format.minRecords} (truncated?)`,
    );
  }
  return result;
}

/** The public format of a location, by its path (a URL's path, without query). */
function formatOf(location: string): PublicFormat | undefined {
  return recognise(isUrl(location) ? decodeURIComponent(new URL(location).pathname) : location);
}

/** Each location's bytes, or undefined when every URL answered 304 (conditional requests). */
async function fetchParts(
  feed: FeedName,
  parts: readonly string[],
  opts: FetchOptions,
): Promise<{ bytes?: Buffer[]; identity: string; state: Record<string, LocationState> }> {
  const fetchPart = async (part: string, known: LocationState | undefined): Promise<Download> =>
    isUrl(part)
      ? download(feed, part, known, opts.timeoutMs)
      : { bytes: await fetchOne(feed, part, opts.timeoutMs) };
  const first = await Promise.all(parts.map((p) => fetchPart(p, opts.known[p])));
  if (first.every((a) => a === 'not-modified')) {
    const state = Object.fromEntries(parts.map((p) => [p, opts.known[p]!]));
    return { identity: identityOf(parts.map((p) => state[p]!.identity)), state };
  }
  // Another location changed: the ones that answered 304 are needed whole to build.
  const answers = await Promise.all(
    first.map((a, i) => (a === 'not-modified' ? fetchPart(parts[i]!, undefined) : Promise.resolve(a))),
  );
  const state: Record<string, LocationState> = {};
  for (const [i, part] of parts.entries()) {
    const a = answers[i] as Exclude<Download, 'not-modified'>;
    state[part] = {
      identity: sha256(a.bytes),
      ...(a.etag ? { etag: a.etag } : {}),
      ...(a.lastModified ? { lastModified: a.lastModified } : {}),
    };
  }
  const bytes = answers.map((a) => (a as Exclude<Download, 'not-modified'>).bytes);
  return { bytes, identity: identityOf(parts.map((p) => state[p]!.identity)), state };
}

/** Imports one publisher's file of a table feed and checks it on its own. */
function importTable(feed: FeedName, format: PublicTableFormat, bytes: Buffer, now: Date): ImportedTable {
  let result: ImportedTable;
  try {
    result = format.importer(bytes, now);
  } catch (err) {
    throw new FeedError(`${feed}: ${format.name}: ${errorMessage(err)}`);
  }
  if (result.asOf.getTime() > now.getTime() + FUTURE_SLACK_MS) {
    throw new FeedError(`${feed}: ${format.name}: its date ${result.asOf.toISOString()} is in the future`);
  }
  if (result.records < format.minRecords) {
    throw new FeedError(
      `${feed}: ${format.name}: only ${result.records} records, a genuine one has at least ${format.minRecords} (truncated?)`,
    );
  }
  return result;
}

/**
 * A table feed (the routing and registry-country tables) from its publishers' files: each
 * imported into rows, merged into the table files the snapshot reads, dated by the oldest.
 */
async function fetchTableFeed(
  feed: FeedName,
  parts: readonly string[],
  formats: readonly PublicTableFormat[],
  opts: FetchOptions,
): Promise<FetchedFeed> {
  const { bytes, identity, state } = await fetchParts(feed, parts, opts);
  if (!bytes) return { identity, state };
  const merged = mergeTables(bytes.map((b, i) => importTable(feed, formats[i]!, b, opts.now)));
  const least = FEEDS[feed]!.minRecords;
  if (merged.records < least) {
    throw new FeedError(`${feed}: only ${merged.records} rows, its capability expects at least ${least}`);
  }
  return { files: merged.files, identity, state };
}

/**
 * Fetches one feed. A single-file feed may name several publisher files (merged, dated by the
 * oldest, as `feeds:update` merges them); so may a table feed (the network type's routing and
 * country tables: every location a recognised table file). Any other layout is read whole.
 */
export async function fetchSourceFeed(
  feed: FeedName,
  location: string,
  opts: FetchOptions,
): Promise<FetchedFeed> {
  const source = FEEDS[feed];
  if (!source) throw new FeedError(`${feed}: no capability declares this feed`);
  if (source.optional && !isUrl(location) && !(await exists(location))) {
    return { absent: true, identity: 'absent', state: {} };
  }
  const parts = location
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const tables = parts.map((p) => recogniseTable(pathOf(p), feed));
  if (Array.isArray(source.layout) && tables.every((t) => t !== undefined)) {
    return fetchTableFeed(feed, parts, tables as PublicTableFormat[], opts);
  }
  const formats = parts.map(formatOf);
  const imported = formats.some((f) => f !== undefined);
  if (source.layout !== 'file' || (!imported && parts.length === 1 && !isUrl(location))) {
    // A directory, a package layout or a local file in the project's format: read whole.
    const files = await fetchFeed(feed, location, opts.timeoutMs);
    const hash = createHash('sha256');
    for (const [name, bytes] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
      hash.update(`${name}:${bytes.length}:`).update(bytes);
    }
    return { files, identity: hash.digest('hex'), state: {} };
  }
  if (parts.length > 1 && formats.some((f) => f === undefined)) {
    throw new FeedError(`${feed}: several locations must all be recognised public files`);
  }
  const { bytes, identity, state } = await fetchParts(feed, parts, opts);
  if (!bytes) return { identity, state };
  if (!imported) return { files: new Map([['', bytes[0]!]]), identity, state };

  const merged = mergeImports(bytes.map((b, i) => importOne(feed, formats[i]!, b, opts.now)));
  if (merged.records < source.minRecords) {
    throw new FeedError(
      `${feed}: only ${merged.records} records, its capability expects at least ${source.minRecords}`,
    );
  }
  return { files: new Map([['', Buffer.from(merged.text)]]), identity, state };
}
