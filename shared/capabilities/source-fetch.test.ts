/**
 * Fetching a feed from its publishers' own files (source-fetch.ts) against a local HTTP server:
 * several files merged into one feed, conditional requests, and the importers' refusals. The
 * files are small generated fixtures at the sizes the importers accept, not real lists.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedError } from './feeds/feed-error.ts';
import { recognise } from './feeds/importers/formats.ts';
import { FEEDS } from './registry.ts';
import { fetchSourceFeed, type LocationState } from './source-fetch.ts';

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
    syncToken: '2',
    creationTime: time,
    prefixes: Array.from({ length: n }, (_, i) => ({ ipv4Prefix: `34.${i >> 8}.${i & 255}.0/24` })),
  });

const files = new Map<string, { body: string; etag: string }>();
const answered: number[] = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
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

describe('the declared publishers', () => {
  it('are each a public file the importers recognise, imported into the feed that declares it', () => {
    const declared = Object.entries(FEEDS).flatMap(([feed, s]) =>
      s.publishers.map((url) => [feed, url] as const),
    );
    expect(declared.length).toBeGreaterThanOrEqual(10);
    for (const [feed, url] of declared) {
      expect([url, recognise(new URL(url).pathname)?.feed]).toEqual([url, feed]);
    }
  });
});
