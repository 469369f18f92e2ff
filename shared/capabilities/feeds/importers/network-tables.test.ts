/**
 * The network type's tables from their publishers, on verbatim excerpts of real files
 * (test/fixtures/publishers, PROVENANCE.md): IPtoASN's ip2asn-v6.tsv of 2023-12-08 and the five
 * registries' delegated-extended statistics.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildIpNetworks, NETWORK_FILES } from '../../../resolution/ip-networks.ts';
import { resolveIp } from '../../../resolution/ip.ts';
import { feedAsOf } from '../as-of.ts';
import { recogniseTable } from './formats.ts';
import { asNameOf, importIp2asn, importRirCountries, mergeTables } from './network-tables.ts';
import { parseRirDelegated } from './rir-delegated.ts';

const fixture = (path: string) =>
  readFileSync(new URL(`../../../../test/fixtures/publishers/${path}`, import.meta.url));
const FETCHED = new Date('2026-11-28T06:00:00Z');
const IP2ASN = fixture('iptoasn/ip2asn-v6.tsv');
/** The excerpts' summary lines disagree with their records (they are excerpts): as counted. */
function countedRir(name: string): Buffer {
  const parsed = parseRirDelegated(fixture(`rir/${name}`));
  return Buffer.from(
    fixture(`rir/${name}`)
      .toString('utf8')
      .replace(
        /^(\w+)\|\*\|(\w+)\|\*\|\d+\|summary$/gm,
        (_, reg: string, type: string) => `${reg}|*|${type}|*|${parsed.seen.get(type) ?? 0}|summary`,
      ),
  );
}
const RIR_LATEST = readdirSync(new URL('../../../../test/fixtures/publishers/rir', import.meta.url)).filter(
  (f) => f.endsWith('-latest'),
);

describe("IPtoASN's ip2asn files", () => {
  it('become routing-table rows, unrouted space left out, named by the organisation after the handle', () => {
    const table = importIp2asn(IP2ASN, FETCHED);
    const published = IP2ASN.toString('utf8').trim().split('\n');
    const routed = published.filter((l) => !l.endsWith('\t0\tNone\tNot routed'));
    expect(table.feed).toBe('asn');
    expect(table.v4).toHaveLength(0);
    expect(table.v6).toHaveLength(routed.length);
    expect(table.asOf).toEqual(FETCHED);
    // `2001:200::	2001:200:5ff:ffff:ffff:ffff:ffff:ffff	2500	JP	WIDE-BB WIDE Project`
    expect(table.v6[1]).toEqual({
      start: 0x20010200n << 96n,
      end: (0x2001020005ffn << 80n) | ((1n << 80n) - 1n),
      value: '2500,WIDE Project',
    });
    expect(asNameOf('HIGE NTT Communications Corporation')).toBe('NTT Communications Corporation');
    expect(asNameOf('NTT-LTD-2914')).toBe('NTT-LTD-2914');
    expect(asNameOf('-Reserved AS-')).toBe('-Reserved AS-');
  });

  it('is read gzipped, as published, and recognised by its name for the routing-table feed only', () => {
    expect(importIp2asn(gzipSync(IP2ASN), FETCHED)).toEqual(importIp2asn(IP2ASN, FETCHED));
    expect(recogniseTable('https://iptoasn.com/data/ip2asn-v4.tsv.gz', 'asn')?.name).toBe('IPtoASN ip2asn');
    expect(recogniseTable('/mirror/ip2asn-v6.tsv', 'asn')).toBeDefined();
    expect(recogniseTable('https://iptoasn.com/data/ip2asn-v4.tsv.gz', 'ipCountry')).toBeUndefined();
  });

  it('refuses what is not its format, naming the line', () => {
    expect(() => importIp2asn(Buffer.from('1.0.0.0\t1.0.0.255\t13335\tUS\n'), FETCHED)).toThrow('line 1');
    expect(() => importIp2asn(Buffer.from('1.0.0.0\t1.0.0\t13335\tUS\tX\n'), FETCHED)).toThrow(
      "line 1: '1.0.0' is not an IP address",
    );
    expect(() => importIp2asn(Buffer.from('1.0.0.9\t1.0.0.0\t13335\tUS\tX\n'), FETCHED)).toThrow(
      'line 1: not a range',
    );
    expect(() => importIp2asn(Buffer.from([0x1f, 0x8b, 0, 1, 2]), FETCHED)).toThrow('not a readable gzip');
  });
});

describe("the registries' statistics as the registry-country table", () => {
  it('every allocated or assigned block with the country its record names, dated by the end date', () => {
    const ripe = importRirCountries(countedRir('delegated-ripencc-extended-latest'));
    expect(ripe.feed).toBe('ipCountry');
    expect(ripe.asOf.toISOString()).toBe('2026-06-25T22:00:00.000Z');
    // ripencc|PS|ipv4|1.178.112.0|4096|20071126|allocated|...
    expect(ripe.v4[0]).toEqual({ start: 0x01b27000n, end: 0x01b27fffn, value: 'PS' });
    // The excerpt as published disagrees with its own summary: refused as a truncated file.
    expect(() => importRirCountries(fixture('rir/delegated-ripencc-extended-latest'))).toThrow('truncated');
  });

  it('the five merged are the table files the snapshot reads, dated by the oldest registry', () => {
    const parts = RIR_LATEST.map((name) => importRirCountries(countedRir(name)));
    const { files, records } = mergeTables(parts);
    expect(records).toBe(parts.reduce((n, p) => n + p.records, 0));
    expect(records).toBeGreaterThan(20);
    const oldest = new Date(Math.min(...parts.map((p) => p.asOf.getTime())));
    expect(feedAsOf('ipCountry', files)).toEqual(oldest);
    const asn = mergeTables([importIp2asn(IP2ASN, FETCHED)]).files;
    expect(feedAsOf('asn', asn)).toEqual(FETCHED);
    // The snapshot's own reader takes them: WIDE's 2001:200::1 resolves to AS2500.
    const networks = buildIpNetworks({
      asnV4: asn.get(NETWORK_FILES.asnV4)!,
      asnV6: asn.get(NETWORK_FILES.asnV6)!,
      countryV4: files.get(NETWORK_FILES.countryV4)!,
      countryV6: files.get(NETWORK_FILES.countryV6)!,
    });
    expect(resolveIp('2001:200::1', networks)).toMatchObject({ asn: 'AS2500', as_name: 'WIDE Project' });
    expect(resolveIp('1.178.112.1', networks)).toMatchObject({ country_code: 'PS' });
  });
});
