/**
 * The date of a feed's data (`data_as_of`), read from the data itself, never from when it was
 * fetched: a file confirmed every hour can hold a list assembled months ago.
 *
 * - Text feeds (Tor exits, VPN/proxy, hosting, numbering-range risk, reputation) carry a header
 *   line among their leading comments: `# as-of: 2026-11-20T00:00:00Z` (RFC 3339, with `Z` or an
 *   offset). Whoever assembles the file writes the date its content was taken.
 * - The `@ip-location-db` tables are dated by their package version: `2.3.2026061719` is
 *   2026-06-17 19:00 UTC. The manifest is fetched with the CSV files (the `package.json` beside
 *   them, in the package directory or at the same URL base).
 * - The libphonenumber carrier directory is dated by an `as-of` file in it (one RFC 3339 line), or
 *   by the manifest of the npm package it belongs to, whose versions carry no date: their dates are
 *   pinned in data-packages.ts.
 *
 * - A MaxMind DB (`.mmdb`) in place of a feed is dated by its build time (its metadata's
 *   `build_epoch`).
 *
 * A feed with no date is refused (FeedError): the current snapshot stays.
 */
import { packageDataAsOf } from '../../resolution/data-packages.ts';
import type { FeedName } from '../registry.ts';
import { FeedError } from './feed-error.ts';
import { isMmdb, openMmdb } from './importers/mmdb.ts';
import { errorMessage } from '../../error-message.ts';

const HEADER = /^#\s*as-of:\s*(\S+)\s*$/i;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
/** A date this far ahead of the clock is a mistake in the file, not clock skew. */
const FUTURE_SLACK_MS = 24 * 3600 * 1000;

function parseDate(feed: FeedName, text: string, where: string): Date {
  const ms = RFC3339.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new FeedError(`${feed}: ${where} '${text}' is not an RFC 3339 date-time`);
  return new Date(ms);
}

/** The `# as-of:` header of a text feed: among the comment and blank lines before the first entry. */
export function headerAsOf(feed: FeedName, bytes: Buffer): Date {
  if (isMmdb(bytes)) {
    try {
      return openMmdb(bytes).builtAt;
    } catch (err) {
      throw new FeedError(`${feed}: ${errorMessage(err)}`);
    }
  }
  for (const raw of bytes.toString('utf8').split('\n')) {
    const line = raw.trim();
    const m = HEADER.exec(line);
    if (m) return parseDate(feed, m[1]!, 'as-of header');
    if (line !== '' && !line.startsWith('#')) break;
  }
  throw new FeedError(
    `${feed}: no '# as-of: <RFC 3339 date-time>' header before the first entry: the date of the data is unknown`,
  );
}

function manifestAsOf(feed: FeedName, bytes: Buffer): Date {
  let manifest: { name?: unknown; version?: unknown };
  try {
    manifest = JSON.parse(bytes.toString('utf8')) as typeof manifest;
  } catch {
    throw new FeedError(`${feed}: package.json is not JSON`);
  }
  const asOf =
    typeof manifest.name === 'string' && typeof manifest.version === 'string'
      ? packageDataAsOf(manifest.name, manifest.version)
      : undefined;
  if (!asOf) {
    throw new FeedError(
      `${feed}: the date of ${String(manifest.name)}@${String(manifest.version)}'s data is unknown (shared/resolution/data-packages.ts)`,
    );
  }
  return parseDate(feed, asOf, 'package date');
}

/** When the data of `feed` (its fetched files) was taken; throws a FeedError when it does not say. */
export function feedAsOf(feed: FeedName, files: Map<string, Buffer>, nowMs = Date.now()): Date {
  const single = files.get('');
  const asOfFile = files.get('as-of');
  const manifest = files.get('package.json');
  const date = single
    ? headerAsOf(feed, single)
    : asOfFile
      ? parseDate(feed, asOfFile.toString('utf8').trim(), 'as-of file')
      : manifest
        ? manifestAsOf(feed, manifest)
        : undefined;
  if (!date)
    throw new FeedError(`${feed}: no as-of file or package manifest: the date of the data is unknown`);
  if (date.getTime() > nowMs + FUTURE_SLACK_MS) {
    throw new FeedError(`${feed}: as-of ${date.toISOString()} is in the future`);
  }
  return date;
}

/** The snapshot's `data_as_of`: its oldest feed's date, since the snapshot is no newer than that. */
export function dataAsOf(
  feeds: readonly FeedName[],
  files: Partial<Record<FeedName, Map<string, Buffer>>>,
  nowMs = Date.now(),
): Date {
  let oldest: Date | undefined;
  for (const feed of feeds) {
    const date = feedAsOf(feed, files[feed] ?? new Map(), nowMs);
    if (!oldest || date < oldest) oldest = date;
  }
  if (!oldest) throw new FeedError('no feeds');
  return oldest;
}
