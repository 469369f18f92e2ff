/**
 * MaxMind DB files as feeds, on MaxMind's own test databases and IPinfo's published samples
 * (test/fixtures/mmdb/README.md): the
 * path a refresh takes (fetch the location, date it, build the snapshot), then the decoded
 * snapshot answering for addresses the test databases' source data lists.
 */
import { FEED_LIMITS } from '../../registry.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.ts';
import { gatherEvidence } from '../../../scoring/evidence.ts';
import { kindAt } from '../../../resolution/range-set.ts';
import type { FeedName } from '../../registry.ts';
import { buildSnapshot, decodeSnapshot, type SnapshotName } from '../../snapshots.ts';
import type { FeedFiles } from '../../snapshot-format.ts';
import { feedLocations, fetchFeed } from '../../sources.ts';
import { dataAsOf } from '../as-of.ts';
import { isMmdb, mmdbAsnTables, mmdbRangeFeed } from './mmdb.ts';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures/mmdb');
const ANONYMOUS_IP = join(FIXTURES, 'GeoIP2-Anonymous-IP-Test.mmdb');
const ASN = join(FIXTURES, 'GeoLite2-ASN-Test.mmdb');
const ISP = join(FIXTURES, 'GeoIP2-ISP-Test.mmdb');
const IPINFO_LITE = join(FIXTURES, 'ipinfo_lite_sample.mmdb');
const IPINFO_PRIVACY = join(FIXTURES, 'ipinfo_privacy_sample.mmdb');
// The test databases' build_epoch.
const BUILT = new Date('2026-02-04T22:49:29Z');

/** What refreshCapability does before publishing: fetch each feed, date them, build. */
async function refreshPath<N extends SnapshotName>(
  name: N,
  feeds: FeedName[],
  at: Partial<Record<FeedName, string>>,
) {
  const locations = { ...feedLocations(loadConfig({})), ...at };
  const files: FeedFiles = {};
  for (const feed of feeds) files[feed] = await fetchFeed(feed, locations[feed]!, 5000);
  const asOf = dataAsOf(feeds, files);
  const built = buildSnapshot(name, files);
  return { asOf, built, data: decodeSnapshot(name, built.payload) };
}

const v4 = (text: string) => ({ v4: text.split('.').reduce((n, o) => n * 256 + Number(o), 0) });

describe('MaxMind DB sources', () => {
  it('an Anonymous IP database is the VPN/proxy feed: VPN, public and residential proxies', async () => {
    const { asOf, built, data } = await refreshPath('ip_vpn_proxy', ['vpnProxy'], { vpnProxy: ANONYMOUS_IP });
    expect(asOf).toEqual(BUILT);
    expect(built.entries).toBe(9);
    // Source data: 1.2.0.0/16 is_anonymous_vpn; 186.30.236.0/24 is_public_proxy;
    // 6.1.0.4 is_residential_proxy; 2001:480:3a::/64 is_public_proxy; 71.160.223.0/24 hosting only.
    expect(kindAt(data, v4('1.2.200.7'))).toBe(1);
    expect(kindAt(data, v4('186.30.236.9'))).toBe(2);
    expect(kindAt(data, v4('6.1.0.4'))).toBe(2);
    expect(kindAt(data, { hi: (0x20010480n << 32n) | (0x003an << 16n), lo: 7n })).toBe(2);
    expect(kindAt(data, v4('71.160.223.9'))).toBe(0);
    expect(kindAt(data, v4('8.8.8.8'))).toBe(0);
  });

  it('an ASN database and an Anonymous IP database are the network type: AS, name, hosting', async () => {
    const { asOf, data } = await refreshPath('ip_network_type', ['asn', 'ipCountry', 'hosting'], {
      asn: ASN,
      hosting: ANONYMOUS_IP,
    });
    // The oldest of the three: the country table is older than the test databases.
    expect(asOf.getTime()).toBeLessThanOrEqual(BUILT.getTime());
    const at = (ip: string) =>
      gatherEvidence({ ip_address: ip }, { networks: data.networks, data: { ip_network_type: data } }).ip!;
    // Source data: 1.0.0.0/24 is AS15169 "Google Inc." (the routing table says AS13335), 1.128.0.0/11
    // AS1221; 71.160.223.0/24 and 81.2.69.0/24 is_hosting_provider. 8.8.8.8 is in neither database.
    expect(at('1.0.0.1')).toMatchObject({ asn: 'AS15169', as_name: 'Google Inc.', as_type: 'hosting' });
    expect(at('1.128.9.9')).toMatchObject({ asn: 'AS1221', as_name: 'Telstra Pty Ltd', as_type: 'isp' });
    expect(at('71.160.223.9')).toMatchObject({ hosting: true });
    expect(at('81.2.69.160')).toMatchObject({ hosting: true });
    expect(at('8.8.8.8')).toMatchObject({ hosting: false });
    expect(at('8.8.8.8').asn).toBeUndefined();
  });

  it('an ISP database gives the AS tables too; a network without an AS number is left out', async () => {
    const tables = mmdbAsnTables(await readFile(ISP));
    expect(tables.builtAt).toEqual(BUILT);
    const rows = tables.asnV4.toString().split('\n');
    // ::1.128.0.0/107 is 1.128.0.0/11, AS1221; ::1.0.128.0/113 (1.0.128.0/17) has only an ISP name.
    expect(rows).toContain(
      `${1 * 2 ** 24 + 128 * 2 ** 16},${1 * 2 ** 24 + 160 * 2 ** 16 - 1},1221,Telstra Pty Ltd`,
    );
    expect(rows.some((r) => r.startsWith(`${1 * 2 ** 24 + 128 * 256},`))).toBe(false);
  });

  it('refuses a Tor feed from the test database: it flags 65.0.0.0/13, wider than a Tor list holds', async () => {
    const bytes = await readFile(ANONYMOUS_IP);
    expect(() => mmdbRangeFeed('torExits', bytes, FEED_LIMITS['torExits']!)).toThrow(
      '65.0.0.0/13 (flagged for torExits): /13 is wider than this feed accepts (/22 at most)',
    );
    await expect(refreshPath('ip_tor_exit', ['torExits'], { torExits: ANONYMOUS_IP })).rejects.toThrow(
      'torExits: 65.0.0.0/13',
    );
  });

  it("IPinfo's privacy and Lite databases are the VPN and hosting flags and the network type", async () => {
    const vpn = await refreshPath('ip_vpn_proxy', ['vpnProxy'], { vpnProxy: IPINFO_PRIVACY });
    expect(vpn.asOf).toEqual(new Date('2026-08-04T13:26:06Z'));
    // The sample's CSV: 1.0.7.231 vpn=true; 1.0.0.3 hosting only.
    expect(kindAt(vpn.data, v4('1.0.7.231'))).toBe(1);
    expect(kindAt(vpn.data, v4('1.0.0.3'))).toBe(0);
    const { data } = await refreshPath('ip_network_type', ['asn', 'ipCountry', 'hosting'], {
      asn: IPINFO_LITE,
      hosting: IPINFO_PRIVACY,
    });
    const at = (ip: string) =>
      gatherEvidence({ ip_address: ip }, { networks: data.networks, data: { ip_network_type: data } }).ip!;
    // The Lite sample: 1.0.0.0/24 AS13335 "Cloudflare, Inc."; 1.0.4.0/22 AS38803; 1.0.1.0/24 no AS.
    expect(at('1.0.0.3')).toMatchObject({ asn: 'AS13335', as_name: 'Cloudflare, Inc.', hosting: true });
    expect(at('1.0.4.9')).toMatchObject({ asn: 'AS38803', as_name: 'Gtelecom Pty Ltd' });
    expect(at('1.0.1.9').asn).toBeUndefined();
    expect(kindAt(data.hosting, v4('1.0.0.3'))).toBe(1);
    expect(kindAt(data.hosting, v4('1.0.7.231'))).toBe(0);
    // Its tor flag also marks guard and middle relays and bridges: not read as a list of exits.
    await expect(refreshPath('ip_tor_exit', ['torExits'], { torExits: IPINFO_PRIVACY })).rejects.toThrow(
      "IPinfo's tor flag covers every relay role",
    );
  });

  it('refuses a database of the wrong kind, a truncated one, and tells one from a text feed', async () => {
    const asn = await readFile(ASN);
    const anonymous = await readFile(ANONYMOUS_IP);
    expect(() => mmdbRangeFeed('vpnProxy', asn, FEED_LIMITS['vpnProxy']!)).toThrow(
      'a GeoLite2-ASN database has no anonymiser flags',
    );
    expect(() => mmdbAsnTables(anonymous)).toThrow('has no AS numbers');
    expect(() => mmdbAsnTables(asn.subarray(0, 4000))).toThrow('not a MaxMind DB file');
    expect(isMmdb(asn)).toBe(true);
    expect(isMmdb(Buffer.from('# as-of: 2026-11-20T00:00:00Z\n192.0.2.1\n'))).toBe(false);
  });
});
