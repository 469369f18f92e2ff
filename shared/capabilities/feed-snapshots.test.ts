/**
 * The checked-in feed snapshots (infra/feeds) against real subjects of each class: Tor exits of
 * several operators, published servers of several VPN providers and VPN providers' networks,
 * clouds and VPS hosts. A snapshot that loses a class (a truncated import, a sample put back)
 * fails here, whatever the addresses a bug report happened to name.
 */
import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { gatherEvidence } from '../scoring/evidence.ts';
import { parseRangeFeed } from './feeds/range-feed.ts';
import { VPN_PROXY_KINDS } from './ip-vpn-proxy/index.ts';
import { buildRangeSet } from '../resolution/range-set.ts';
import { loadResolutionData } from '../resolution/resolution-data.ts';
import { type FeedLimits } from './feeds/importers/imported-feed.ts';
import { FEED_LIMITS } from './registry.ts';
import { buildSnapshot, decodeSnapshot } from './snapshots.ts';

const feed = (name: string) => readFileSync(new URL(`../../infra/feeds/${name}`, import.meta.url));
const single = (name: string) => new Map([['', feed(name)]]);
// Each list as its capability decodes it; the network type's data is the installed routing and
// country tables with its checked-in hosting list, whose whole systems match through those tables.
const { networks } = loadResolutionData();
const data = {
  ip_tor_exit: decodeSnapshot(
    'ip_tor_exit',
    buildSnapshot('ip_tor_exit', { torExits: single('tor-exits.txt') }).payload,
  ),
  ip_vpn_proxy: decodeSnapshot(
    'ip_vpn_proxy',
    buildSnapshot('ip_vpn_proxy', { vpnProxy: single('vpn-proxy-ranges.txt') }).payload,
  ),
  ip_network_type: {
    networks,
    hosting: buildRangeSet(parseRangeFeed(feed('hosting-ranges.txt'), undefined, FEED_LIMITS.hosting!)),
  },
};
const resolve = (ip: string) => gatherEvidence({ ip_address: ip }, { data, networks }).ip!;

describe('the feed snapshots know real subjects of each class', () => {
  it.each([
    ['195.176.3.23', 'Swiss research network exit'],
    ['185.220.101.7', 'Stiftung Erneuerbare Freiheit'],
    ['192.42.116.16', 'Nothing to Hide (NL)'],
    ['109.70.100.1', 'Verein fuer Zensurfreiheit / Tor exits (AT)'],
    ['171.25.193.20', 'DFRI (SE)'],
    ['204.8.96.100', 'Emerald Onion (US)'],
  ])('Tor exit %s (%s)', (ip) => {
    expect(resolve(ip).tor).toBe(true);
  });

  it.each([
    ['23.144.160.86', 'Mullvad VPN'],
    ['31.171.155.143', 'Private Internet Access'],
    ['2.58.241.69', 'Proton VPN'],
    ['5.182.103.10', 'Surfshark'],
    ['2.58.36.1', 'NordVPN (TEFINCOM S.A.)'],
  ])('VPN %s is named %s', (ip, service) => {
    const facts = resolve(ip);
    expect(facts.vpn).toBe(true);
    expect(facts.services?.ip_vpn_proxy).toBe(service);
  });

  it.each([
    ['3.5.140.1', /Amazon/],
    ['34.1.208.1', /Google/],
    ['45.33.0.1', /Akamai/],
    ['88.198.0.1', /Hetzner/],
    ['51.68.0.1', /OVH/],
    ['139.59.0.1', /DigitalOcean/],
    ['45.77.0.1', /Constant Company/],
    ['27.133.128.1', /SAKURA/],
  ])('hosting %s is named after its operator', (ip, operator) => {
    const facts = resolve(ip);
    expect(facts.hosting).toBe(true);
    expect(facts.services?.ip_network_type).toMatch(operator);
  });

  it('ordinary access networks are on none of the lists', () => {
    for (const ip of ['86.128.0.1', '73.0.0.1', '79.192.0.1', '90.0.0.1', '49.36.0.1', '126.0.0.1']) {
      const facts = resolve(ip);
      expect({ ip, tor: facts.tor, vpn: facts.vpn, hosting: facts.hosting }).toEqual({
        ip,
        tor: false,
        vpn: false,
        hosting: false,
      });
    }
  });

  it('the snapshots are complete lists, not samples', () => {
    const entries = (name: string, limits: FeedLimits) =>
      parseRangeFeed(feed(name), name.startsWith('vpn') ? VPN_PROXY_KINDS : undefined, limits);
    const systems = (name: string, limits: FeedLimits) =>
      entries(name, limits).filter((e) => e.version === 'as').length;
    expect(entries('tor-exits.txt', FEED_LIMITS.torExits!).length).toBeGreaterThan(1000);
    expect(entries('vpn-proxy-ranges.txt', FEED_LIMITS.vpnProxy!).length).toBeGreaterThan(4000);
    expect(systems('vpn-proxy-ranges.txt', FEED_LIMITS.vpnProxy!)).toBeGreaterThanOrEqual(10);
    expect(systems('hosting-ranges.txt', FEED_LIMITS.hosting!)).toBeGreaterThan(800);
    // No documentation or private address passes for a real subject.
    for (const name of ['tor-exits.txt', 'vpn-proxy-ranges.txt', 'hosting-ranges.txt']) {
      for (const line of feed(name).toString('utf8').split('\n')) {
        const entry = line.replace(/#.*$/, '').split(',')[0]!.trim();
        if (!entry || /^AS\d+$/.test(entry)) continue;
        const addr = entry.includes('/') ? ipaddr.parseCIDR(entry)[0] : ipaddr.parse(entry);
        expect([entry, addr.range()]).toEqual([entry, 'unicast']);
      }
    }
  });
});
