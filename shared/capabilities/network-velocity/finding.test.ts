import { describe, expect, it } from 'vitest';
import { decodeSections } from '../../resolution/codec.ts';
import type { IpFacts } from '../../resolution/ip.ts';
import { MAGIC } from '../snapshot-format.ts';
import { SubjectKeys } from '../subject-key.ts';
import { countsOf } from './counter.ts';
import { velocityFinding } from './finding.ts';
import { networkOf, velocitySubjects } from './subjects.ts';
import { decodeVelocityTable, encodeVelocityTable, type VelocityCounts } from './table.ts';

const keys = new SubjectKeys('a-test-secret-of-at-least-32-characters!');
const NOW = Date.UTC(2026, 11, 10, 12, 0, 0);

const ip = (address: string, extra: Partial<IpFacts> = {}): IpFacts => ({
  address,
  version: address.includes(':') ? 6 : 4,
  bogon: false,
  range: 'unicast',
  asn: 'AS3320',
  as_type: 'isp',
  hosting: false,
  vpn: false,
  proxy: false,
  tor: false,
  ...extra,
});
const phone = (e164: string) => ({ e164, valid: true, possible: true, trunkZero: false, allocated: true });

function table(rows: { canonical: string; orgs: [number, number, number] }[], countedAtMs = NOW) {
  const counts: VelocityCounts[] = rows.map((r) => ({
    digest: keys.key(r.canonical),
    organisations: r.orgs,
    scores: r.orgs,
    firstSeenS: 1,
  }));
  const t = decodeVelocityTable(decodeSections(MAGIC, encodeVelocityTable(counts, countedAtMs))!, 'test');
  t.naming = keys;
  return t;
}

describe('network velocity finding', () => {
  it('names the shortest window past three organisations, in its bucket', () => {
    const t = table([{ canonical: 'phone:+447700900123', orgs: [5, 6, 6] }]);
    expect(velocityFinding({ phone: phone('+447700900123') }, t, NOW)).toEqual({
      verdict: 'elevated',
      detail: 'NETWORK_VELOCITY_1H_5_24',
    });
    const month = table([{ canonical: 'phone:+447700900123', orgs: [1, 2, 30] }]);
    expect(velocityFinding({ phone: phone('+447700900123') }, month, NOW)?.detail).toBe(
      'NETWORK_VELOCITY_30D_25_PLUS',
    );
  });

  it('shows nothing below three organisations, and keeps no row for such a subject', () => {
    const t = table([
      { canonical: 'phone:+447700900123', orgs: [2, 2, 2] },
      { canonical: 'ip:81.2.69.142', orgs: [3, 3, 3] },
    ]);
    expect(t.keys.length).toBe(1);
    expect(velocityFinding({ phone: phone('+447700900123') }, t, NOW)).toBeUndefined();
  });

  it("gives a mobile operator's address or a relay no points, and says why", () => {
    const t = table([{ canonical: 'ip:81.2.69.142', orgs: [25, 25, 25] }]);
    expect(velocityFinding({ ip: ip('81.2.69.142', { as_type: 'mobile' }) }, t, NOW)).toEqual({
      verdict: 'clean',
      detail: 'NETWORK_VELOCITY_SHARED_NETWORK',
    });
    expect(velocityFinding({ ip: ip('81.2.69.142', { relay: true }) }, t, NOW)?.verdict).toBe('clean');
    expect(velocityFinding({ ip: ip('81.2.69.142') }, t, NOW)?.detail).toBe('NETWORK_VELOCITY_1H_25_PLUS');
  });

  it("reads a network's count one bucket lower, and only when the address says nothing", () => {
    const t = table([{ canonical: 'net:81.2.69.0/24', orgs: [6, 6, 6] }]);
    expect(velocityFinding({ ip: ip('81.2.69.7') }, t, NOW)?.detail).toBe('NETWORK_VELOCITY_1H_2_4');
    const small = table([{ canonical: 'net:81.2.69.0/24', orgs: [4, 4, 4] }]);
    expect(velocityFinding({ ip: ip('81.2.69.7') }, small, NOW)).toBeUndefined();
  });

  it('stops reading a window whose counts are older than a quarter of it', () => {
    const t = table([{ canonical: 'phone:+447700900123', orgs: [5, 5, 5] }], NOW - 20 * 60_000);
    expect(velocityFinding({ phone: phone('+447700900123') }, t, NOW)?.detail).toBe(
      'NETWORK_VELOCITY_24H_5_24',
    );
  });

  it('finds nothing without the naming secret', () => {
    const t = table([{ canonical: 'phone:+447700900123', orgs: [5, 5, 5] }]);
    delete t.naming;
    expect(velocityFinding({ phone: phone('+447700900123') }, t, NOW)).toBeUndefined();
  });
});

describe('velocity subjects and counts', () => {
  it('counts the number, the address and its /24 or /64, never special-purpose space', () => {
    expect(velocitySubjects({ phone_number: '+447700900123', ip_address: '81.2.69.142' })).toEqual([
      { kind: 'phone', canonical: 'phone:+447700900123' },
      { kind: 'ip', canonical: 'ip:81.2.69.142' },
      { kind: 'net', canonical: 'net:81.2.69.0/24' },
    ]);
    expect(networkOf('2a02:c7f:1234:5678:9abc::1')).toBe('net:2a02:c7f:1234:5678::/64');
    expect(velocitySubjects({ ip_address: '100.64.1.2' })).toEqual([]);
    expect(velocitySubjects({ ip_address: '10.1.2.3' })).toEqual([]);
  });

  it('counts organisations by their latest score and scores by bucket, per window', () => {
    const h = (ms: number) => String(Math.floor(ms / 3_600_000));
    const fields = {
      f: '100',
      'o:aaaaaaaaaaaa': String(NOW - 10 * 60_000),
      'o:bbbbbbbbbbbb': String(NOW - 3 * 3_600_000),
      'o:cccccccccccc': String(NOW - 10 * 86_400_000),
      [`m:${Math.floor((NOW - 10 * 60_000) / 600_000)}`]: '2',
      [`h:${h(NOW - 10 * 60_000)}`]: '2',
      [`h:${h(NOW - 3 * 3_600_000)}`]: '1',
      [`d:${Math.floor((NOW - 10 * 86_400_000) / 86_400_000)}`]: '4',
      [`d:${Math.floor(NOW / 86_400_000)}`]: '3',
    };
    expect(countsOf('d', fields, NOW)).toEqual({
      digest: 'd',
      organisations: [1, 2, 3],
      scores: [2, 3, 7],
      firstSeenS: 100,
    });
  });
});
