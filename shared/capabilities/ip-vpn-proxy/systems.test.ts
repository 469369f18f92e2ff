/**
 * Whole systems on the VPN list (X4BNet's `vpn/ASN.txt`): matched at lookup against the origin AS
 * the node's routing table gives the address, and flagged whole only where the system's own type
 * allows it (index.ts `wholeSystemListed`).
 */
import { describe, expect, it } from 'vitest';
import type { IpFacts } from '../../resolution/ip.ts';
import { addressKeyOf } from '../../resolution/ip.ts';
import { buildRangeSet } from '../../resolution/range-set.ts';
import { FEED_LIMITS } from '../registry.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import { ipVpnProxy, VPN_PROXY_KINDS } from './index.ts';

const set = buildRangeSet(
  parseRangeFeed(
    Buffer.from(
      '# as-of: 2026-11-20T00:00:00Z\n185.65.134.0/24,vpn # Mullvad VPN\nAS209854,vpn # Surfshark\n',
    ),
    VPN_PROXY_KINDS,
    FEED_LIMITS.vpnProxy!,
  ),
);

const ip = (over: Partial<IpFacts>): IpFacts => ({
  address: '5.182.103.10',
  version: 4,
  bogon: false,
  range: 'unicast',
  hosting: false,
  vpn: false,
  proxy: false,
  tor: false,
  ...over,
});
const facts = (i: IpFacts) => ipVpnProxy.ipFacts!(i, addressKeyOf(i.address), set);

describe('a VPN list of whole systems', () => {
  it('flags an address routed from a listed hosting or untyped system, named as the list names it', () => {
    expect(facts(ip({ asn: 'AS209854', as_type: 'hosting' }))).toEqual({
      vpn: true,
      proxy: false,
      services: { ip_vpn_proxy: 'Surfshark' },
    });
    expect(facts(ip({ asn: 'AS209854' }))).toMatchObject({ vpn: true });
  });

  it('never flags an access, mobile or business network whole, nor a hosting brand VPNs rent from', () => {
    for (const as_type of ['isp', 'mobile', 'business', 'education'] as const)
      expect(facts(ip({ asn: 'AS209854', as_type })), as_type).toEqual({ vpn: false, proxy: false });
    expect(facts(ip({ asn: 'AS209854', as_type: 'hosting', network_operator: 'M247' }))).toEqual({
      vpn: false,
      proxy: false,
    });
  });

  it('lists an address range whatever its system, and a system the list does not name is not flagged', () => {
    expect(facts(ip({ address: '185.65.134.9', asn: 'AS39351', as_type: 'isp' }))).toMatchObject({
      vpn: true,
    });
    expect(facts(ip({ asn: 'AS13335', as_type: 'hosting' }))).toEqual({ vpn: false, proxy: false });
  });

  it('vouches for nothing while the routing table that maps addresses to systems is stale', () => {
    const clean = ip({ asn: 'AS3320', as_type: 'isp' });
    expect(ipVpnProxy.finding({ ip: clean }, set)).toEqual({ verdict: 'clean', detail: 'IP_NOT_ANONYMISED' });
    expect(ipVpnProxy.finding({ ip: clean, stale: new Set(['ip_network_type']) }, set)).toEqual({
      verdict: 'no_match',
      detail: 'IP_ANONYMISER_LIST_STALE',
    });
    // A list of addresses only does not depend on the routing table.
    const addressesOnly = buildRangeSet(
      parseRangeFeed(Buffer.from('185.65.134.0/24,vpn\n'), VPN_PROXY_KINDS),
    );
    expect(ipVpnProxy.finding({ ip: clean, stale: new Set(['ip_network_type']) }, addressesOnly)).toEqual({
      verdict: 'clean',
      detail: 'IP_NOT_ANONYMISED',
    });
  });
});
