/**
 * Every refusal of the strict importers (strict-address.ts, the importers, range-feed.ts and
 * `feeds:update`), each on the smallest input that shows it. Addresses are documentation,
 * benchmark and Tor-relay examples, not data.
 */
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../snapshots.ts';
import { FeedError } from './feed-error.ts';
import { importAwsIpRanges, importGoogleCloudJson } from './importers/cloud-ranges.ts';
import { FEED_LIMITS } from '../registry.ts';
import { importVpnServerList } from './importers/network-lists.ts';
import { importRirDelegated } from './importers/rir-delegated.ts';
import { importTorBulkExitList } from './importers/tor-bulk-exit-list.ts';
import { ANY_RANGE_FEED, parseRangeFeed } from './range-feed.ts';
import { isCanonicalIPv4, isStrictIPv6, parseStrictRange } from './strict-address.ts';

const FETCHED = new Date('2026-11-24T10:30:00Z');
const buf = (s: string) => Buffer.from(s);
const ANY = ANY_RANGE_FEED.minPrefix;

// What ipaddr.js alone accepts and reads as another address (or as anything at all).
const NOT_CANONICAL = [
  '185.220.10', // read as 185.220.0.10
  '3232235777', // read as 192.168.1.1
  '017.1.1.1', // read as octal: 15.1.1.1
  '01.2.3.4',
  '0x7f.1.1.1',
  '1.2.3.256',
  ' 1.2.3.4x',
  'fe80::1%eth0',
  '::ffff:017.1.1.1',
  '::ffff:1.2.3',
  '1::2::3',
  '1:2:3:4:5:6:7:8:9',
  '12345::1',
];

describe('the address grammar', () => {
  it('accepts canonical dotted quads and RFC 4291 IPv6 text', () => {
    for (const ok of ['0.0.0.0', '1.2.3.4', '255.255.255.255', '10.0.0.1'])
      expect(isCanonicalIPv4(ok)).toBe(true);
    for (const ok of ['::', '::1', '2001:db8::1', '2001:DB8:0:0:0:0:0:1', '::ffff:192.0.2.1', '1::'])
      expect(isStrictIPv6(ok)).toBe(true);
  });

  it.each(NOT_CANONICAL)('refuses %j', (text) => {
    expect(parseStrictRange(text, ANY)).toBe('not a dotted-quad IPv4 or an IPv6 address');
  });

  it('refuses a prefix length that is not plain decimal or is too long for the family', () => {
    expect(parseStrictRange('1.2.3.0/016', ANY)).toBe("'/016' is not a prefix length");
    expect(parseStrictRange('1.2.3.0/33', ANY)).toBe("'/33' is not a prefix length");
    expect(parseStrictRange('1.2.3.0/', ANY)).toBe("'/' is not a prefix length");
    expect(parseStrictRange('2001:db8::/129', ANY)).toBe("'/129' is not a prefix length");
  });

  it('refuses a range wider than the floor, an IPv4-mapped one by its IPv4 width', () => {
    expect(parseStrictRange('0.0.0.0/0', ANY)).toMatch('/0 is wider than this feed accepts (/8 at most)');
    expect(parseStrictRange('::/0', ANY)).toMatch('/0 is wider than this feed accepts (/12 at most)');
    expect(parseStrictRange('::ffff:0:0/96', ANY)).toMatch('/0 is wider');
    expect(parseStrictRange('::ffff:0:0/64', ANY)).toMatch('beyond the IPv4-mapped block');
    expect(parseStrictRange('::ffff:10.0.0.0/104', ANY)).toMatchObject({ cidr: '10.0.0.0/8' });
    expect(parseStrictRange('10.0.0.0/8', ANY)).toMatchObject({ cidr: '10.0.0.0/8' });
  });

  it('refuses a CIDR with host bits set, naming it and its network, rather than widening it', () => {
    expect(parseStrictRange('1.2.3.4/8', ANY)).toBe(
      "'1.2.3.4/8' has host bits set: the network is 1.0.0.0/8",
    );
    expect(parseStrictRange('2001:db8::1/32', ANY)).toBe(
      "'2001:db8::1/32' has host bits set: the network is 2001:db8::/32",
    );
    expect(parseStrictRange('1.2.3.128/24', ANY)).toMatch('the network is 1.2.3.0/24');
    // An IPv4-mapped range is checked as the IPv4 range it maps.
    expect(parseStrictRange('::ffff:1.2.3.4/104', ANY)).toBe(
      "'::ffff:1.2.3.4/104' has host bits set: the network is 1.0.0.0/8",
    );
    expect(parseStrictRange('1.2.3.0/24', ANY)).toMatchObject({ cidr: '1.2.3.0/24', bits: 24 });
    expect(parseStrictRange('2001:db8::/32', ANY)).toMatchObject({ cidr: '2001:db8::/32' });
    expect(parseStrictRange('::ffff:1.2.3.0/120', ANY)).toMatchObject({ cidr: '1.2.3.0/24' });
    // A single address has no host bits to set.
    expect(parseStrictRange('1.2.3.4', ANY)).toMatchObject({ cidr: '1.2.3.4/32' });
    expect(parseStrictRange('2001:db8::1/128', ANY)).toMatchObject({ cidr: '2001:db8::1/128' });
  });
});

describe('each importer refuses what is not an address, naming the line', () => {
  it('the Tor exit list, at the first bad line', () => {
    for (const bad of NOT_CANONICAL) {
      expect(() =>
        importTorBulkExitList(buf(`185.220.101.1\n${bad}\n185.220.101.2\n`), FETCHED, FEED_LIMITS.torExits!),
      ).toThrow('line 2: not an IP address');
    }
  });

  it('the Tor exit list, past its record bound', () => {
    const many = Array.from(
      { length: FEED_LIMITS.torExits!.maxRecords + 1 },
      (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
    ).join('\n');
    expect(() => importTorBulkExitList(buf(many), FETCHED, FEED_LIMITS.torExits!)).toThrow(
      '20001 records, more than the 20000',
    );
  });

  it('the cloud range files, an entry too wide or not canonical', () => {
    const aws = (prefix: string, v6 = '2600:1f14::/35') =>
      buf(
        JSON.stringify({
          createDate: '2026-11-24-21-03-07',
          prefixes: [{ ip_prefix: '3.5.140.0/22' }, { ip_prefix: prefix }],
          ipv6_prefixes: [{ ipv6_prefix: v6 }],
        }),
      );
    expect(importAwsIpRanges(aws('3.5.144.0/22'), new Date(), FEED_LIMITS.hosting!).records).toBe(3);
    expect(() => importAwsIpRanges(aws('0.0.0.0/0'), new Date(), FEED_LIMITS.hosting!)).toThrow(
      'prefixes[1].ip_prefix: not an IPv4 CIDR: /0 is wider',
    );
    expect(() => importAwsIpRanges(aws('3.5.144/22'), new Date(), FEED_LIMITS.hosting!)).toThrow(
      'prefixes[1].ip_prefix: not an IPv4 CIDR',
    );
    expect(() => importAwsIpRanges(aws('3.5.144.0'), new Date(), FEED_LIMITS.hosting!)).toThrow(
      'no prefix length',
    );
    expect(() => importAwsIpRanges(aws('3.5.144.0/22', '::/0'), new Date(), FEED_LIMITS.hosting!)).toThrow(
      'ipv6_prefixes[0].ipv6_prefix',
    );
    expect(() =>
      importAwsIpRanges(aws('3.5.144.0/22', '2600::/16'), new Date(), FEED_LIMITS.hosting!),
    ).toThrow('/16 is wider than this feed accepts (/19');
    const google = buf(
      JSON.stringify({
        syncToken: '1763990000000',
        prefixes: [{ ipv4Prefix: '034.1.0.0/16' }],
      }),
    );
    expect(() => importGoogleCloudJson(google, new Date(), FEED_LIMITS.hosting!)).toThrow(
      'prefixes[0].ipv4Prefix',
    );
  });

  it('the cloud range files, a prefix with host bits set, naming it rather than widening it', () => {
    const aws = (prefix: string, v6 = '2600:1f14::/35') =>
      buf(
        JSON.stringify({
          createDate: '2026-11-24-21-03-07',
          prefixes: [{ ip_prefix: '3.5.140.0/22' }, { ip_prefix: prefix }],
          ipv6_prefixes: [{ ipv6_prefix: v6 }],
        }),
      );
    expect(importAwsIpRanges(aws('1.2.3.0/24'), new Date(), FEED_LIMITS.hosting!).lines).toContain(
      '1.2.3.0/24 # Amazon Web Services',
    );
    expect(() => importAwsIpRanges(aws('1.2.3.4/8'), new Date(), FEED_LIMITS.hosting!)).toThrow(
      new FeedError(
        "prefixes[1].ip_prefix: not an IPv4 CIDR: '1.2.3.4/8' has host bits set: the network is 1.0.0.0/8",
      ),
    );
    expect(() =>
      importAwsIpRanges(aws('1.2.3.0/24', '2001:db8::1/32'), new Date(), FEED_LIMITS.hosting!),
    ).toThrow(
      new FeedError(
        "ipv6_prefixes[0].ipv6_prefix: not an IPv6 CIDR: '2001:db8::1/32' has host bits set: the network is 2001:db8::/32",
      ),
    );
    const google = buf(
      JSON.stringify({ syncToken: '1763990000000', prefixes: [{ ipv4Prefix: '1.2.3.4/8' }] }),
    );
    expect(() => importGoogleCloudJson(google, new Date(), FEED_LIMITS.hosting!)).toThrow(
      "prefixes[0].ipv4Prefix: not an IPv4 CIDR: '1.2.3.4/8'",
    );
  });

  it('the registry statistics, a non-canonical start or a block wider than IANA hands out', () => {
    const rir = (record: string) =>
      buf(`2|ripencc|20261124|1|19830705|20261123|+0000\nripencc|*|ipv4|*|1|summary\n${record}\n`);
    expect(
      importRirDelegated(
        rir('ripencc|NL|ipv4|185.1.0.0|256|20100101|allocated'),
        new Date(),
        FEED_LIMITS.allocatedRanges!,
      ).records,
    ).toBe(1);
    expect(() =>
      importRirDelegated(
        rir('ripencc|NL|ipv4|185.01.0.0|256|20100101|allocated'),
        new Date(),
        FEED_LIMITS.allocatedRanges!,
      ),
    ).toThrow('line 3: not an IPv4 start');
    expect(() =>
      importRirDelegated(
        rir('ripencc|NL|ipv4|0.0.0.0|4294967296|20100101|allocated'),
        new Date(),
        FEED_LIMITS.allocatedRanges!,
      ),
    ).toThrow('line 3: a block wider than /8');
    const v6 = (record: string) =>
      buf(`2|ripencc|20261124|1|19830705|20261123|+0000\nripencc|*|ipv6|*|1|summary\n${record}\n`);
    expect(() =>
      importRirDelegated(
        v6('ripencc|NL|ipv6|::|0|20100101|allocated'),
        new Date(),
        FEED_LIMITS.allocatedRanges!,
      ),
    ).toThrow('line 3: /0 is wider than /12');
    expect(() =>
      importRirDelegated(
        v6('ripencc|NL|ipv6|2001:db8::%1|32|20100101|allocated'),
        new Date(),
        FEED_LIMITS.allocatedRanges!,
      ),
    ).toThrow('line 3: not an IPv6 start');
  });

  it('a VPN server list skips a few stray lines, counts them, and refuses past one in a hundred', () => {
    const servers = Array.from({ length: 200 }, (_, i) => `198.18.${i >> 8}.${i & 255}`);
    const feed = importVpnServerList('Example VPN')(
      buf([...servers, '0.0.0.0/0', '::/0'].join('\n')),
      FETCHED,
    );
    expect(feed.records).toBe(200);
    expect(feed.lines.some((l) => l.startsWith('0.0.0.0') || l.startsWith('::/'))).toBe(false);
    expect(feed.source).toContain('2 stray lines skipped (first at line 201)');
    // A /16 is no server: skipped like any other stray line.
    expect(() =>
      importVpnServerList('Example VPN')(
        buf([...servers, '198.19.0.0/16', '185.220.10', '3232235777'].join('\n')),
        FETCHED,
      ),
    ).toThrow('3 of 203 entries are not server addresses (more than 1 %; first at line 201)');
    // A CIDR with host bits set is a stray line like any other, not its network.
    const stray = importVpnServerList('Example VPN')(buf([...servers, '198.18.9.1/24'].join('\n')), FETCHED);
    expect(stray.source).toContain('1 stray lines skipped (first at line 201)');
    expect(stray.lines.some((l) => l.startsWith('198.18.9.'))).toBe(false);
  });
});

/** The smallest routing and country tables a network-type snapshot builds from: one Cloudflare range. */
const asn = new Map([
  ['asn-ipv4-num.csv', buf('16777216,16777471,13335,"Cloudflare, Inc."\n')],
  ['asn-ipv6-num.csv', buf('')],
]);
const country = new Map([
  ['geo-whois-asn-country-ipv4-num.csv', buf('16777216,16777471,AU\n')],
  ['geo-whois-asn-country-ipv6-num.csv', buf('')],
]);

describe('range feeds read for a snapshot', () => {
  it('refuse a range wider than the feed holds, naming the line', () => {
    expect(() => parseRangeFeed(buf('1.2.3.4\n0.0.0.0/0\n'))).toThrow(
      'line 2: not an IP address or CIDR: /0 is wider',
    );
    expect(() => parseRangeFeed(buf('::/0\n'))).toThrow('line 1');
    expect(() => parseRangeFeed(buf('::ffff:0:0/96\n'))).toThrow('line 1');
    expect(() => parseRangeFeed(buf('185.220.96.0/21\n'), undefined, FEED_LIMITS.torExits!)).toThrow(
      'line 1',
    );
    expect(() => parseRangeFeed(buf('017.1.1.1\n'))).toThrow('line 1: not an IP address or CIDR');
  });

  it('refuse a range with host bits set, naming the line, and read an aligned one as it is', () => {
    expect(() => parseRangeFeed(buf('1.2.3.0/24\n1.2.3.4/8\n'), undefined, FEED_LIMITS.hosting!)).toThrow(
      new FeedError(
        "line 2: not an IP address or CIDR: '1.2.3.4/8' has host bits set: the network is 1.0.0.0/8",
      ),
    );
    expect(() => parseRangeFeed(buf('# hosting\n2001:db8::1/32\n'), undefined, FEED_LIMITS.hosting!)).toThrow(
      "line 2: not an IP address or CIDR: '2001:db8::1/32' has host bits set: the network is 2001:db8::/32",
    );
    expect(() => parseRangeFeed(buf('192.0.2.0/24,vpn\n1.2.3.4/12,vpn\n'), ['vpn'])).toThrow('line 2');
    expect(parseRangeFeed(buf('1.2.3.0/24 # Example Cloud\n'), undefined, FEED_LIMITS.hosting!)).toEqual([
      { version: 4, start: 0x01020300n, end: 0x010203ffn, kind: 1, service: 'Example Cloud' },
    ]);
  });

  it('refuse a file larger than the feed may be before reading it as text, and one with too many records', () => {
    const huge = Buffer.alloc(FEED_LIMITS.torExits!.maxBytes + 1, 0x0a);
    expect(() => parseRangeFeed(huge, undefined, FEED_LIMITS.torExits!)).toThrow(
      new FeedError(
        `${huge.length} bytes, more than the ${FEED_LIMITS.torExits!.maxBytes} this feed may have`,
      ),
    );
    const limits = { ...FEED_LIMITS.torExits!, maxRecords: 2 };
    expect(() => parseRangeFeed(buf('192.0.2.1\n192.0.2.2\n192.0.2.3\n'), undefined, limits)).toThrow(
      'line 3: more than the 2 records',
    );
  });

  it('never let 0.0.0.0/0 or ::/0 into a Tor, VPN or hosting snapshot', () => {
    const file = (s: string) => new Map([['', buf(s)]]);
    for (const everything of ['0.0.0.0/0', '::/0', '::ffff:0:0/96']) {
      expect(() => buildSnapshot('ip_tor_exit', { torExits: file(`192.0.2.1\n${everything}\n`) })).toThrow(
        'torExits: line 2',
      );
      expect(() =>
        buildSnapshot('ip_vpn_proxy', { vpnProxy: file(`192.0.2.0/24,vpn\n${everything},vpn\n`) }),
      ).toThrow('vpnProxy: line 2');
      expect(() =>
        buildSnapshot('ip_network_type', {
          asn,
          ipCountry: country,
          hosting: file(`1.0.0.0/24\n${everything}\n`),
        }),
      ).toThrow('hosting: line 2');
    }
    // A mistyped address with a /8 is refused, not turned into 16.8 million hosting addresses.
    expect(() =>
      buildSnapshot('ip_network_type', { asn, ipCountry: country, hosting: file('1.0.0.0/24\n1.2.3.4/8\n') }),
    ).toThrow("hosting: line 2: not an IP address or CIDR: '1.2.3.4/8' has host bits set");
    // The same tables with a plausible hosting feed do build.
    expect(
      buildSnapshot('ip_vpn_proxy', { vpnProxy: file('192.0.2.0/24,vpn\n10.16.0.0/12,vpn\n') }).entries,
    ).toBe(2);
  });
});
