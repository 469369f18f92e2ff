import { describe, expect, it } from 'vitest';
import { resolveIp } from '../resolution/ip.ts';
import { ipNetworkType } from './ip-network-type/index.ts';
import { ipTorExit } from './ip-tor-exit/index.ts';
import { withoutCorrectedServices } from './flags.ts';
import { ipVpnProxy } from './ip-vpn-proxy/index.ts';
import {
  applyCorrections,
  compileCorrections,
  CorrectionError,
  parseCidrTarget,
  parseCorrection,
  unappliedCorrections,
  type Correction,
} from './corrections.ts';

const at = '2026-11-27T00:00:00.000Z';
const correction = (target: string, flag: Correction['flag'], value: boolean): Correction => ({
  target,
  flag,
  value,
  reason: 'test',
  operator: 'ops',
  at,
});
/** A listed VPN and hosting address on a hosting AS: what lists might say of it. */
const listed = {
  ...resolveIp('198.51.100.7', undefined),
  range: 'unicast',
  bogon: false,
  asn: 'AS64500',
  as_type: 'hosting' as const,
  hosting: true,
  vpn: true,
  services: { ip_vpn_proxy: 'Some VPN', ip_network_type: 'Some Cloud' },
};

describe('parsing a correction', () => {
  it('keeps canonical CIDRs and AS numbers', () => {
    expect(parseCidrTarget('198.51.100.0/24')).toBe('198.51.100.0/24');
    expect(parseCidrTarget('2001:DB8:0:0::/48')).toBe('2001:db8::/48');
    expect(parseCorrection({ asn: 'as64500', kind: 'not_vpn', reason: 'r', operator: 'o' }).target).toBe(
      'AS64500',
    );
  });

  it.each([
    ['0.0.0.0/0', /wider than \/16/],
    ['10.0.0.0/8', /wider than \/16/],
    ['::/0', /wider than \/32/],
    ['198.51.100.1/24', /host bits set: the network is 198.51.100.0\/24/],
    ['198.51.100/24', /not a dotted-quad IPv4 or an IPv6 address/],
    ['010.1.1.0/24', /not a dotted-quad IPv4 or an IPv6 address/],
    ['3232235777/32', /not a dotted-quad IPv4 or an IPv6 address/],
    ['fe80::1%eth0/64', /not a dotted-quad IPv4 or an IPv6 address/],
    ['198.51.100.0', /not address\/prefix-length/],
    ['198.51.100.0/33', /'\/33' is not a prefix length/],
    ['198.51.100.0/016', /'\/016' is not a prefix length/],
    ['198.51.100.0/24/1', /not address\/prefix-length/],
  ])('refuses %s', (cidr, message) => {
    expect(() => parseCidrTarget(cidr)).toThrow(message);
  });

  // Addresses are scored as IPv4 when mapped (resolveIp): a mapped range is stored as IPv4 or it
  // would never match, and is judged on the IPv4 range it covers.
  it.each([
    ['::ffff:52.95.112.0/120', '52.95.112.0/24'],
    ['::FFFF:52.95.112.0/120', '52.95.112.0/24'],
    ['::ffff:345f:7000/120', '52.95.112.0/24'],
    ['0:0:0:0:0:ffff:52.95.112.0/120', '52.95.112.0/24'],
    ['::ffff:52.95.0.0/112', '52.95.0.0/16'],
    ['::ffff:52.95.112.7/128', '52.95.112.7/32'],
  ])('writes the IPv4-mapped %s as the IPv4 range %s', (cidr, ipv4) => {
    expect(parseCidrTarget(cidr)).toBe(ipv4);
  });

  it.each([
    // The width limit holds after mapping: all of IPv4, a /8.
    ['::ffff:0.0.0.0/96', /"::ffff:0.0.0.0\/96": 0.0.0.0\/0 is wider than \/16/],
    ['::ffff:0:0/96', /0.0.0.0\/0 is wider than \/16/],
    ['::ffff:52.0.0.0/104', /52.0.0.0\/8 is wider than \/16/],
    ['::ffff:0:0/64', /beyond the IPv4-mapped block/],
    // Host bits are refused, not masked into the network, mapped or not.
    ['::ffff:52.95.112.7/120', /host bits set: the network is 52.95.112.0\/24/],
    // IPv4-compatible, however spelt (ipaddr.js alone reads `::a.b.c.d` as mapped).
    ['::52.95.112.0/120', /in the deprecated IPv4-compatible block ::\/96.*\(here 52.95.112.0\/24\)/],
    ['0::52.95.112.0/120', /in the deprecated IPv4-compatible block ::\/96.*\(here 52.95.112.0\/24\)/],
    ['0:0:0:0:0:0:52.95.112.0/120', /in the deprecated IPv4-compatible block/],
    ['::345f:7000/120', /in the deprecated IPv4-compatible block.*\(here 52.95.112.0\/24\)/],
    ['::52.95.112.0/90', /covers the deprecated IPv4-compatible block/],
    ['::1/128', /in the deprecated IPv4-compatible block ::\/96 \(RFC 4291\); name the IPv4 range instead$/],
    // NAT64 and IPv4-translated: a translator's stand-ins, refused.
    ['64:ff9b::52.95.112.0/120', /in the NAT64 well-known prefix 64:ff9b::\/96.*\(here 52.95.112.0\/24\)/],
    ['64:ff9b::345f:7000/120', /in the NAT64 well-known prefix/],
    [
      '64:ff9b::/96',
      /in the NAT64 well-known prefix 64:ff9b::\/96 \(RFC 6052\); name the IPv4 range instead$/,
    ],
    ['64:ff9b:1:abcd::/64', /in the local-use NAT64 prefix 64:ff9b:1::\/48/],
    ['::ffff:0:52.95.112.0/120', /in the IPv4-translated block ::ffff:0:0:0\/96/],
    // IPv6 ranges wide enough to hold one of those blocks, and so IPv4 space.
    ['::/80', /covers the deprecated IPv4-compatible block/],
    ['::ffff:0:0:0/80', /covers the IPv4-translated block/],
    ['64:ff9b::/64', /covers the NAT64 well-known prefix/],
    ['64:ff9b::/32', /covers the NAT64 well-known prefix/],
  ])('refuses the IPv6 form of IPv4 space %s', (cidr, message) => {
    expect(() => parseCidrTarget(cidr)).toThrow(message);
  });

  it('takes a stored target as written only when removing it', () => {
    const base = { cidr: '::ffff:345f:7000/120', kind: 'not_vpn', reason: 'r', operator: 'o' };
    expect(parseCorrection(base).target).toBe('52.95.112.0/24');
    expect(parseCorrection(base, new Date(), new Set(['::ffff:345f:7000/120'])).target).toBe(
      '::ffff:345f:7000/120',
    );
    const nat64 = { ...base, cidr: '64:ff9b::345f:7000/120' };
    expect(() => parseCorrection(nat64)).toThrow(/NAT64/);
    expect(parseCorrection(nat64, new Date(), new Set([nat64.cidr])).target).toBe(nat64.cidr);
  });

  it('refuses a bad kind, a bad AS, a missing reason or operator, both targets or none', () => {
    const base = { cidr: '198.51.100.0/24', kind: 'not_vpn', reason: 'r', operator: 'o' };
    expect(() => parseCorrection({ ...base, kind: 'clean' })).toThrow(/must be one of not_hosting/);
    expect(() => parseCorrection({ ...base, cidr: undefined!, asn: 'AS0' })).toThrow(CorrectionError);
    expect(() => parseCorrection({ ...base, reason: '  ' })).toThrow(/--reason is required/);
    expect(() => parseCorrection({ ...base, operator: '' })).toThrow(/--operator is required/);
    expect(() => parseCorrection({ ...base, reason: 'a\u001b[2Jb' })).toThrow(/control characters/);
    expect(() => parseCorrection({ ...base, reason: 'x'.repeat(513) })).toThrow(/at most 512/);
    expect(() => parseCorrection({ ...base, asn: '64500' })).toThrow(/exactly one of --cidr and --asn/);
    const { cidr: _, ...none } = base;
    expect(() => parseCorrection(none)).toThrow(/exactly one of --cidr and --asn/);
  });
});

describe('applying corrections', () => {
  it('clears flags, keeps as_type and hosting agreeing, and the findings say corrected', () => {
    const c = compileCorrections('1', [
      correction('AS64500', 'hosting', false),
      correction('198.51.100.0/24', 'vpn', false),
    ]);
    const ip = withoutCorrectedServices(applyCorrections(listed, c));
    expect(ip).toMatchObject({ hosting: false, vpn: false, corrected: ['hosting', 'vpn'] });
    expect(ip.as_type).toBeUndefined();
    // The services named for the flags corrected away go with them (flags.ts).
    expect(ip.services).toBeUndefined();
    expect(ipVpnProxy.finding({ ip }, undefined)).toEqual({
      verdict: 'clean',
      detail: 'IP_OPERATOR_CORRECTED',
    });
    expect(ipNetworkType.finding({ ip }, undefined)).toEqual({
      verdict: 'clean',
      detail: 'IP_OPERATOR_CORRECTED',
    });
    // Tor was not corrected: its finding is the usual one.
    expect(ipTorExit.finding({ ip }, undefined)).toEqual({ verdict: 'clean', detail: 'IP_NOT_ANONYMISED' });
  });

  it('sets flags, and the narrowest range says last', () => {
    const access = { ...listed, as_type: 'isp' as const, hosting: false, vpn: false, services: {} };
    const c = compileCorrections('1', [
      correction('198.51.100.0/28', 'tor', false),
      correction('198.51.0.0/16', 'tor', true),
      correction('198.51.0.0/16', 'hosting', true),
    ]);
    expect(applyCorrections(access, c)).toMatchObject({ tor: false, hosting: true, as_type: 'hosting' });
    const outside = { ...access, address: '198.51.7.1' };
    const ip = applyCorrections(outside, c);
    expect(ip).toMatchObject({ tor: true, hosting: true });
    expect(ipTorExit.finding({ ip }, undefined)).toEqual({ verdict: 'adverse', detail: 'IP_TOR_EXIT' });
  });

  it('matches IPv6 ranges, and an IPv4 range never an IPv6 address', () => {
    const v6 = { ...listed, address: '2001:db8:1::5', version: 6 as const };
    const c = compileCorrections('1', [
      correction('2001:db8::/32', 'vpn', false),
      correction('0.0.0.0/16', 'hosting', false),
    ]);
    expect(applyCorrections(v6, c)).toMatchObject({ vpn: false, hosting: true, corrected: ['vpn'] });
    expect(applyCorrections({ ...v6, address: '2001:db9::1' }, c).corrected).toBeUndefined();
  });

  it('applies a mapped range stored as IPv6 as its IPv4 range, and never a form now refused', () => {
    const at52 = { ...listed, address: '52.95.112.7' };
    // Stored before mapped ranges were written as IPv4: the node applies it as 52.95.112.0/24.
    const stored = [correction('::ffff:345f:7000/120', 'vpn', false)];
    expect(applyCorrections(at52, compileCorrections('1', stored))).toMatchObject({
      vpn: false,
      corrected: ['vpn'],
    });
    // A newer correction of the same range and flag, written as IPv4, says last whatever the order.
    const newer = { ...correction('52.95.112.0/24', 'vpn', true), at: '2026-11-28T00:00:00.000Z' };
    for (const list of [
      [...stored, newer],
      [newer, ...stored],
    ])
      expect(applyCorrections(at52, compileCorrections('2', list)).vpn).toBe(true);
    // All of IPv4 and a NAT64 range, stored before they were refused: never applied, and listed.
    const refused = [
      correction('::ffff:0:0/96', 'tor', true),
      correction('64:ff9b::345f:7000/120', 'hosting', false),
      correction('::345f:7000/120', 'hosting', false),
    ];
    expect(applyCorrections(at52, compileCorrections('3', refused))).toEqual(at52);
    expect(
      applyCorrections(
        { ...listed, address: '64:ff9b::345f:7007', version: 6 },
        compileCorrections('3', refused),
      ).corrected,
    ).toBeUndefined();
    expect(unappliedCorrections([...refused, ...stored]).map((u) => [u.target, u.why])).toEqual([
      ['::ffff:0:0/96', expect.stringMatching(/0.0.0.0\/0 is wider than \/16/)],
      ['64:ff9b::345f:7000/120', expect.stringMatching(/NAT64 well-known prefix/)],
      ['::345f:7000/120', expect.stringMatching(/IPv4-compatible/)],
    ]);
  });

  it('leaves other addresses, special-purpose space and an empty set alone', () => {
    const c = compileCorrections('1', [correction('198.51.100.0/24', 'vpn', false)]);
    const other = { ...listed, address: '203.0.113.9' };
    expect(applyCorrections(other, c)).toBe(other);
    const privateSpace = resolveIp('10.0.0.1', undefined);
    expect(
      applyCorrections(privateSpace, compileCorrections('1', [correction('AS64500', 'vpn', true)])),
    ).toBe(privateSpace);
    expect(applyCorrections(listed, compileCorrections('2', []))).toBe(listed);
    expect(applyCorrections(listed, undefined)).toBe(listed);
  });
});
