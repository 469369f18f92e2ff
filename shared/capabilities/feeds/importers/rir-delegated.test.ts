import { describe, expect, it } from 'vitest';
import { parseRangeFeed } from '../range-feed.ts';
import { importRirDelegated, ipv4BlockToCidrs } from './rir-delegated.ts';

// Fixture: the shape of a delegated-<rir>-extended-latest file, a few records.
const RIR = [
  '# comment lines may precede the version line',
  '2|ripencc|20261124|7|19830705|20261123|+0100',
  'ripencc|*|asn|*|1|summary',
  'ripencc|*|ipv4|*|4|summary',
  'ripencc|*|ipv6|*|2|summary',
  'ripencc|FR|asn|3215|1|19930901|allocated|abc',
  'ripencc|NL|ipv4|193.0.0.0|2048|19930901|allocated|abc',
  'ripencc|GB|ipv4|194.1.0.0|768|19940101|assigned|def',
  'ripencc||ipv4|195.1.0.0|256||available',
  'ripencc|ZZ|ipv4|196.1.0.0|256||reserved|',
  'ripencc|DE|ipv6|2001:0678::|29|20011205|allocated|ghi',
  'ripencc||ipv6|2a10::|12||available',
  '',
].join('\n');

describe('the RIR delegation statistics importer', () => {
  it('splits a block whose count is not a power of two into aligned CIDRs', () => {
    expect(ipv4BlockToCidrs(0xc2010000, 768)).toEqual(['194.1.0.0/23', '194.1.2.0/24']);
    // 10.0.1.0 + 1,280 is misaligned at the start: a /24 up to the /23 boundary, then two /23.
    expect(ipv4BlockToCidrs(0x0a000100, 1280)).toEqual(['10.0.1.0/24', '10.0.2.0/23', '10.0.4.0/23']);
    // 1.0.0.0 + 1,000: /23, /24, /25, /26, /27, /29.
    expect(ipv4BlockToCidrs(0x01000000, 1000)).toEqual([
      '1.0.0.0/23',
      '1.0.2.0/24',
      '1.0.3.0/25',
      '1.0.3.128/26',
      '1.0.3.192/27',
      '1.0.3.224/29',
    ]);
    expect(ipv4BlockToCidrs(0, 2 ** 32)).toEqual(['0.0.0.0/0']);
    expect(ipv4BlockToCidrs(0xffffffff, 1)).toEqual(['255.255.255.255/32']);
    expect(() => ipv4BlockToCidrs(0xffffff00, 512)).toThrow('out of range');
  });

  it('keeps allocated and assigned address ranges, dated by the version line', () => {
    const feed = importRirDelegated(Buffer.from(RIR));
    expect(feed.feed).toBe('allocatedRanges');
    expect(feed.lines).toEqual(['193.0.0.0/21', '194.1.0.0/23', '194.1.2.0/24', '2001:678::/29']);
    expect(feed.asOf.toISOString()).toBe('2026-11-23T23:00:00.000Z');
    expect(feed.text).toContain('# source: ripencc delegated-extended statistics (20261124)');
    const ranges = parseRangeFeed(Buffer.from(feed.text));
    expect(ranges[0]).toMatchObject({ start: 0xc1000000n, end: 0xc10007ffn });
  });

  it('refuses a truncated file (summary counts), an unknown status or a bad record, naming the line', () => {
    const truncated = RIR.split('\n').slice(0, 9).join('\n');
    expect(() => importRirDelegated(Buffer.from(truncated))).toThrow(
      'the summary lists 4 ipv4 records, the file has 3',
    );
    expect(() => importRirDelegated(Buffer.from(RIR.replace('|assigned|', '|lent|')))).toThrow(
      "line 8: unknown status 'lent'",
    );
    expect(() => importRirDelegated(Buffer.from(RIR.replace('194.1.0.0|768', '194.1.0|768')))).toThrow(
      'line 8: not an IPv4 start and count',
    );
    expect(() => importRirDelegated(Buffer.from(RIR.replace('|29|', '|129|')))).toThrow('line 11');
    expect(() =>
      importRirDelegated(Buffer.from('ripencc|NL|ipv4|193.0.0.0|2048|19930901|allocated\n')),
    ).toThrow('line 1: expected the version line');
  });
});
