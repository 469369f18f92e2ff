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
    ['198.51.100.1/24', /host bits set; the network is 198.51.100.0\/24/],
    ['198.51.100/24', /not an IPv4 or IPv6 address/],
    ['010.1.1.0/24', /not an IPv4 or IPv6 address/],
    ['3232235777/32', /not an IPv4 or IPv6 address/],
    ['198.51.100.0', /not address\/prefix-length/],
    ['198.51.100.0/33', /prefix length above 32/],
    ['198.51.100.0/24/1', /not address\/prefix-length/],
  ])('refuses %s', (cidr, message) => {
    expect(() => parseCidrTarget(cidr)).toThrow(message);
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
