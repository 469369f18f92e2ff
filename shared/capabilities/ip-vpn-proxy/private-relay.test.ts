/**
 * Apple's iCloud Private Relay egress list, as a deployment fetches it (a verbatim excerpt of the
 * real file: test/fixtures/publishers/PROVENANCE.md), scored as relays: addresses of Apple's own
 * relay network and of the CDN that carries its egress are `IP_PRIVACY_RELAY` on both address
 * components, benign and worth nothing, never `IP_HOSTING` or a VPN (the `hosting` flag still says
 * what the network is).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calibrationSources } from '../../scoring/calibration/build.ts';
import { gatherEvidence } from '../../scoring/evidence.ts';
import { score } from '../../scoring/engine.ts';
import { DEFAULT_VERSION } from '../../scoring/versions.ts';
import { recognise } from '../feeds/importers/formats.ts';
import { FEED_LIMITS } from '../registry.ts';
import { buildSnapshot, decodeSnapshot } from '../snapshots.ts';

const SEED_VPN = join(import.meta.dirname, '../../../infra/feeds/vpn-proxy-ranges.txt');
const FIXTURE = join(import.meta.dirname, '../../../test/fixtures/publishers/apple/egress-ip-ranges.csv');
const bytes = readFileSync(FIXTURE);
const lines = bytes.toString('utf8').split('\n');
/** The first address of each range of the excerpt. */
const relayAddresses = lines.map((l) => l.split(',')[0]!.split('/')[0]!);

const sources = calibrationSources();
const format = recognise('https://mask-api.icloud.com/egress-ip-ranges.csv')!;
const seedVpn = sources.data!.ip_vpn_proxy;

describe("Apple's relay egress list", () => {
  it('is read whole from its real excerpt: 20 relay ranges, named, dated by the fetch', () => {
    const fetchedAt = new Date('2026-11-29T00:00:00Z');
    const feed = format.importer(bytes, fetchedAt, FEED_LIMITS.vpnProxy!);
    expect(feed.records).toBe(20);
    expect(feed.asOf).toEqual(fetchedAt);
    expect(feed.lines[0]).toBe('172.224.226.0/27,relay # iCloud Private Relay');
    expect(feed.lines.at(-1)).toBe('146.75.253.254/31,relay # iCloud Private Relay');
  });

  it('makes its addresses relays: benign, no points, no hosting or VPN flag', () => {
    // The feed as the refresher merges it: the shipped VPN lists, then Apple's relay ranges.
    const relay = format.importer(bytes, new Date(), FEED_LIMITS.vpnProxy!);
    const text = `${readFileSync(SEED_VPN, 'utf8').trimEnd()}\n${relay.lines.join('\n')}\n`;
    const vpn = decodeSnapshot(
      'ip_vpn_proxy',
      buildSnapshot('ip_vpn_proxy', { vpnProxy: new Map([['', Buffer.from(text)]]) }).payload,
    );
    const data = { ...sources.data, ip_vpn_proxy: vpn };
    for (const address of relayAddresses) {
      const evidence = gatherEvidence({ ip_address: address }, { ...sources, data });
      // The network stays what it is (a CDN's or Apple's hosting network): the relay list names
      // the address a relay, and the findings read that first.
      expect(evidence.ip, address).toMatchObject({ relay: true, vpn: false, proxy: false });
      const out = score({ evidence, version: DEFAULT_VERSION });
      const ip = out.components.filter((c) => c.component.startsWith('ip_'));
      expect(ip.find((c) => c.component === 'ip_vpn_proxy')?.detail, address).toBe('IP_PRIVACY_RELAY');
      expect(ip.find((c) => c.component === 'ip_network_type')?.detail, address).toBe('IP_PRIVACY_RELAY');
      for (const c of ip) expect(c.contribution, `${address} ${c.component}`).toBe(0);
      expect(out.band, address).toBe('minimal');
      expect(out.benign_exclusions).toContain('IP_PRIVACY_RELAY');
    }
    // Without the list, the same addresses are hosting networks (Apple's relay AS, Fastly's CDN).
    const before = gatherEvidence(
      { ip_address: relayAddresses[0]! },
      { ...sources, data: { ...sources.data, ip_vpn_proxy: seedVpn } },
    );
    expect(before.ip).toMatchObject({ hosting: true });
  });
});
