/**
 * The refresher's bound on a feed's bytes (bounded-read.ts): which bound a location gets, and a
 * body refused as soon as it is known to pass it, its stream cancelled rather than read on.
 * Bodies are generated streams that count what was pulled from them.
 */
import { describe, expect, it } from 'vitest';
import { byteLimit, DEFAULT_MAX_BYTES, readBounded } from './bounded-read.ts';
import { FeedError } from './feeds/feed-error.ts';
import { FEED_LIMITS } from './registry.ts';
import { recognise } from './feeds/importers/formats.ts';

const TOR_LIST_MAX = recognise('torbulkexitlist')!.maxBytes;

describe('the bound of a location', () => {
  it("is a recognised public format's own, by the path of a URL or a file", () => {
    expect(TOR_LIST_MAX).toBe(2 * 1024 * 1024);
    expect(byteLimit('torExits', 'https://check.torproject.org/torbulkexitlist?token=x')).toBe(TOR_LIST_MAX);
    expect(byteLimit('hosting', '/data/aws/ip-ranges.json')).toBe(recognise('ip-ranges.json')!.maxBytes);
  });

  it("is else the feed's own, and a generous default for a feed without one or a MaxMind DB", () => {
    expect(byteLimit('torExits', 'https://mirror.example/feeds/tor-exits.txt')).toBe(
      FEED_LIMITS.torExits!.maxBytes,
    );
    expect(byteLimit('hosting', '/srv/feeds/hosting-ranges.txt')).toBe(FEED_LIMITS.hosting!.maxBytes);
    expect(byteLimit('asn', '/srv/asn/asn-ipv4-num.csv')).toBe(DEFAULT_MAX_BYTES);
    // An Anonymous IP database for the Tor feed is far larger than a Tor list; its walked text is
    // held to the feed's bound by the range parser.
    expect(byteLimit('torExits', '/var/lib/GeoIP/GeoIP2-Anonymous-IP.mmdb')).toBe(DEFAULT_MAX_BYTES);
    // Not a feed of FEED_LIMITS, though `in` would say so.
    expect(byteLimit('constructor', '/srv/x.txt')).toBe(DEFAULT_MAX_BYTES);
  });
});

/** A body of `chunk`-sized pieces, `total` bytes in all (endless without), counting its pulls. */
function body(chunk: number, total = Infinity) {
  const seen = { pulls: 0, cancelled: false };
  let left = total;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.pulls++;
      const n = Math.min(chunk, left);
      left -= n;
      if (n > 0) controller.enqueue(new Uint8Array(n).fill(0x0a));
      if (left === 0) controller.close();
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

const WHAT = 'torExits: check.torproject.org';

describe('reading a body within a bound', () => {
  it('refuses at once a body whose Content-Length is past the bound, cancelling it unread', async () => {
    const { stream, seen } = body(1000);
    const res = new Response(stream, { headers: { 'content-length': '300000000' } });
    await expect(readBounded(res, 2500, WHAT)).rejects.toThrow(
      new FeedError(`${WHAT} announces 300000000 bytes, more than the 2500 this file may have: not read`),
    );
    expect(seen.cancelled).toBe(true);
    expect(seen.pulls).toBeLessThanOrEqual(1);
  });

  it('refuses a body without a length once the running total passes the bound, reading no further', async () => {
    const { stream, seen } = body(1000);
    await expect(readBounded(new Response(stream), 2500, WHAT)).rejects.toThrow(
      new FeedError(`${WHAT} sent more than the 2500 bytes this file may have: not read`),
    );
    expect(seen.cancelled).toBe(true);
    // Three chunks pass 2,500 bytes; the stream may have pulled one ahead, not more.
    expect(seen.pulls).toBeLessThanOrEqual(4);
  });

  it('refuses a body longer than its Content-Length said', async () => {
    const { stream, seen } = body(1000);
    const res = new Response(stream, { headers: { 'content-length': '10' } });
    await expect(readBounded(res, 2500, WHAT)).rejects.toThrow('sent more than the 2500 bytes');
    expect(seen.cancelled).toBe(true);
  });

  it('accepts a body of exactly the bound, in pieces or announced', async () => {
    const pieces = body(1000, 2500);
    expect((await readBounded(new Response(pieces.stream), 2500, WHAT)).length).toBe(2500);
    const announced = body(2500, 2500);
    const res = new Response(announced.stream, { headers: { 'content-length': '2500' } });
    expect((await readBounded(res, 2500, WHAT)).length).toBe(2500);
    expect(await readBounded(new Response(null), 2500, WHAT)).toEqual(Buffer.alloc(0));
  });

  it('says the download broke off when the body errors', async () => {
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('socket hang up'));
      },
    });
    await expect(readBounded(new Response(stream), 2500, WHAT)).rejects.toThrow(
      new FeedError(`${WHAT} broke off the download`),
    );
  });
});
