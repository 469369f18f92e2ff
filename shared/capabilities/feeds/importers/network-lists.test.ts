import { describe, expect, it } from 'vitest';
import { VPN_PROXY_KINDS } from '../../ip-vpn-proxy/index.ts';
import { readFileSync } from 'node:fs';
import { buildRangeSet, rangeAt, systemAt } from '../../../resolution/range-set.ts';
import { FEED_LIMITS } from '../../registry.ts';
import { parseRangeFeed } from '../range-feed.ts';
import { recognise } from './formats.ts';
import { importAsnList, importVpnServerList, parseAsnList, rangeToCidrs } from './network-lists.ts';

const FETCHED = new Date('2026-08-22T09:44:53Z');

/** A verbatim excerpt of a published list (test/fixtures/publishers/PROVENANCE.md). */
const fixture = (path: string) =>
  readFileSync(new URL(`../../../../test/fixtures/publishers/${path}`, import.meta.url));

describe('VPN and data-centre network lists', () => {
  it('recognises each list by its folder and name, also inside a URL path', () => {
    expect(recognise('lists_vpn/input/vpn/ips/mullvadvpn.txt')?.name).toBe('Mullvad VPN server list');
    expect(recognise('/raw/main/input/vpn/ASN.txt')?.feed).toBe('vpnProxy');
    expect(recognise('x/input/datacenter/ASN.txt')?.feed).toBe('hosting');
    // A bare ASN.txt says neither which list nor which feed: not guessed.
    expect(recognise('ASN.txt')).toBeUndefined();
    expect(recognise('input/vpn/ips/apple.txt')).toBeUndefined();
  });

  it('a server list becomes VPN ranges named for the provider', () => {
    const feed = importVpnServerList('Mullvad VPN')(
      Buffer.from('# servers\n23.144.160.67/32\n2a03:1b20:1:f011::a01f/128\n\n31.171.155.134/31\n'),
      FETCHED,
    );
    expect(feed.lines).toEqual([
      '23.144.160.67/32,vpn # Mullvad VPN',
      '2a03:1b20:1:f011::a01f/128,vpn # Mullvad VPN',
      '31.171.155.134/31,vpn # Mullvad VPN',
    ]);
    const set = buildRangeSet(parseRangeFeed(Buffer.from(feed.text), VPN_PROXY_KINDS));
    expect(rangeAt(set, { v4: (23 << 24) + (144 << 16) + (160 << 8) + 67 })).toEqual({
      kind: 1,
      service: 'Mullvad VPN',
    });
    expect(() => importVpnServerList('X')(Buffer.from('1.2.3.4\n<html>\n'), FETCHED)).toThrow('line 2');
  });

  it('reads AS lists and refuses a line that is not one', () => {
    expect(parseAsnList(Buffer.from('AS9009 # M247, GB (NordVPN)\nAS209854 # Surfshark\n# note\n'))).toEqual(
      new Map([
        [9009, 'M247, GB (NordVPN)'],
        [209854, 'Surfshark'],
      ]),
    );
    expect(() => parseAsnList(Buffer.from('AS13335\n13335 # no prefix\n'))).toThrow('line 2');
  });

  it('cuts an address range into the CIDRs that cover exactly it', () => {
    expect(rangeToCidrs(0x01000000n, 0x010000ffn, 32)).toEqual(['1.0.0.0/24']);
    expect(rangeToCidrs(0x01000001n, 0x01000004n, 32)).toEqual(['1.0.0.1/32', '1.0.0.2/31', '1.0.0.4/32']);
    expect(rangeToCidrs(0x20010db8n << 96n, (0x20010db8n << 96n) | ((1n << 96n) - 1n), 128)).toEqual([
      '2001:db8::/32',
    ]);
  });

  it('an AS list stays a list of systems, dated when it was fetched', () => {
    const hosting = importAsnList('hosting', 'data-centre AS list')(
      Buffer.from('AS13335 # Cloudflare\nAS37170 # UNILAG, NG\n'),
      FETCHED,
    );
    expect(hosting.lines).toEqual(['AS13335', 'AS37170']);
    expect(hosting.asOf).toEqual(FETCHED);
    const vpn = importAsnList('vpnProxy', 'VPN provider AS list')(
      Buffer.from('AS209854 # Surfshark\nAS9009 # M247, GB (NordVPN)\n'),
      FETCHED,
    );
    expect(vpn.lines).toEqual(['AS209854,vpn # Surfshark', 'AS9009,vpn # M247, GB (NordVPN)']);
    // The systems survive into the feed's range set, looked up by number.
    const set = buildRangeSet(parseRangeFeed(Buffer.from(vpn.text), VPN_PROXY_KINDS, FEED_LIMITS.vpnProxy!));
    expect(systemAt(set, 209854)).toEqual({ kind: 1, service: 'Surfshark' });
    expect(systemAt(set, 9009)).toEqual({ kind: 1, service: 'M247, GB (NordVPN)' });
    expect(systemAt(set, 13335)).toEqual({ kind: 0 });
  });

  it('reads the real lists as published (X4BNet lists_vpn, 2026-08-22 and 2025-05-14)', () => {
    for (const [dir, vpnCount] of [
      ['x4bnet', 15],
      ['x4bnet-2025-05-14', undefined],
    ] as const) {
      const vpn = importAsnList('vpnProxy', 'VPN provider AS list')(
        fixture(`${dir}/input/vpn/ASN.txt`),
        FETCHED,
      );
      if (vpnCount !== undefined) expect(vpn.records).toBe(vpnCount);
      expect(vpn.lines.every((l) => /^AS\d+,vpn( # .+)?$/.test(l))).toBe(true);
      const dc = importAsnList('hosting', 'data-centre AS list')(
        fixture(`${dir}/input/datacenter/ASN.txt`),
        FETCHED,
      );
      expect(dc.records).toBeGreaterThan(30);
      // What the importer writes, the capability's feed parser reads back.
      expect(parseRangeFeed(Buffer.from(dc.text), undefined, FEED_LIMITS.hosting!)).toHaveLength(dc.records);
    }
    for (const provider of ['mullvadvpn', 'pia', 'protonvpn'] as const) {
      const feed = importVpnServerList(provider)(fixture(`x4bnet/input/vpn/ips/${provider}.txt`), FETCHED);
      expect(feed.records, provider).toBeGreaterThanOrEqual(39);
    }
  });

  it('a range feed lists a system only where its feed may, and only a public AS number', () => {
    expect(() => parseRangeFeed(Buffer.from('AS13335\n'))).toThrow('line 1: this feed lists addresses');
    expect(() => parseRangeFeed(Buffer.from('AS13335\n'), undefined, FEED_LIMITS.torExits!)).toThrow(
      'line 1',
    );
    for (const bad of ['AS0', 'AS23456', 'AS64512', 'AS4200000001', 'AS4294967296', 'AS013335', 'AS'])
      expect(() => parseRangeFeed(Buffer.from(`${bad}\n`), undefined, FEED_LIMITS.hosting!), bad).toThrow(
        'line 1',
      );
    expect(parseRangeFeed(Buffer.from('AS13335 # Cloudflare\n'), undefined, FEED_LIMITS.hosting!)).toEqual([
      { version: 'as', asn: 13335, kind: 1, service: 'Cloudflare' },
    ]);
  });
});
