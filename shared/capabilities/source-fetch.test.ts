/**
 * Fetching a feed from its publishers' own files (source-fetch.ts) against a local HTTP server:
 * several files merged into one feed, conditional requests, and the importers' refusals. The
 * files are small generated fixtures at the sizes the importers accept, not real lists.
 */
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BYTES } from './bounded-read.ts';
import { FeedError } from './feeds/feed-error.ts';
import { recognise, recogniseTable } from './feeds/importers/formats.ts';
import { FEED_LIMITS } from './registry.ts';
import { FEEDS } from './registry.ts';
import { fetchSourceFeed, type LocationState } from './source-fetch.ts';
import { fetchFeed } from './sources.ts';

const aws = (n: number, date: string) =>
  JSON.stringify({
    syncToken: '1',
    createDate: date,
    prefixes: Array.from({ length: n }, (_, i) => ({
      ip_prefix: `3.${i >> 8}.${i & 255}.0/24`,
      service: 'EC2',
    })),
  });
const google = (n: number, time: string) =>
  JSON.stringify({
    // Dated by its syncToken, epoch milliseconds (the creationTime is zone-less Pacific time).
    syncToken: String(Date.parse(`${time.slice(0, 23)}Z`)),
    creationTime: time,
    prefixes: Array.from({ length: n }, (_, i) => ({ ipv4Prefix: `34.${i >> 8}.${i & 255}.0/24` })),
  });

const files = new Map<string, { body: string; etag: string }>();
/** Paths answered by a handler of their own (by path, without query) instead of from `files`. */
const handlers = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
const answered: number[] = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const handler = handlers.get((req.url ?? '').replace(/\?.*$/, ''));
    if (handler) return handler(req, res);
    const file = files.get(req.url ?? '');
    const status = !file ? 404 : req.headers['if-none-match'] === file.etag ? 304 : 200;
    answered.push(status);
    res.writeHead(status, file ? { etag: file.etag } : {}).end(status === 200 ? file!.body : '');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

const now = new Date('2026-11-27T12:00:00Z');
const fetchHosting = (known: Record<string, LocationState> = {}) =>
  fetchSourceFeed('hosting', `${base}/ip-ranges.json,${base}/ipranges/cloud.json`, {
    timeoutMs: 2000,
    known,
    now,
  });

describe('a feed fetched from its publishers', () => {
  it('merges several public files into the feed, dated by the oldest, and keeps their validators', async () => {
    files.set('/ip-ranges.json', { body: aws(1000, '2026-11-27-08-00-00'), etag: '"a1"' });
    files.set('/ipranges/cloud.json', { body: google(300, '2026-11-26T09:00:00.000000'), etag: '"g1"' });
    const got = await fetchHosting();
    const text = got.files!.get('')!.toString('utf8');
    expect(text.split('\n')[0]).toBe('# as-of: 2026-11-26T09:00:00Z');
    expect(text).toContain('3.0.0.0/24 # Amazon Web Services');
    expect(text).toContain('34.0.0.0/24 # Google Cloud');
    expect(Object.values(got.state).map((s) => s.etag)).toEqual(['"a1"', '"g1"']);
  });

  it('downloads nothing when every file answers 304, and everything when one of them changed', async () => {
    const first = await fetchHosting();
    answered.length = 0;
    const unchanged = await fetchHosting(first.state);
    expect(answered).toEqual([304, 304]);
    expect(unchanged.files).toBeUndefined();
    expect(unchanged.identity).toBe(first.identity);

    files.set('/ip-ranges.json', { body: aws(1001, '2026-11-27-09-00-00'), etag: '"a2"' });
    answered.length = 0;
    const changed = await fetchHosting(first.state);
    // The Google file answered 304 and was fetched whole again, to build from both.
    expect(answered.sort()).toEqual([200, 200, 304]);
    expect(changed.identity).not.toBe(first.identity);
    expect(changed.files!.get('')!.toString('utf8')).toContain('3.3.232.0/24');
  });

  it('refuses a truncated, garbled or future-dated file, naming it', async () => {
    files.set('/ip-ranges.json', { body: aws(10, '2026-11-27-08-00-00'), etag: '"t"' });
    await expect(fetchHosting()).rejects.toThrow(
      new FeedError(
        'hosting: AWS ip-ranges.json: only 10 records, a genuine one has at least 1000 (truncated?)',
      ),
    );
    files.set('/ip-ranges.json', { body: '<html>', etag: '"x"' });
    await expect(fetchHosting()).rejects.toThrow(/^hosting: AWS ip-ranges.json: not an AWS ip-ranges.json/);
    files.set('/ip-ranges.json', { body: aws(1000, '2026-11-29-08-00-00'), etag: '"f"' });
    await expect(fetchHosting()).rejects.toThrow(/is in the future/);
  });

  it('refuses a file of another feed, or an unrecognised location among several', async () => {
    await expect(
      fetchSourceFeed('torExits', `${base}/ip-ranges.json`, { timeoutMs: 2000, known: {}, now }),
    ).rejects.toThrow('torExits: AWS ip-ranges.json belongs to hosting');
    await expect(
      fetchSourceFeed('hosting', `${base}/ip-ranges.json,${base}/mine.txt`, {
        timeoutMs: 2000,
        known: {},
        now,
      }),
    ).rejects.toThrow('hosting: several locations must all be recognised public files');
  });
});

const TOR_LIST_MAX = recognise('torbulkexitlist')!.maxBytes;
const hostOf = () => new URL(base).host;
const withTimeout = (timeoutMs: number) => ({ timeoutMs, known: {}, now });

/** A Tor bulk exit list of 600 benchmark addresses, padded with blank lines to `size` bytes. */
function torList(size: number): string {
  return Array.from({ length: 600 }, (_, i) => `198.18.${i >> 8}.${i & 255}\n`)
    .join('')
    .padEnd(size, '\n');
}

/** What the server had sent when its side of the response closed, and whether it finished. */
type ServerSide = { sent: number; finished: boolean };

describe('a file larger than it may be', () => {
  it("refuses a Tor list one byte past its format's 2 MB, naming feed, host and limit, and takes one of exactly 2 MB", async () => {
    const path = '/tor/torbulkexitlist?token=secret';
    files.set(path, { body: torList(TOR_LIST_MAX + 1), etag: '"big"' });
    const refused = await fetchSourceFeed('torExits', `${base}${path}`, withTimeout(2000)).catch(
      (err: unknown) => err,
    );
    // This server sends it chunked, so it is refused as the bytes pass the bound; one that says
    // its length is refused at the headers (bounded-read.test.ts).
    expect(refused).toBeInstanceOf(FeedError);
    expect((refused as Error).message).toBe(
      `torExits: ${hostOf()} sent more than the ${TOR_LIST_MAX} bytes this file may have: not read`,
    );
    expect((refused as Error).message).not.toContain('secret');

    files.set(path, { body: torList(TOR_LIST_MAX), etag: '"max"' });
    const got = await fetchSourceFeed('torExits', `${base}${path}`, withTimeout(2000));
    expect(got.files!.get('')!.toString('utf8')).toContain('\n198.18.2.87\n');
  });

  it('refuses a body announced as 300 MB at once, long before the timeout, and drops the connection', async () => {
    const server = Promise.withResolvers<ServerSide>();
    handlers.set('/slow/hosting-ranges.txt', (_req, res) => {
      res.writeHead(200, { 'content-length': '300000000' });
      res.write('# as-of: 2026-11-27T00:00:00Z\n');
      // A byte now and then: enough to keep a reader of the whole body waiting for the timeout.
      let sent = 0;
      const trickle = setInterval(() => res.write('\n', () => sent++), 50);
      res.on('close', () => {
        clearInterval(trickle);
        server.resolve({ sent, finished: res.writableFinished });
      });
    });
    const started = performance.now();
    await expect(
      fetchSourceFeed('hosting', `${base}/slow/hosting-ranges.txt`, withTimeout(30_000)),
    ).rejects.toThrow(
      new FeedError(
        `hosting: ${hostOf()} announces 300000000 bytes, more than the ${FEED_LIMITS.hosting!.maxBytes} this file may have: not read`,
      ),
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect((await server.promise).finished).toBe(false);
  }, 60_000);

  it('refuses a chunked Tor list once it passes 2 MB, and the server sees the connection closed', async () => {
    const cap = 64 * 1024 * 1024;
    const server = Promise.withResolvers<ServerSide>();
    handlers.set('/chunked/torbulkexitlist', (_req, res) => {
      // No Content-Length: chunked, as fast as the client reads, up to 64 MB.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 0x0a);
      let sent = 0;
      res.on('close', () => server.resolve({ sent, finished: res.writableFinished }));
      const pump = () => {
        while (sent < cap && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (sent >= cap) res.end();
      };
      pump();
    });
    await expect(
      fetchSourceFeed('torExits', `${base}/chunked/torbulkexitlist`, withTimeout(30_000)),
    ).rejects.toThrow(
      new FeedError(
        `torExits: ${hostOf()} sent more than the ${TOR_LIST_MAX} bytes this file may have: not read`,
      ),
    );
    const seen = await server.promise;
    expect(seen.finished).toBe(false);
    expect(seen.sent).toBeLessThan(cap);
  }, 60_000);

  it('holds a file of a feed without a bound of its own to the default, fetched by the layout', async () => {
    handlers.set('/asn/asn-ipv4-num.csv', (_req, res) => {
      res.writeHead(200, { 'content-length': String(DEFAULT_MAX_BYTES + 1) });
      res.write('16777216,16777471,13335,"Cloudflare, Inc."\n');
    });
    files.set('/asn/asn-ipv6-num.csv', { body: '', etag: '"6"' });
    files.set('/asn/package.json', { body: '{}', etag: '"p"' });
    await expect(fetchFeed('asn', `${base}/asn`, 2000)).rejects.toThrow(
      new FeedError(
        `asn: ${hostOf()} announces ${DEFAULT_MAX_BYTES + 1} bytes, more than the ${DEFAULT_MAX_BYTES} this file may have: not read`,
      ),
    );
  });

  it('lets a MaxMind DB in place of the Tor list be larger than a Tor list', async () => {
    // Its walked text is held to the Tor feed's bound when the snapshot is built (range-feed.ts).
    files.set('/geoip/GeoIP2-Anonymous-IP.mmdb', { body: 'x'.repeat(TOR_LIST_MAX + 1), etag: '"m"' });
    const got = await fetchSourceFeed(
      'torExits',
      `${base}/geoip/GeoIP2-Anonymous-IP.mmdb`,
      withTimeout(2000),
    );
    expect(got.files!.get('')!.length).toBe(TOR_LIST_MAX + 1);
  });

  it('refuses a local file past its bound by its size, before reading it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feed-bound-'));
    try {
      const list = join(dir, 'torbulkexitlist');
      await writeFile(list, torList(TOR_LIST_MAX + 1));
      await expect(fetchSourceFeed('torExits', list, withTimeout(2000))).rejects.toThrow(
        new FeedError(
          `torExits: torbulkexitlist has ${TOR_LIST_MAX + 1} bytes, more than the ${TOR_LIST_MAX} it may have: not read`,
        ),
      );
      // A file in the project's format: the feed's own bound.
      const own = join(dir, 'tor-exits.txt');
      await writeFile(own, Buffer.alloc(FEED_LIMITS.torExits!.maxBytes + 1, 0x0a));
      await expect(fetchSourceFeed('torExits', own, withTimeout(2000))).rejects.toThrow(
        `torExits: tor-exits.txt has ${FEED_LIMITS.torExits!.maxBytes + 1} bytes, more than the ${FEED_LIMITS.torExits!.maxBytes}`,
      );
      await writeFile(list, torList(TOR_LIST_MAX));
      const got = await fetchSourceFeed('torExits', list, withTimeout(2000));
      expect(got.files!.get('')!.toString('utf8')).toContain('\n198.18.2.87\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the declared publishers', () => {
  it('are each a public file the importers recognise, imported into the feed that declares it', () => {
    const declared = Object.entries(FEEDS).flatMap(([feed, s]) =>
      s.publishers.map((url) => [feed, url] as const),
    );
    expect(declared.length).toBeGreaterThanOrEqual(10);
    for (const [feed, url] of declared) {
      const path = new URL(url).pathname;
      expect([url, (recogniseTable(path, feed) ?? recognise(path))?.feed]).toEqual([url, feed]);
    }
  });
});
