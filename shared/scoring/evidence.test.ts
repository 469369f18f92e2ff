import { beforeAll, describe, expect, it } from 'vitest';
import { buildRangeSet } from '../resolution/range-set.ts';
import { parseRangeFeed } from '../capabilities/feeds/range-feed.ts';
import { loadResolutionData, type ResolutionData } from '../resolution/resolution-data.ts';
import { gatherEvidence } from './evidence.ts';

describe('evidence', () => {
  let data: ResolutionData;
  beforeAll(() => {
    data = loadResolutionData();
  });

  it('resolves a trunk-zero caller ID to no range', () => {
    expect(gatherEvidence({ phone_number: '+4407911123456' }, data).phone).toMatchObject({
      valid: false,
      trunkZero: true,
      allocated: false,
    });
  });

  it("carries the ledger's answer only when the ledger was consulted", () => {
    expect(gatherEvidence({ ip_address: '1.1.1.1' }, data).reputation).toBeUndefined();
    expect(gatherEvidence({ ip_address: '1.1.1.1' }, data, { reports: 2 }).reputation).toEqual({
      reports: 2,
    });
    expect(gatherEvidence({ ip_address: '1.1.1.1' }, data, 'unavailable').reputation).toBe('unavailable');
  });

  it('lays the Tor, VPN and hosting lists over the network tables', () => {
    const set = (text: string, kinds?: readonly string[]) =>
      buildRangeSet(parseRangeFeed(Buffer.from(text), kinds));
    // Each list is its capability's own data, read by its own `ipFacts`.
    const lists = {
      ip_tor_exit: set('81.2.69.142\n'),
      ip_vpn_proxy: set('81.2.69.0/24,proxy\n', ['vpn', 'proxy']),
      ip_network_type: { networks: data.networks, hosting: set('81.2.0.0/16\n') },
    };
    const ip = gatherEvidence({ ip_address: '81.2.69.142' }, { ...data, data: lists }).ip!;
    expect(ip).toMatchObject({ tor: true, vpn: false, proxy: true, hosting: true, bogon: false });
    expect(gatherEvidence({ ip_address: '81.2.69.142' }, data).ip).toMatchObject({
      tor: false,
      proxy: false,
    });
  });

  it('takes the range-risk level of the longest listed prefix, for valid numbers only', () => {
    const ndcRisk = new Map([
      ['+447', 'elevated'],
      ['+44791', 'ordinary'],
    ] as const);
    expect(gatherEvidence({ phone_number: '+447911123456' }, { ...data, ndcRisk }).ndcListed).toBe(
      'ordinary',
    );
    expect(gatherEvidence({ phone_number: '+447400123456' }, { ...data, ndcRisk }).ndcListed).toBe(
      'elevated',
    );
    expect(
      gatherEvidence({ phone_number: '+4407911123456' }, { ...data, ndcRisk }).ndcListed,
    ).toBeUndefined();
  });

  it('without the network tables, calls nothing unallocated', () => {
    expect(gatherEvidence({ ip_address: '81.2.69.142' }, {}).ip).toMatchObject({
      bogon: false,
      hosting: false,
    });
    expect(gatherEvidence({ ip_address: '10.0.0.1' }, {}).ip).toMatchObject({ bogon: true });
  });
});
