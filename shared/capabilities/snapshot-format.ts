/**
 * The binary form every snapshot capability shares, and the helpers its build uses: `build`
 * validates as it parses (a malformed line is a FeedError naming the line); the size checks
 * against the current snapshot are the refresher's
 * (services/refresher/refresh-capability.ts).
 */
import { encodeSections } from '../resolution/codec.ts';
import { FeedError } from './feeds/feed-error.ts';
import type { FeedName } from './source.ts';
import { errorMessage } from '../error-message.ts';

/** Bump when the binary form of any snapshot changes: nodes ignore snapshots of another format. */
export const SNAPSHOT_FORMAT = 1;
export const MAGIC = 0x43534652; // "FRSC"

export type FeedFiles = Partial<Record<FeedName, Map<string, Buffer>>>;

export interface BuiltSnapshot {
  payload: Buffer;
  /** Entries in the source, for the empty and shrink checks. */
  entries: number;
}

export function file(files: FeedFiles, feed: FeedName, name = ''): Buffer {
  const bytes = files[feed]?.get(name);
  if (!bytes) throw new FeedError(`${feed}: ${name || 'file'} missing`);
  return bytes;
}

/**
 * Runs a parser, turning anything it throws into a FeedError naming the feed, and refuses a feed
 * with no entries: an empty download is an outage upstream, never "nothing is listed any more".
 */
export function parsing<T>(feed: FeedName, fn: () => T, count: (t: T) => number): T {
  let out: T;
  try {
    out = fn();
  } catch (err) {
    throw new FeedError(`${feed}: ${errorMessage(err)}`);
  }
  if (count(out) === 0) throw new FeedError(`${feed}: no entries`);
  return out;
}

export const length = (x: { length: number }) => x.length;

export const encode = (header: object, arrays: Parameters<typeof encodeSections>[2]) =>
  encodeSections(MAGIC, { format: SNAPSHOT_FORMAT, ...header }, arrays);
