/**
 * The cloud range importers on verbatim excerpts of the providers' published files
 * (test/fixtures/publishers, PROVENANCE.md): AWS ip-ranges.json of 2026-08-22 and Google Cloud
 * cloud.json of 2025-07-25, each its real head and tail, cut between whole entries.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRangeFeed } from '../range-feed.ts';
import { importAwsIpRanges, importGoogleCloudJson } from './cloud-ranges.ts';
import { mergeImports } from './imported-feed.ts';
import { FEED_LIMITS } from '../../registry.ts';

const fixture = (path: string) =>
  readFileSync(new URL(`../../../../test/fixtures/publishers/${path}`, import.meta.url));
const AWS = fixture('aws/ip-ranges.json');
const GOOGLE = fixture('google/cloud.json');

describe('the cloud range importers', () => {
  it('AWS: every distinct prefix, v4 and v6, dated by createDate, provider as a comment', () => {
    const feed = importAwsIpRanges(AWS, new Date(), FEED_LIMITS.hosting!);
    expect(feed.feed).toBe('hosting');
    expect(feed.asOf.toISOString()).toBe('2026-08-22T21:17:05.000Z');
    expect(feed.records).toBe(14);
    // The file's first and last entries of each family.
    expect(feed.lines[0]).toBe('3.4.12.4/32 # Amazon Web Services');
    expect(feed.lines).toContain('35.71.108.0/24 # Amazon Web Services');
    expect(feed.lines).toContain('2406:daba:f000::/40 # Amazon Web Services');
    expect(feed.lines.at(-1)).toBe('2600:1f14:802:7300::/56 # Amazon Web Services');
    expect(feed.text).toContain(
      '# source: AWS ip-ranges.json (syncToken 1787433425, createDate 2026-08-22-21-17-05)',
    );
  });

  it('Google: ipv4Prefix and ipv6Prefix, dated by its syncToken, not its zone-less Pacific creationTime', () => {
    const feed = importGoogleCloudJson(GOOGLE, new Date(), FEED_LIMITS.hosting!);
    // syncToken 1753409788780; creationTime says 2025-07-24T19:16:28.780563, seven hours behind.
    expect(feed.asOf.toISOString()).toBe('2025-07-25T02:16:28.780Z');
    expect(feed.lines[0]).toBe('34.1.208.0/20 # Google Cloud');
    expect(feed.lines).toContain('2600:1900:8000::/44 # Google Cloud');
    expect(feed.lines.at(-1)).toBe('2600:1900:4280::/44 # Google Cloud');
    expect(feed.records).toBe(9);
  });

  it('the provider comment names the service and leaves the ranges as they are', () => {
    const feed = importAwsIpRanges(AWS, new Date(), FEED_LIMITS.hosting!);
    const bare = feed.text.replace(/ # Amazon Web Services$/gm, '');
    const named = parseRangeFeed(Buffer.from(feed.text), undefined, FEED_LIMITS.hosting!);
    expect(named.map(({ service: _, ...range }) => range)).toEqual(parseRangeFeed(Buffer.from(bare)));
    expect(new Set(named.map((e) => e.service))).toEqual(new Set(['Amazon Web Services']));
  });

  it('merged, a range is listed once and the file is as old as its oldest part', () => {
    const merged = mergeImports([
      importAwsIpRanges(AWS, new Date(), FEED_LIMITS.hosting!),
      importGoogleCloudJson(GOOGLE, new Date(), FEED_LIMITS.hosting!),
    ]);
    expect(merged.records).toBe(23);
    expect(merged.asOf.toISOString()).toBe('2025-07-25T02:16:28.780Z');
    expect(merged.text.startsWith('# as-of: 2025-07-25T02:16:28.780Z\n# source: AWS')).toBe(true);
    expect(merged.text).toContain('# source: Google Cloud cloud.json');
  });

  it('refuses a file without its date, a malformed prefix (naming the entry), or not JSON', () => {
    const doc = JSON.parse(AWS.toString('utf8')) as Record<string, unknown>;
    expect(() =>
      importAwsIpRanges(
        Buffer.from(JSON.stringify({ ...doc, createDate: undefined })),
        new Date(),
        FEED_LIMITS.hosting!,
      ),
    ).toThrow('createDate');
    const bad = { ...doc, prefixes: [{ ip_prefix: '3.4.12.4/32' }, { ip_prefix: '2600::/35' }] };
    expect(() =>
      importAwsIpRanges(Buffer.from(JSON.stringify(bad)), new Date(), FEED_LIMITS.hosting!),
    ).toThrow('prefixes[1].ip_prefix: not an IPv4 CIDR');
    expect(() =>
      importGoogleCloudJson(Buffer.from('{"prefixes": ['), new Date(), FEED_LIMITS.hosting!),
    ).toThrow('not a Google Cloud cloud.json');
    const google = JSON.parse(GOOGLE.toString('utf8')) as Record<string, unknown>;
    for (const syncToken of [undefined, '2025-07-25', '1753409788'])
      expect(() =>
        importGoogleCloudJson(
          Buffer.from(JSON.stringify({ ...google, syncToken })),
          new Date(),
          FEED_LIMITS.hosting!,
        ),
      ).toThrow('syncToken');
  });
});
