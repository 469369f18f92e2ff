import { describe, expect, it } from 'vitest';
import { parseRangeFeed } from '../range-feed.ts';
import { importAwsIpRanges, importGoogleCloudJson } from './cloud-ranges.ts';
import { mergeImports } from './imported-feed.ts';

// Fixtures: the shape of AWS ip-ranges.json and Google Cloud cloud.json, a few entries each.
const AWS = JSON.stringify({
  syncToken: '1764000000',
  createDate: '2026-11-24-21-03-07',
  prefixes: [
    { ip_prefix: '3.4.12.4/32', region: 'eu-west-1', service: 'AMAZON', network_border_group: 'eu-west-1' },
    { ip_prefix: '3.5.140.0/22', region: 'ap-northeast-2', service: 'AMAZON', network_border_group: 'x' },
    { ip_prefix: '3.5.140.0/22', region: 'ap-northeast-2', service: 'S3', network_border_group: 'x' },
  ],
  ipv6_prefixes: [{ ipv6_prefix: '2600:1F14::/35', region: 'us-west-2', service: 'EC2' }],
});
const GOOGLE = JSON.stringify({
  syncToken: '1763990000000',
  creationTime: '2026-11-23T23:01:17.123456',
  prefixes: [
    { ipv4Prefix: '34.1.208.0/20', service: 'Google Cloud', scope: 'africa-south1' },
    { ipv6Prefix: '2600:1900:8000::/44', service: 'Google Cloud', scope: 'us-east1' },
    { ipv4Prefix: '3.5.140.0/22', service: 'Google Cloud', scope: 'x' },
  ],
});

describe('the cloud range importers', () => {
  it('AWS: every distinct prefix, v4 and v6, dated by createDate, provider as a comment', () => {
    const feed = importAwsIpRanges(Buffer.from(AWS));
    expect(feed.feed).toBe('hosting');
    expect(feed.asOf.toISOString()).toBe('2026-11-24T21:03:07.000Z');
    expect(feed.lines).toEqual([
      '3.4.12.4/32 # Amazon Web Services',
      '3.5.140.0/22 # Amazon Web Services',
      '2600:1f14::/35 # Amazon Web Services',
    ]);
    expect(feed.text).toContain(
      '# source: AWS ip-ranges.json (syncToken 1764000000, createDate 2026-11-24-21-03-07)',
    );
  });

  it('Google: ipv4Prefix and ipv6Prefix, dated by creationTime read as UTC', () => {
    const feed = importGoogleCloudJson(Buffer.from(GOOGLE));
    expect(feed.asOf.toISOString()).toBe('2026-11-23T23:01:17.123Z');
    expect(feed.lines).toEqual([
      '34.1.208.0/20 # Google Cloud',
      '2600:1900:8000::/44 # Google Cloud',
      '3.5.140.0/22 # Google Cloud',
    ]);
  });

  it('the provider comment names the service and leaves the ranges as they are', () => {
    const feed = importAwsIpRanges(Buffer.from(AWS));
    const bare = feed.text.replace(/ # Amazon Web Services$/gm, '');
    const named = parseRangeFeed(Buffer.from(feed.text));
    expect(named.map(({ service: _, ...range }) => range)).toEqual(parseRangeFeed(Buffer.from(bare)));
    expect(named.map((e) => e.service)).toEqual([
      'Amazon Web Services',
      'Amazon Web Services',
      'Amazon Web Services',
    ]);
  });

  it('merged, a range is listed once and the file is as old as its oldest part', () => {
    const merged = mergeImports([
      importAwsIpRanges(Buffer.from(AWS)),
      importGoogleCloudJson(Buffer.from(GOOGLE)),
    ]);
    expect(merged.records).toBe(5);
    expect(merged.asOf.toISOString()).toBe('2026-11-23T23:01:17.123Z');
    expect(merged.text.startsWith('# as-of: 2026-11-23T23:01:17.123Z\n# source: AWS')).toBe(true);
    expect(merged.text).toContain('# source: Google Cloud cloud.json');
  });

  it('refuses a file without its date, a malformed prefix (naming the entry), or not JSON', () => {
    const doc = JSON.parse(AWS) as Record<string, unknown>;
    expect(() => importAwsIpRanges(Buffer.from(JSON.stringify({ ...doc, createDate: undefined })))).toThrow(
      'createDate',
    );
    const bad = { ...doc, prefixes: [{ ip_prefix: '3.4.12.4/32' }, { ip_prefix: '2600::/35' }] };
    expect(() => importAwsIpRanges(Buffer.from(JSON.stringify(bad)))).toThrow(
      'prefixes[1].ip_prefix: not an IPv4 CIDR',
    );
    expect(() => importGoogleCloudJson(Buffer.from('{"prefixes": ['))).toThrow(
      'not a Google Cloud cloud.json',
    );
    expect(() =>
      importGoogleCloudJson(Buffer.from('{"creationTime": "2026-11-23", "prefixes": []}')),
    ).toThrow('creationTime');
  });
});
