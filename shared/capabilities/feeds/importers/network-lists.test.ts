import { describe, expect, it } from 'vitest';
import { VPN_PROXY_KINDS } from '../../ip-vpn-proxy/index.ts';
import { buildRangeSet, rangeAt } from '../../../resolution/range-set.ts';
import { parseRangeFeed } from '../range-feed.ts';
import { recognise } from './formats.ts';
import { importAsnList, importVpnServerList, parseAsnList, rangeToCidrs } from './network-lists.ts';

const FETCHED = new Date('2026-08-22T09:44:53Z');

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

  it('an AS list becomes the prefixes the routing table gives those systems, dated by the older of the two', () => {
    // AS13335 (Cloudflare) announces 1.1.1.0/24 in every routing table since 2018.
    const feed = importAsnList('hosting', 'data-centre AS list')(
      Buffer.from('AS13335 # Cloudflare\n'),
      FETCHED,
    );
    expect(feed.records).toBeGreaterThan(100);
    expect(feed.lines).toContain('1.1.1.0/24 # Cloudflare, Inc.');
    expect(feed.asOf.getTime()).toBeLessThanOrEqual(FETCHED.getTime());
    // AS209854 (Cyberzone S.A.) is Surfshark's own network.
    const vpn = importAsnList('vpnProxy', 'VPN provider AS list')(
      Buffer.from('AS209854 # Surfshark\n'),
      FETCHED,
    );
    expect(vpn.lines).toContain('5.182.103.0/24,vpn # Surfshark');
  });

  it('leaves out the systems whose own network type disagrees with the list, saying which', () => {
    // A university the data-centre list names is not hosting; a hosting company VPN providers
    // rent servers from (M247, Cloudflare here) is not a VPN network as a whole.
    const hosting = importAsnList('hosting', 'data-centre AS list')(
      Buffer.from('AS37170 # UNILAG, NG\nAS13335 # Cloudflare\n'),
      FETCHED,
    );
    expect(hosting.lines.some((l) => l.startsWith('196.45.48.0/20'))).toBe(false);
    expect(hosting.lines).toContain('1.1.1.0/24 # Cloudflare, Inc.');
    expect(hosting.source).toContain('AS37170 education');
    const vpn = importAsnList('vpnProxy', 'VPN provider AS list')(
      Buffer.from('AS9009 # M247, GB (NordVPN)\nAS13335 # Example VPN\nAS209854 # Surfshark\n'),
      FETCHED,
    );
    expect(vpn.lines.every((l) => l.endsWith('# Surfshark'))).toBe(true);
    expect(vpn.source).toContain('AS9009 hosting company M247');
  });
});
