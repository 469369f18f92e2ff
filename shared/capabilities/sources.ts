/**
 * Fetching a capability's feeds from their configured locations: an http(s) URL (production) or a
 * file path (the defaults: the installed npm data packages and the seed feeds in infra/feeds/).
 * Errors are FeedErrors that name the feed and, for URLs, only the host: a URL may carry a token.
 * A file larger than its bound (bounded-read.ts) is refused before, or as soon as, that is known.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import { byteLimit, readBounded } from './bounded-read.ts';
import { FeedError } from './feeds/feed-error.ts';
import { FEEDS, type FeedName } from './registry.ts';
import { seedPath } from './source.ts';

/** Where each feed is read from: its FEED_* variable, else the seed its capability declares. */
export function feedLocations(cfg: Config): Record<FeedName, string> {
  const env = cfg as unknown as Record<string, string | undefined>;
  const out: Record<FeedName, string> = {};
  for (const [name, source] of Object.entries(FEEDS)) out[name] = env[source.env] ?? seedPath(source);
  return out;
}

const isUrl = (location: string) => /^https?:\/\//i.test(location);
const isMmdbLocation = (location: string) =>
  (isUrl(location) ? new URL(location).pathname : location).toLowerCase().endsWith('.mmdb');

/** A local file, refused by its size before it is read when it is larger than `limit`. */
async function readLocal(feed: FeedName, path: string, limit: number): Promise<Buffer> {
  const tooLarge = (size: number) =>
    new FeedError(
      `${feed}: ${basename(path)} has ${size} bytes, more than the ${limit} it may have: not read`,
    );
  let bytes: Buffer;
  try {
    const { size } = await stat(path);
    if (size > limit) throw tooLarge(size);
    bytes = await readFile(path);
  } catch (err) {
    if (err instanceof FeedError) throw err;
    throw new FeedError(`${feed}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  // It may have grown between the two calls.
  if (bytes.length > limit) throw tooLarge(bytes.length);
  return bytes;
}

/** One file, from a path or an http(s) URL, bounded by its byte limit. */
export async function fetchOne(feed: FeedName, location: string, timeoutMs: number): Promise<Buffer> {
  // The bound `feeds:update` applies to the same file (bounded-read.ts), for a path as for a URL.
  const limit = byteLimit(feed, location);
  if (!isUrl(location)) return readLocal(feed, location, limit);
  const host = new URL(location).host;
  let res: Response;
  try {
    res = await fetch(location, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const why = (err as Error).name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : 'unreachable';
    throw new FeedError(`${feed}: ${host} ${why}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new FeedError(`${feed}: HTTP ${res.status} from ${host}`);
  }
  return readBounded(res, limit, `${feed}: ${host}`);
}

/** The feed's files by name (a single-file feed has the one name ''). */
export async function fetchFeed(
  feed: FeedName,
  location: string,
  timeoutMs: number,
): Promise<Map<string, Buffer>> {
  const layout = FEEDS[feed]?.layout;
  if (!layout) throw new FeedError(`${feed}: no capability declares this feed`);
  // A MaxMind DB stands in for a whole feed (feeds/importers/mmdb.ts): one file, whatever the layout.
  if (layout === 'file' || isMmdbLocation(location))
    return new Map([['', await fetchOne(feed, location, timeoutMs)]]);
  if (layout === 'bson-dir') {
    if (isUrl(location)) throw new FeedError(`${feed}: a directory feed must be a path, not a URL`);
    let listing: string[];
    try {
      listing = await readdir(location);
    } catch (err) {
      throw new FeedError(`${feed}: cannot list the directory (${(err as NodeJS.ErrnoException).code})`);
    }
    const names = listing.filter((f) => /^\d{1,3}\.bson$/.test(f)).sort();
    const files = await Promise.all(names.map((n) => fetchOne(feed, join(location, n), timeoutMs)));
    const out = new Map(names.map((n, i) => [n, files[i]!]));
    // The date of the data (feeds/as-of.ts): an `as-of` file in the directory, else the manifest of
    // the package the directory is in.
    if (listing.includes('as-of')) out.set('as-of', await fetchOne(feed, join(location, 'as-of'), timeoutMs));
    else {
      const manifest = await packageManifest(location);
      if (manifest) out.set('package.json', manifest);
    }
    return out;
  }
  const at = (file: string) =>
    isUrl(location) ? `${location.replace(/\/$/, '')}/${file}` : join(location, file);
  const files = await Promise.all(layout.map((f) => fetchOne(feed, at(f), timeoutMs)));
  return new Map(layout.map((f, i) => [f, files[i]!]));
}

/** The package.json of the npm package holding `dir` (at most 4 levels up), if any. */
async function packageManifest(dir: string): Promise<Buffer | undefined> {
  let at = dir;
  for (let i = 0; i < 4; i++) {
    at = dirname(at);
    const bytes = await readFile(join(at, 'package.json')).catch(() => undefined);
    if (bytes) return bytes;
  }
  return undefined;
}
