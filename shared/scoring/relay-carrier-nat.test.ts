/**
 * Relays and carrier NAT are named, not flagged: an iCloud Private Relay egress and an address
 * on a mobile operator's network earn no anonymiser or data-centre points, and a benign
 * exclusion says what they are.
 */
import { describe, expect, it } from 'vitest';
import { parseRangeFeed } from '../capabilities/feeds/range-feed.ts';
import { VPN_PROXY_KINDS } from '../capabilities/ip-vpn-proxy/index.ts';
import { buildRangeSet } from '../resolution/range-set.ts';
import type { IpFacts } from '../resolution/ip.ts';
import { gatherEvidence } from './evidence.ts';
import { score } from './engine.ts';
import { BENIGN_EXCLUSIONS } from '../vocabulary/benign-exclusions.ts';
import { identityVersion } from './fixtures.ts';

const version = identityVersion();

// A format sample of the VPN/proxy feed: a relay range (from Apple's egress list) beside a VPN.
const lists = {
  ip_vpn_proxy: buildRangeSet(
    parseRangeFeed(
      Buffer.from(
        '# as-of: 2026-11-27T00:00:00Z\n104.28.28.0/26,relay # iCloud Private Relay\n185.65.134.0/24,vpn # Mullvad VPN\n',
      ),
      VPN_PROXY_KINDS,
    ),
  ),
};

/** Resolved as a node with only the VPN/proxy list loaded resolves it. */
const resolveIp = (address: string) => gatherEvidence({ ip_address: address }, { data: lists }).ip!;

const ipComponents = (ip: IpFacts) =>
  score({ evidence: { ip }, version }).components!.filter((c) => c.component.startsWith('ip_'));

describe('relays and carrier NAT', () => {
  it('resolves a relay egress as a named relay, not a VPN', () => {
    const facts = resolveIp('104.28.28.10');
    expect(facts).toMatchObject({ vpn: false, proxy: false, relay: true });
    expect(facts.services?.ip_vpn_proxy).toBe('iCloud Private Relay');
    expect(resolveIp('185.65.134.10').vpn).toBe(true);
  });

  it('a relay egress on a CDN network earns no points and is a benign exclusion', () => {
    const ip = {
      ...resolveIp('104.28.28.10'),
      hosting: true,
      as_type: 'hosting' as const,
      country_code: 'GB',
    };
    const out = score({ evidence: { ip }, version });
    for (const c of ipComponents(ip)) expect(c.contribution, c.component).toBe(0);
    expect(out.components!.find((c) => c.component === 'ip_vpn_proxy')?.detail).toBe('IP_PRIVACY_RELAY');
    expect(out.components!.find((c) => c.component === 'ip_network_type')?.detail).toBe('IP_PRIVACY_RELAY');
    expect(out.benign_exclusions).toContain('IP_PRIVACY_RELAY');
    expect(out.benign_exclusions).not.toContain('IP_NOT_ANONYMISED');
  });

  it("an address on a mobile operator's network is carrier NAT: named, no points", () => {
    const ip: IpFacts = {
      address: '2.24.0.1',
      version: 4,
      bogon: false,
      range: 'unicast',
      as_type: 'mobile',
      hosting: false,
      vpn: false,
      proxy: false,
      tor: false,
    };
    const out = score({ evidence: { ip }, version });
    for (const c of ipComponents(ip)) expect(c.contribution, c.component).toBeLessThanOrEqual(0);
    expect(out.benign_exclusions).toEqual(expect.arrayContaining(['IP_CARRIER_NAT', 'IP_NOT_ANONYMISED']));
    // A listed VPN on a mobile network is not excused.
    expect(score({ evidence: { ip: { ...ip, vpn: true } }, version }).benign_exclusions).not.toContain(
      'IP_CARRIER_NAT',
    );
  });

  it('the registry documents both codes', () => {
    expect(Object.keys(BENIGN_EXCLUSIONS)).toEqual(
      expect.arrayContaining(['IP_PRIVACY_RELAY', 'IP_CARRIER_NAT']),
    );
  });
});
