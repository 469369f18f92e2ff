import { describe, expect, it } from 'vitest';
import { loadResolutionData } from '../resolution/resolution-data.ts';
import { gatherEvidence } from '../scoring/evidence.ts';
import { decodeSections, encodeSections } from '../resolution/codec.ts';
import { capabilityStatus } from './condition.ts';
import { FeedError } from './feeds/feed-error.ts';
import { kindAt } from '../resolution/range-set.ts';
import { CAPABILITY_BY_NAME, isStale, withOverrides } from './registry.ts';
import { buildSnapshot, decodeSnapshot } from './snapshots.ts';

const file = (s: string) => new Map([['', Buffer.from(s)]]);

describe('snapshot encode and decode', () => {
  it('round-trips a range set, nested ranges resolved to the more specific', () => {
    const built = buildSnapshot('ip_vpn_proxy', {
      vpnProxy: file('10.0.0.0/12,vpn\n10.1.0.0/16,proxy\n2001:db8::/32,vpn\n'),
    });
    expect(built.entries).toBe(3);
    const set = decodeSnapshot('ip_vpn_proxy', built.payload);
    expect(kindAt(set, { v4: 0x0a000001 })).toBe(1);
    expect(kindAt(set, { v4: 0x0a010001 })).toBe(2);
    expect(kindAt(set, { v4: 0x0a020001 })).toBe(1);
    expect(kindAt(set, { v4: 0x0b000000 })).toBe(0);
    expect(kindAt(set, { hi: 0x20010db8n << 32n, lo: 5n })).toBe(1);
  });

  it('a decoded Tor list marks exactly the listed address, over the network tables', () => {
    const data = loadResolutionData();
    const { payload } = buildSnapshot('ip_tor_exit', { torExits: file('81.2.69.142\n') });
    const tor = decodeSnapshot('ip_tor_exit', payload);
    const sources = { networks: data.networks, data: { ip_tor_exit: tor } };
    expect(gatherEvidence({ ip_address: '81.2.69.142' }, sources).ip).toMatchObject({
      tor: true,
      bogon: false,
    });
    expect(gatherEvidence({ ip_address: '81.2.69.143' }, sources).ip).toMatchObject({ tor: false });
  });

  it('round-trips the numbering-range map', () => {
    const { payload } = buildSnapshot('ndc_range_risk', {
      ndcRisk: file('+4470,elevated\n+1800,ordinary\n'),
    });
    expect([...decodeSnapshot('ndc_range_risk', payload)]).toEqual([
      ['+4470', 'elevated'],
      ['+1800', 'ordinary'],
    ]);
  });

  it('refuses an empty feed and names the feed of a bad line', () => {
    expect(() => buildSnapshot('ip_tor_exit', { torExits: file('# nothing\n') })).toThrow(
      new FeedError('torExits: no entries'),
    );
    expect(() => buildSnapshot('ip_tor_exit', { torExits: file('x\n') })).toThrow('torExits: line 1');
  });

  it('refuses a payload of another kind or a truncated one', () => {
    expect(() => decodeSnapshot('ip_tor_exit', Buffer.from('not a snapshot'))).toThrow('not format');
    const { payload } = buildSnapshot('ip_tor_exit', { torExits: file('1.2.3.4\n') });
    expect(() => decodeSnapshot('ip_tor_exit', payload.subarray(0, payload.length - 8))).toThrow();
    expect(decodeSections(0x43534652, payload.subarray(0, 12))).toBeUndefined();
  });

  it('copies arrays out of an unaligned buffer', () => {
    const encoded = encodeSections(1, { a: 1 }, { x: new BigUint64Array([1n, 2n]) });
    const shifted = Buffer.concat([Buffer.alloc(3), encoded]).subarray(3);
    const decoded = decodeSections(1, shifted)!;
    expect([...(decoded.arrays.get('x') as BigUint64Array)]).toEqual([1n, 2n]);
    expect(decoded.header.a).toBe(1);
  });
});

describe('staleness and status', () => {
  const tor = CAPABILITY_BY_NAME.get('ip_tor_exit')!;
  const ndc = CAPABILITY_BY_NAME.get('ndc_range_risk')!;
  const now = 1_000_000_000;

  it('is stale only past the freshness limit', () => {
    expect(isStale(now - 10_000, 10, now)).toBe(false);
    expect(isStale(now - 10_001, 10, now)).toBe(true);
  });

  it('ok when fresh, degraded when stale or never confirmed, and missing per the registry', () => {
    const fresh = withOverrides(tor, {}, { ip_tor_exit: 60 });
    expect(capabilityStatus(fresh, { present: true, refreshedAtMs: now - 59_000 }, now)).toBe('ok');
    expect(capabilityStatus(fresh, { present: true, refreshedAtMs: now - 61_000 }, now)).toBe('degraded');
    expect(capabilityStatus(fresh, { present: true }, now)).toBe('degraded');
    expect(capabilityStatus(tor, { present: false }, now)).toBe('unavailable');
    expect(capabilityStatus(ndc, { present: false }, now)).toBe('degraded');
  });
});
