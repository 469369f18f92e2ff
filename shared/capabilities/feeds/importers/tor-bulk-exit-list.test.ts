import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { headerAsOf } from '../as-of.ts';
import { parseRangeFeed } from '../range-feed.ts';
import { FEED_LIMITS } from '../../registry.ts';
import { importTorBulkExitList } from './tor-bulk-exit-list.ts';

// A whole published list (1,305 exits, 2023-10-14) and an excerpt of it: test/fixtures/publishers.
const fixture = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/publishers/tor/${name}`, import.meta.url));
// What the list's format allows beyond the published file: IPv6 in any case, repeats, blank lines.
const LIST = '185.220.101.1\n185.220.101.2\n2001:DB8::0:1\n185.220.101.1\n\n';
const FETCHED = new Date('2026-11-24T10:30:00Z');

describe('the Tor bulk exit list importer', () => {
  it('writes each address once, dated by the fetch, in the format the refresher reads', () => {
    const feed = importTorBulkExitList(Buffer.from(LIST), FETCHED, FEED_LIMITS.torExits!);
    expect(feed.feed).toBe('torExits');
    expect(feed.lines).toEqual(['185.220.101.1', '185.220.101.2', '2001:db8::1']);
    expect(feed.records).toBe(3);
    expect(feed.asOf).toEqual(FETCHED);
    expect(feed.text.split('\n').slice(0, 2)).toEqual([
      '# as-of: 2026-11-24T10:30:00Z',
      '# source: Tor Project bulk exit list (date: when it was fetched)',
    ]);
    expect(headerAsOf('torExits', Buffer.from(feed.text))).toEqual(FETCHED);
    expect(parseRangeFeed(Buffer.from(feed.text))).toHaveLength(3);
  });

  it('reads the published list whole: every exit, first to last', () => {
    const full = fixture('torbulkexitlist-full');
    const feed = importTorBulkExitList(full, FETCHED, FEED_LIMITS.torExits!);
    const published = full.toString('utf8').trim().split('\n');
    expect(feed.records).toBe(1305);
    expect(feed.lines[0]).toBe(published[0]);
    expect(feed.lines.at(-1)).toBe(published.at(-1));
    expect(parseRangeFeed(Buffer.from(feed.text), undefined, FEED_LIMITS.torExits!)).toHaveLength(1305);
    // The excerpt is its first and last twenty lines.
    expect(importTorBulkExitList(fixture('torbulkexitlist'), FETCHED, FEED_LIMITS.torExits!).lines).toEqual([
      ...feed.lines.slice(0, 20),
      ...feed.lines.slice(-20),
    ]);
  });

  it('refuses what is not an address list, naming the line', () => {
    expect(() =>
      importTorBulkExitList(Buffer.from('185.220.101.1\n<html>\n'), FETCHED, FEED_LIMITS.torExits!),
    ).toThrow('line 2: not an IP address');
    expect(() =>
      importTorBulkExitList(Buffer.from('185.220.101.0/24\n'), FETCHED, FEED_LIMITS.torExits!),
    ).toThrow('line 1');
  });
});
