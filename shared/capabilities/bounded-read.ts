/**
 * How many bytes the refresher reads for a feed, and the reading itself. A publisher's file (or
 * whatever answers at its address) is refused as soon as it is known to be larger than its bound:
 * at once when its Content-Length says so, else when the running total of the body passes it, and
 * the connection is dropped there, not read to the timeout. The bounds are those `feeds:update`
 * applies (infra/feeds/update-feeds.ts): a recognised public format's own, else the feed's.
 */
import { FeedError } from './feeds/feed-error.ts';
import { recogniseTable, recognise } from './feeds/importers/formats.ts';
import { FEEDS } from './registry.ts';
import type { FeedName } from './source.ts';

/**
 * For a file no bound of its own covers: the routing and country tables (10 to 25 MB each today),
 * a caller-ID directory, a MaxMind DB. 512 MiB is many times any of them, and about the longest
 * text V8 can make of a file (a string has at most 2^29 - 24 characters), so a file past it could
 * not be read as text anyway; the bound keeps a runaway or hostile answer from filling memory.
 */
export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

const isUrl = (location: string) => /^https?:\/\//i.test(location);

/** A location's path (a URL's, decoded, without query), as formats.ts recognises files by. */
export function pathOf(location: string): string {
  if (!isUrl(location)) return location;
  const path = new URL(location).pathname;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The most bytes one file of `feed` at `location` may have. */
export function byteLimit(feed: FeedName, location: string): number {
  const path = pathOf(location);
  const format = recogniseTable(path, feed) ?? recognise(path);
  if (format) return format.maxBytes;
  // A MaxMind DB stands in for a whole feed (feeds/importers/mmdb.ts) and is far larger than the
  // text it is walked into, which the feed's own bound then checks (range-feed.ts): a Tor feed
  // read from an Anonymous IP database must not be held to the 2 MB of a Tor list.
  if (path.toLowerCase().endsWith('.mmdb')) return DEFAULT_MAX_BYTES;
  return (Object.hasOwn(FEEDS, feed) ? FEEDS[feed]!.limits?.maxBytes : undefined) ?? DEFAULT_MAX_BYTES;
}

/**
 * The body of `res`, or a FeedError as soon as it is known to pass `maxBytes`: the body is
 * cancelled then (which closes the connection), nothing more is read. `what` starts each message
 * (`torExits: check.torproject.org`): the feed and the host, never the whole URL, which may carry
 * a token.
 */
export async function readBounded(res: Response, maxBytes: number, what: string): Promise<Buffer> {
  const announced = Number(res.headers.get('content-length') ?? 0);
  if (announced > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new FeedError(
      `${what} announces ${announced} bytes, more than the ${maxBytes} this file may have: not read`,
    );
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch {
      throw new FeedError(`${what} broke off the download`);
    }
    if (next.done) return Buffer.concat(chunks, size);
    size += next.value.byteLength;
    if (size > maxBytes) {
      // A body without a length, or longer than it said: stop here, not at the timeout.
      await reader.cancel().catch(() => undefined);
      throw new FeedError(`${what} sent more than the ${maxBytes} bytes this file may have: not read`);
    }
    chunks.push(next.value);
  }
}
