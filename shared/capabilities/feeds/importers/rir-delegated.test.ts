import { FEED_LIMITS } from '../../registry.ts';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRangeFeed } from '../range-feed.ts';
import { checkRirSummary, importRirDelegated, ipv4BlockToCidrs, parseRirDelegated } from './rir-delegated.ts';

/**
 * Verbatim excerpts of the five registries' published files (the leading comments, the version
 * and summary lines, the first 15 and the last 10 records): test/fixtures/publishers/rir, with
 * their sources in PROVENANCE.md. The summary lines count the whole file, so an excerpt parses
 * but the full importer refuses it as truncated.
 */
const fixture = (name: string): Buffer =>
  readFileSync(new URL(`../../../../test/fixtures/publishers/rir/${name}`, import.meta.url));

/** `count` consecutive /22s from a.b.c.0 (c a multiple of 4). */
const slash22s = (prefix: string, third: number, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}.${third + 4 * i}.0/22`);

interface Case {
  file: string;
  registry: string;
  serial: string;
  /** The enddate at midnight in the version line's UTC offset. */
  asOf: string;
  summary: [string, number][];
  seen: [string, number][];
  /** Every CIDR the excerpt's allocated and assigned records make, in file order. */
  lines: string[];
  /** The first summary count the excerpt's records disagree with. */
  refused: string;
}

const APNIC_2026 = [
  '1.0.0.0/24', // apnic|AU|ipv4|1.0.0.0|256|20110811|assigned|A91872ED
  '1.0.1.0/24',
  '1.0.2.0/23', // 512 addresses
  '1.0.4.0/22',
  '1.0.8.0/21',
  '1.0.16.0/20',
  '1.0.32.0/19',
  '1.0.64.0/18',
  '1.0.128.0/17', // 32768 addresses
  '1.1.0.0/24',
  '1.1.1.0/24',
  '1.1.2.0/23',
  '1.1.4.0/22',
];
const RIPE = [
  '1.178.112.0/20', // ripencc|PS|ipv4|1.178.112.0|4096|20071126|allocated|<uuid>
  '1.178.128.0/20',
  '1.178.208.0/20',
  '1.178.224.0/19', // 8192
  '1.179.40.0/21', // 2048
  '1.179.72.0/21',
  '1.179.88.0/21',
  '1.179.112.0/20',
  '1.186.0.0/16', // 65536
  '2.0.0.0/15', // 131072
  '2.2.0.0/16',
  '2.3.0.0/16',
  '2.4.0.0/14', // 262144
  '2.8.0.0/13', // 524288
  '2.16.0.0/13', // ripencc|NL|ipv4|2.16.0.0|524288|20100910|allocated|<uuid>
];

const CASES: Case[] = [
  {
    // 15 ASN records first (some dated 00000000), 10 IPv6 records last, one allocated: 2632::/20.
    file: 'delegated-arin-extended-latest',
    registry: 'arin',
    serial: '1784970020780', // milliseconds: 2026-07-25T09:00:20Z, the file's making
    asOf: '2026-07-25T04:00:00.000Z', // 20260725 at midnight -0400
    summary: [
      ['asn', 32825],
      ['ipv4', 80603],
      ['ipv6', 88028],
    ],
    seen: [
      ['asn', 15],
      ['ipv6', 10],
    ],
    lines: ['2632::/20'],
    refused: 'the summary lists 32825 asn records, the file has 15 (truncated?)',
  },
  {
    file: 'delegated-arin-extended-20260413',
    registry: 'arin',
    serial: '1776085240082',
    asOf: '2026-04-13T04:00:00.000Z',
    summary: [
      ['asn', 32417],
      ['ipv4', 80271],
      ['ipv6', 90251],
    ],
    seen: [
      ['asn', 15],
      ['ipv6', 10],
    ],
    lines: ['2632::/20'],
    refused: 'the summary lists 32417 asn records, the file has 15 (truncated?)',
  },
  {
    // A 27-line comment banner (two lines with tabs, twelve with a trailing space) first; the
    // version line has no startdate and a serial a day after its enddate. 15 IPv4 records first,
    // 10 ASN records last (one `available`, undated, with an empty opaque-id).
    file: 'delegated-apnic-extended-latest',
    registry: 'apnic',
    serial: '20260627',
    asOf: '2026-06-25T14:00:00.000Z', // 20260626 at midnight +1000
    summary: [
      ['asn', 14586],
      ['ipv4', 61248],
      ['ipv6', 112475],
    ],
    seen: [
      ['ipv4', 15],
      ['asn', 10],
    ],
    lines: [...APNIC_2026, '1.1.8.0/24', '1.1.9.0/24'],
    refused: 'the summary lists 14586 asn records, the file has 10 (truncated?)',
  },
  {
    file: 'delegated-apnic-extended-20160130',
    registry: 'apnic',
    serial: '20160131',
    asOf: '2016-01-29T14:00:00.000Z',
    summary: [
      ['asn', 7283],
      ['ipv4', 33141],
      ['ipv6', 32983],
    ],
    seen: [
      ['ipv4', 15],
      ['asn', 10],
    ],
    // In 2016 1.1.8.0 was one 2048-address block, then 1.1.16.0 a 4096 one.
    lines: [...APNIC_2026, '1.1.8.0/21', '1.1.16.0/20'],
    refused: 'the summary lists 7283 asn records, the file has 10 (truncated?)',
  },
  {
    // UUID opaque-ids; the last 10 records are undated `available` IPv6 lines with 7 fields.
    file: 'delegated-ripencc-extended-latest',
    registry: 'ripencc',
    serial: '1782511199', // Unix seconds: 2026-06-26T23:59:59+0200, the end of the enddate
    asOf: '2026-06-25T22:00:00.000Z', // 20260626 at midnight +0200
    summary: [
      ['ipv4', 100197],
      ['asn', 48679],
      ['ipv6', 110864],
    ],
    seen: [
      ['ipv4', 15],
      ['ipv6', 10],
    ],
    lines: RIPE,
    refused: 'the summary lists 100197 ipv4 records, the file has 15 (truncated?)',
  },
  {
    file: 'delegated-ripencc-extended-20251022',
    registry: 'ripencc',
    serial: '1761170399',
    asOf: '2025-10-21T22:00:00.000Z',
    summary: [
      ['ipv4', 97756],
      ['asn', 45608],
      ['ipv6', 111033],
    ],
    seen: [
      ['ipv4', 15],
      ['ipv6', 10],
    ],
    lines: RIPE,
    refused: 'the summary lists 97756 ipv4 records, the file has 15 (truncated?)',
  },
  {
    // The UTC offset is written `00000`: UTC. 15 ASN records first, 10 IPv6 records last (country
    // ZZ for the reserved and available ones), two allocated.
    file: 'delegated-afrinic-extended-latest',
    registry: 'afrinic',
    serial: '20260626',
    asOf: '2026-06-26T00:00:00.000Z',
    summary: [
      ['asn', 4350],
      ['ipv4', 6003],
      ['ipv6', 9097],
    ],
    seen: [
      ['asn', 15],
      ['ipv6', 10],
    ],
    lines: ['2c0f:ffe8::/32', '2c0f:fff0::/32'],
    refused: 'the summary lists 4350 asn records, the file has 15 (truncated?)',
  },
  {
    file: 'delegated-afrinic-extended-20260505',
    registry: 'afrinic',
    serial: '20260505',
    asOf: '2026-05-05T00:00:00.000Z',
    summary: [
      ['asn', 4350],
      ['ipv4', 5958],
      ['ipv6', 8978],
    ],
    seen: [
      ['asn', 15],
      ['ipv6', 10],
    ],
    lines: ['2c0f:ffe8::/32', '2c0f:fff0::/32'],
    refused: 'the summary lists 4350 asn records, the file has 15 (truncated?)',
  },
  {
    // Numeric opaque-ids; 15 IPv4 records (each 1024 addresses) first, 10 ASN records last.
    file: 'delegated-lacnic-extended-latest',
    registry: 'lacnic',
    serial: '20260625',
    asOf: '2026-06-25T03:00:00.000Z', // 20260625 at midnight -0300
    summary: [
      ['ipv4', 20655],
      ['ipv6', 59378],
      ['asn', 16305],
    ],
    seen: [
      ['ipv4', 15],
      ['asn', 10],
    ],
    lines: ['5.183.80.0/22', ...slash22s('24.152', 0, 14)],
    refused: 'the summary lists 20655 ipv4 records, the file has 15 (truncated?)',
  },
  {
    // The serial (20230323) is a day after the enddate (20230322): the date is the enddate. An
    // undated `reserved` record (24.152.20.0) is counted, not written.
    file: 'delegated-lacnic-extended-20230322',
    registry: 'lacnic',
    serial: '20230323',
    asOf: '2023-03-22T03:00:00.000Z',
    summary: [
      ['ipv4', 19618],
      ['ipv6', 52498],
      ['asn', 14121],
    ],
    seen: [
      ['ipv4', 15],
      ['asn', 10],
    ],
    lines: [
      ...slash22s('24.152', 0, 5),
      ...slash22s('24.152', 24, 8),
      '24.152.56.0/24', // lacnic|CO|ipv4|24.152.56.0|256|20200430|allocated|312791
    ],
    refused: 'the summary lists 19618 ipv4 records, the file has 15 (truncated?)',
  },
];

/** An excerpt whose summary lines are rewritten to its own record counts: a whole file's shape. */
function consistent(bytes: Buffer): Buffer {
  const { seen } = parseRirDelegated(bytes);
  const text = bytes
    .toString('utf8')
    .replace(
      /^([a-z]+)\|\*\|(\w+)\|\*\|\d+\|summary$/gm,
      (_, r, t) => `${r}|*|${t}|*|${seen.get(t) ?? 0}|summary`,
    );
  return Buffer.from(text);
}

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

  describe.each(CASES)('$file', (c) => {
    it('parses: the registry, the serial, the enddate as the date, the records', () => {
      const parsed = parseRirDelegated(fixture(c.file));
      expect(parsed.registry).toBe(c.registry);
      expect(parsed.serial).toBe(c.serial);
      expect(parsed.asOf.toISOString()).toBe(c.asOf);
      expect(parsed.summary).toEqual(new Map(c.summary));
      // ASN records are counted, never written.
      expect(parsed.seen).toEqual(new Map(c.seen));
      expect(parsed.lines).toEqual(c.lines);
      expect(parsed.lines[0]).toBe(c.lines[0]);
      expect(parsed.lines.at(-1)).toBe(c.lines.at(-1));
    });

    it('is refused whole, its summary counting the full file', () => {
      expect(() => importRirDelegated(fixture(c.file), new Date(), FEED_LIMITS.allocatedRanges!)).toThrow(
        c.refused,
      );
    });
  });

  it('checks the summary counts against the records: whole imports, one record short is refused', () => {
    const whole = consistent(fixture('delegated-arin-extended-latest'));
    expect(() => checkRirSummary(parseRirDelegated(whole))).not.toThrow();
    const feed = importRirDelegated(whole, new Date(), FEED_LIMITS.allocatedRanges!);
    expect(feed.feed).toBe('allocatedRanges');
    expect(feed.lines).toEqual(['2632::/20']);
    expect(feed.asOf.toISOString()).toBe('2026-07-25T04:00:00.000Z');
    expect(feed.text).toContain('# as-of: 2026-07-25T04:00:00Z\n');
    expect(feed.text).toContain('# source: arin delegated-extended statistics (1784970020780)\n');

    const ripe = importRirDelegated(
      consistent(fixture('delegated-ripencc-extended-latest')),
      new Date(),
      FEED_LIMITS.allocatedRanges!,
    );
    expect(ripe.records).toBe(15);
    expect(parseRangeFeed(Buffer.from(ripe.text))[0]).toMatchObject({ start: 0x01b27000n, end: 0x01b27fffn });

    // The last record gone, as from a download cut short.
    const cut = whole.toString('utf8').replace('arin||ipv6|2638::|13||available|\n', '');
    expect(() => importRirDelegated(Buffer.from(cut), new Date(), FEED_LIMITS.allocatedRanges!)).toThrow(
      'the summary lists 10 ipv6 records, the file has 9 (truncated?)',
    );
    expect(() => checkRirSummary({ summary: new Map([['ipv4', 3]]), seen: new Map() })).toThrow(
      'the summary lists 3 ipv4 records, the file has 0',
    );
  });

  it('reads a file with CRLF line ends as the same file', () => {
    const lf = fixture('delegated-apnic-extended-latest');
    const crlf = Buffer.from(lf.toString('utf8').replaceAll('\n', '\r\n'));
    expect(parseRirDelegated(crlf)).toEqual(parseRirDelegated(lf));
  });

  it('refuses a block wider than /8, an unknown status or a bad record, naming the line', () => {
    const ripe = fixture('delegated-ripencc-extended-latest').toString('utf8');
    // Line 13: ripencc|GB|ipv4|1.186.0.0|65536|20100713|allocated|<uuid>
    expect(() =>
      parseRirDelegated(Buffer.from(ripe.replace('|1.186.0.0|65536|', '|2.0.0.0|33554432|'))),
    ).toThrow('line 13: a block wider than /8');
    expect(() => parseRirDelegated(Buffer.from(ripe.replace('|1.186.0.0|', '|1.186.0|')))).toThrow(
      'line 13: not an IPv4 start and count',
    );
    expect(() =>
      parseRirDelegated(Buffer.from(ripe.replace('|20100713|allocated|', '|20100713|lent|'))),
    ).toThrow("line 13: unknown status 'lent'");
    // Line 29: ripencc||ipv6|2a18::|13||available; assigned, a /11 is wider than IANA hands out.
    expect(() =>
      parseRirDelegated(Buffer.from(ripe.replace('|2a18::|13||available', '|2a18::|11||assigned'))),
    ).toThrow('line 29: /11 is wider than /12');
    expect(() =>
      parseRirDelegated(Buffer.from(ripe.replace('|2a18::|13||available', '|2a18::|129||assigned'))),
    ).toThrow('line 29: not an IPv6 start and prefix length');
  });

  it('refuses a version line whose enddate is not a date, or no version line, naming the line', () => {
    const ripe = fixture('delegated-ripencc-extended-latest').toString('utf8');
    expect(() => parseRirDelegated(Buffer.from(ripe.replace('|20260626|+0200', '|20261399|+0200')))).toThrow(
      "line 1: the version line's enddate '20261399' is not a date (YYYYMMDD)",
    );
    expect(() => parseRirDelegated(Buffer.from(ripe.replace('|20260626|+0200', '|20260230|+0200')))).toThrow(
      "line 1: the version line's enddate '20260230' is not a date",
    );
    expect(() => parseRirDelegated(Buffer.from(ripe.replace('|20260626|+0200', '||+0200')))).toThrow(
      "line 1: the version line's enddate '' is not a date",
    );
    // APNIC's version line follows its 27 comment lines.
    const apnic = fixture('delegated-apnic-extended-latest').toString('utf8');
    expect(() =>
      parseRirDelegated(Buffer.from(apnic.replace('||20260626|+1000', '||2026-06-26|+1000'))),
    ).toThrow("line 28: the version line's enddate '2026-06-26' is not a date");
    expect(() => parseRirDelegated(Buffer.from(apnic.replace('|20260626|+1000', '|20260626|AEST')))).toThrow(
      "line 28: the version line's UTC offset 'AEST' is not +HHMM or -HHMM",
    );
    // The serial is a sequence number, any run of digits, never the date.
    expect(() => parseRirDelegated(Buffer.from(ripe.replace('|1782511199|', '|2026-06-26|')))).toThrow(
      "line 1: expected the version line 'version|registry|serial|records|startdate|enddate|UTCoffset'",
    );
    // A file that starts with a record.
    expect(() =>
      importRirDelegated(
        Buffer.from('ripencc|NL|ipv4|193.0.0.0|2048|19930901|allocated\n'),
        new Date(),
        FEED_LIMITS.allocatedRanges!,
      ),
    ).toThrow('line 1: expected the version line');
    expect(() =>
      importRirDelegated(Buffer.from('# only a comment\n'), new Date(), FEED_LIMITS.allocatedRanges!),
    ).toThrow('no version line');
  });
});
