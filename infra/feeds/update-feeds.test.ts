/**
 * `feeds:update` end to end on temp dirs (no servers). The fixtures are written by the test: files
 * in each public format, generated to the plausible size of a real one (documentation, benchmark
 * and sample ranges; not real data).
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { feedAsOf } from '../../shared/capabilities/feeds/as-of.ts';
import { parseRangeFeed } from '../../shared/capabilities/feeds/range-feed.ts';
import { parseUpdateArgs, printable, updateFeeds, type UpdateOptions } from './update-feeds.ts';

const ROOT = join(import.meta.dirname, '../..');
const NOW = new Date('2026-11-25T12:00:00Z');

const torList = (n: number) =>
  Array.from({ length: n }, (_, i) => `198.18.${i >> 8}.${i & 255}`).join('\n') + '\n';
const awsJson = (n: number, createDate = '2026-11-24-21-03-07') =>
  JSON.stringify({
    syncToken: '1764000000',
    createDate,
    prefixes: Array.from({ length: n }, (_, i) => ({
      ip_prefix: `3.${i >> 8}.${i & 255}.0/24`,
      region: 'eu-west-1',
      service: 'AMAZON',
    })),
    ipv6_prefixes: [{ ipv6_prefix: '2600:1f14::/35', region: 'us-west-2', service: 'EC2' }],
  });
const googleJson = (n: number) =>
  JSON.stringify({
    // Google's real shape: the date in syncToken (epoch ms), creationTime in zone-less Pacific time.
    syncToken: '1795474877123',
    creationTime: '2026-11-23T15:01:17.123456',
    prefixes: Array.from({ length: n }, (_, i) => ({
      ipv4Prefix: `34.${i >> 8}.${i & 255}.0/24`,
      service: 'Google Cloud',
      scope: 'us-east1',
    })),
  });
const rirStats = (n: number) =>
  [
    `2|ripencc|20261124|${n}|19830705|20261123|+0000`,
    `ripencc|*|ipv4|*|${n}|summary`,
    ...Array.from(
      { length: n },
      (_, i) => `ripencc|NL|ipv4|185.${i >> 8}.${i & 255}.0|768|20100101|allocated|x`,
    ),
  ].join('\n') + '\n';

let dir: string;
let from: string;
let to: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'frs-feeds-'));
  from = join(dir, 'downloads');
  to = join(dir, 'feeds');
  await import('node:fs/promises').then((fs) => Promise.all([fs.mkdir(from), fs.mkdir(to)]));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function run(opts: Partial<UpdateOptions>): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await updateFeeds({ from: [from], to, allowShrink: false, ...opts }, (l) => out.push(l), NOW);
  return { code, out };
}

const feed = (name: string) => readFile(join(to, name));

describe('npm run feeds:update', () => {
  it('turns a directory of public files into feeds the refresher parses, and says what it did', async () => {
    await writeFile(join(from, 'torbulkexitlist'), torList(600));
    await utimes(join(from, 'torbulkexitlist'), NOW, new Date('2026-11-25T11:00:00Z'));
    await writeFile(join(from, 'ip-ranges.json'), awsJson(1200));
    await writeFile(join(from, 'cloud.json'), googleJson(250));
    await writeFile(join(from, 'delegated-ripencc-extended-latest'), rirStats(1100));
    await writeFile(join(from, 'notes.txt'), 'not a feed\n');

    const { code, out } = await run({});
    expect(code).toBe(0);
    expect(out).toContain(`${join(from, 'notes.txt')}: skipped, not a recognised public file name`);
    expect(out).toContain(
      `${join(from, 'torbulkexitlist')}: Tor bulk exit list, 600 records, as-of 2026-11-25T11:00:00Z ` +
        `(from the file's modification time: the file carries no date) -> wrote ${join(to, 'tor-exits.txt')}`,
    );
    expect(out.find((l) => l.startsWith(join(from, 'ip-ranges.json')))).toBe(
      `${join(from, 'ip-ranges.json')}: AWS ip-ranges.json, 1201 records, as-of 2026-11-24T21:03:07Z -> ` +
        `wrote ${join(to, 'hosting-ranges.txt')} (merged: 1451 records, as-of 2026-11-23T23:01:17.123Z)`,
    );

    // What the refresher does with them: the as-of header (as-of.ts), the range parser.
    const tor = await feed('tor-exits.txt');
    expect(feedAsOf('torExits', new Map([['', tor]]), NOW.getTime()).toISOString()).toBe(
      '2026-11-25T11:00:00.000Z',
    );
    expect(parseRangeFeed(tor)).toHaveLength(600);
    const hosting = await feed('hosting-ranges.txt');
    expect(feedAsOf('hosting', new Map([['', hosting]]), NOW.getTime()).toISOString()).toBe(
      '2026-11-23T23:01:17.123Z',
    );
    expect(parseRangeFeed(hosting)).toHaveLength(1451);
    // 768 addresses a record: a /23 and a /24 each.
    expect(parseRangeFeed(await feed('allocated-ranges.txt'))).toHaveLength(2200);
  });

  it('dates the Tor list by --as-of when given', async () => {
    await writeFile(join(from, 'torbulkexitlist'), torList(600));
    const opts = parseUpdateArgs(['--from', from, '--to', to, '--as-of', '2026-11-25T09:30:00Z']);
    if (typeof opts === 'string') throw new Error(opts);
    expect(await updateFeeds(opts, () => undefined, NOW)).toBe(0);
    expect((await feed('tor-exits.txt')).toString()).toMatch(/^# as-of: 2026-11-25T09:30:00Z\n/);
  });

  it('refuses a truncated file and keeps the old feed byte for byte, even when its partner is fine', async () => {
    const old = Buffer.from('# as-of: 2026-11-01T00:00:00Z\n3.0.0.0/15\n');
    await writeFile(join(to, 'hosting-ranges.txt'), old);
    await writeFile(join(from, 'ip-ranges.json'), awsJson(40));
    await writeFile(join(from, 'cloud.json'), googleJson(250));
    const { code, out } = await run({});
    expect(code).toBe(1);
    expect(out).toContain(
      `${join(from, 'ip-ranges.json')}: AWS ip-ranges.json: refused: only 41 records, a genuine AWS ip-ranges.json has at ` +
        `least 1000 (truncated?); ${join(to, 'hosting-ranges.txt')} left as it was (${join(from, 'ip-ranges.json')} was refused)`,
    );
    expect(await feed('hosting-ranges.txt')).toEqual(old);
  });

  it('refuses a feed that would shrink by more than half unless --allow-shrink', async () => {
    const old = Buffer.from(`# as-of: 2026-11-24T00:00:00Z\n${torList(1300)}`);
    await writeFile(join(to, 'tor-exits.txt'), old);
    await writeFile(join(from, 'torbulkexitlist'), torList(600));
    const refused = await run({ asOf: new Date('2026-11-25T11:00:00Z') });
    expect(refused.code).toBe(1);
    expect(refused.out[0]).toContain(
      'refused: 600 records would replace 1300 (less than half; --allow-shrink to accept)',
    );
    expect(await feed('tor-exits.txt')).toEqual(old);
    const allowed = await run({ asOf: new Date('2026-11-25T11:00:00Z'), allowShrink: true });
    expect(allowed.code).toBe(0);
    expect(parseRangeFeed(await feed('tor-exits.txt'))).toHaveLength(600);
  });

  it('refuses a date in the future, a missing date and a parse error with its line', async () => {
    await writeFile(join(from, 'torbulkexitlist'), torList(600));
    const future = await run({ asOf: new Date('2026-11-26T12:00:00Z') });
    expect(future.code).toBe(1);
    expect(future.out[0]).toContain('refused: its date 2026-11-26T12:00:00.000Z is in the future');

    await rm(join(from, 'torbulkexitlist'));
    await writeFile(join(from, 'ip-ranges.json'), awsJson(1200, ''));
    expect((await run({})).out[0]).toContain("refused: createDate '' is missing");

    await rm(join(from, 'ip-ranges.json'));
    await writeFile(
      join(from, 'delegated-arin-extended-latest'),
      rirStats(1100).replace('185.0.7.0', '185.0.7'),
    );
    expect((await run({})).out[0]).toContain(
      `refused: line 10: not an IPv4 start and count; ${join(to, 'allocated-ranges.txt')} not written`,
    );
    await expect(feed('allocated-ranges.txt')).rejects.toThrow('ENOENT');
  });

  it('fetches a URL, recognising it by its last path segment; an HTTP error is a refusal', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/ipranges/cloud.json') res.end(googleJson(250));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ok = await run({ from: [`${base}/ipranges/cloud.json`] });
      expect(ok.code).toBe(0);
      expect(ok.out[0]).toBe(
        `${base}/ipranges/cloud.json: Google Cloud cloud.json, 250 records, as-of 2026-11-23T23:01:17.123Z -> ` +
          `wrote ${join(to, 'hosting-ranges.txt')}`,
      );
      const missing = await run({ from: [`${base}/ip-ranges.json`] });
      expect(missing.code).toBe(1);
      expect(missing.out[0]).toContain('ip-ranges.json: AWS ip-ranges.json: refused: HTTP 404');
      expect(parseRangeFeed(await feed('hosting-ranges.txt'))).toHaveLength(250);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a file larger than its format allows without reading it, on disk or over HTTP', async () => {
    // 600 MB, sparse: reading it whole would end in ERR_STRING_TOO_LONG.
    const big = join(from, 'torbulkexitlist');
    await writeFile(big, '');
    await truncate(big, 600 * 1024 * 1024);
    const local = await run({ from: [big] });
    expect(local.code).toBe(1);
    expect(local.out[0]).toBe(
      `${big}: Tor bulk exit list: refused: larger than the 2097152 bytes a Tor bulk exit list may have: ` +
        `not read; ${join(to, 'tor-exits.txt')} not written`,
    );
    // One server says its length, the other streams without one: both are cut off at the bound.
    let sent = 0;
    const server = createServer((req, res) => {
      if (req.url === '/announced/torbulkexitlist') {
        res.writeHead(200, { 'content-length': String(600 * 1024 * 1024) });
        res.end();
        return;
      }
      res.writeHead(200);
      const line = Buffer.from('192.0.2.1\n'.repeat(6_000));
      const pump = () => {
        while (sent < 600 * 1024 * 1024 && res.write(line)) sent += line.length;
      };
      res.on('drain', pump);
      res.on('close', () => res.off('drain', pump));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const url of [`${base}/announced/torbulkexitlist`, `${base}/streamed/torbulkexitlist`]) {
        const remote = await run({ from: [url] });
        expect(remote.code).toBe(1);
        expect(remote.out[0]).toContain('refused: larger than the 2097152 bytes');
      }
      expect(sent).toBeLessThan(64 * 1024 * 1024);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await expect(feed('tor-exits.txt')).rejects.toThrow('ENOENT');
  });

  it('prints file names escaped: a crafted name cannot print a line of its own', async () => {
    // No `/` (a file name cannot hold one), the rest is what a terminal would obey.
    const fake = 'torbulkexitlist\ntor-exits.txt: verified, 9999 records \u001b[32mOK\u202e';
    await writeFile(join(from, fake), torList(600));
    const { code, out } = await run({ asOf: NOW });
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    for (const c of ['\n', '\u001b', '\u202e']) expect(out[0]).not.toContain(c);
    expect(out[0]).toContain('torbulkexitlist\\u{a}');
    expect(out[0]).toContain('\\u{1b}[32mOK\\u{202e}: Tor bulk exit list, 600 records');
    expect(printable('plain/path.txt')).toBe('plain/path.txt');
  });

  it('the command exits 0 on success, 1 on a refusal, 2 on bad usage', async () => {
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, [join(ROOT, 'infra/feeds/update.ts'), ...args]).then(
        (r) => ({ code: 0, stdout: r.stdout }),
        (e: { code: number; stdout: string; stderr: string }) => ({
          code: e.code,
          stdout: e.stdout + e.stderr,
        }),
      );
    await writeFile(join(from, 'torbulkexitlist'), torList(600));
    expect((await cli('--from', join(from, 'torbulkexitlist'), '--to', to)).code).toBe(0);
    await writeFile(join(from, 'torbulkexitlist'), torList(20));
    const refused = await cli('--from', from, '--to', to);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('refused: only 20 records');
    expect((await cli('--to', to)).code).toBe(2);
    expect((await cli('--from', from, '--as-of', 'yesterday')).code).toBe(2);
  });
});
