import { beforeAll, describe, expect, it } from 'vitest';
import { continentOf } from './continents.ts';
import { resolveIp } from './ip.ts';
import type { IpNetworks } from './ip-networks.ts';
import { loadResolutionData } from './resolution-data.ts';

// Real data from the installed @ip-location-db packages; expectations follow their 2.3.x content.
let networks: IpNetworks;
beforeAll(() => {
  networks = loadResolutionData().networks;
});

describe('resolveIp', () => {
  it('marks the documentation range 192.0.2.0/24 as a bogon', () => {
    const ip = resolveIp('192.0.2.1', networks);
    expect(ip).toMatchObject({ bogon: true, range: 'reserved', hosting: false });
    expect(ip.asn).toBeUndefined();
  });

  it('marks private and link-local addresses as bogons', () => {
    expect(resolveIp('10.0.0.1', networks).bogon).toBe(true);
    expect(resolveIp('fe80::1%eth0', networks)).toMatchObject({ bogon: true, range: 'linkLocal' });
  });

  it('marks space in neither the routing table nor any registry allocation as an unallocated bogon', () => {
    expect(resolveIp('4000::1', networks)).toMatchObject({ bogon: true, range: 'unallocated' });
  });

  it('with stale network tables, unallocated space is an unknown network; special-purpose ranges stay bogons', () => {
    // Space allocated after the tables' date would look unallocated: absence is no evidence then.
    expect(resolveIp('4000::1', networks, true)).toMatchObject({ bogon: false, range: 'unicast' });
    expect(resolveIp('4000::1', networks, true).asn).toBeUndefined();
    expect(resolveIp('192.0.2.1', networks, true)).toMatchObject({ bogon: true, range: 'reserved' });
    expect(resolveIp('10.0.0.1', networks, true).bogon).toBe(true);
    // What the tables do list is still used.
    expect(resolveIp('8.8.8.8', networks, true)).toMatchObject({ bogon: false, asn: 'AS15169' });
  });

  it('keeps allocated but unannounced space as not bogon, with its country and no AS', () => {
    const ip = resolveIp('6.0.0.1', networks);
    expect(ip).toMatchObject({ bogon: false, country_code: 'US', continent: 'NA' });
    expect(ip.asn).toBeUndefined();
    expect(ip.as_type).toBeUndefined();
  });

  it('resolves 8.8.8.8 to Google, AS15169, US', () => {
    expect(resolveIp('8.8.8.8', networks)).toMatchObject({
      bogon: false,
      asn: 'AS15169',
      as_name: 'Google LLC',
      as_type: 'hosting',
      network_operator: 'Google, Google Cloud',
      hosting: true,
      country_code: 'US',
      continent: 'NA',
    });
  });

  it('flags AWS addresses as hosting', () => {
    for (const address of ['52.95.110.1', '3.5.140.2']) {
      expect(resolveIp(address, networks)).toMatchObject({
        asn: 'AS16509',
        as_type: 'hosting',
        hosting: true,
      });
    }
  });

  it('resolves IPv6 with the full 128 bits', () => {
    expect(resolveIp('2001:4860:4860::8888', networks)).toMatchObject({
      asn: 'AS15169',
      country_code: 'US',
      hosting: true,
    });
    expect(resolveIp('2606:4700:4700::1111', networks)).toMatchObject({ asn: 'AS13335', as_type: 'hosting' });
  });

  it('treats an IPv4-mapped IPv6 address as its IPv4', () => {
    expect(resolveIp('::ffff:8.8.8.8', networks)).toEqual(resolveIp('8.8.8.8', networks));
  });

  it('gives a re-assigned block inside an allocation its own country', () => {
    // geo-whois lists 13.128.0.0/16 as US and 13.128.16.0/20 inside it as MX.
    expect(resolveIp('13.128.0.1', networks).country_code).toBe('US');
    expect(resolveIp('13.128.20.1', networks).country_code).toBe('MX');
  });

  it('classifies access networks by AS name', () => {
    expect(resolveIp('81.2.69.142', networks)).toMatchObject({
      asn: 'AS20712',
      as_name: 'Andrews & Arnold Ltd',
      country_code: 'GB',
      continent: 'EU',
      hosting: false,
    });
    expect(resolveIp('11.1.1.1', networks)).toMatchObject({ asn: 'AS749', as_type: 'government' });
    // SoftBank's name holds "bank"; it is a telecom operator's access network.
    expect(resolveIp('126.1.1.1', networks)).toMatchObject({
      asn: 'AS17676',
      as_type: 'isp',
      hosting: false,
    });
  });

  it('flags VPS hosts whose AS name does not say so as hosting, and names the operator', () => {
    expect(resolveIp('27.133.128.1', networks)).toMatchObject({
      asn: 'AS9370',
      as_type: 'hosting',
      hosting: true,
      network_operator: 'SAKURA Internet',
    });
    expect(resolveIp('172.104.1.1', networks)).toMatchObject({
      asn: 'AS48337',
      as_type: 'hosting',
      hosting: true,
      network_operator: 'Akamai, Linode',
    });
    expect(resolveIp('1.48.0.1', networks)).toMatchObject({ asn: 'AS4134', as_type: 'isp', hosting: false });
  });
});

describe('continentOf', () => {
  it('knows every country in the registry data', () => {
    const missing = new Set<string>();
    for (const table of [networks.countryV4, networks.countryV6]) {
      for (const packed of table.country) {
        const code = String.fromCharCode(packed >> 8, packed & 0xff);
        if (!continentOf(code)) missing.add(code);
      }
    }
    expect([...missing]).toEqual([]);
  });
});
