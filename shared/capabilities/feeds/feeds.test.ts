import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { ndcLevel, parseNdcFeed } from './ndc-feed.ts';
import { parseRangeFeed } from './range-feed.ts';
import { parseReputationFeed } from './reputation-feed.ts';
import { canonicalSubject } from '../subject-key.ts';

const buf = (s: string) => Buffer.from(s);

describe('range feeds', () => {
  it('reads addresses and CIDRs, skipping comments and blank lines; v4-mapped IPv6 is IPv4', () => {
    const entries = parseRangeFeed(
      buf('# exits\n\n1.2.3.4\n10.0.0.0/8 # Example Cloud, Inc.\n::ffff:5.6.7.8\n2001:db8::/32\n'),
    );
    expect(entries).toEqual([
      { version: 4, start: 0x01020304n, end: 0x01020304n, kind: 1 },
      { version: 4, start: 0x0a000000n, end: 0x0affffffn, kind: 1, service: 'Example Cloud, Inc.' },
      { version: 4, start: 0x05060708n, end: 0x05060708n, kind: 1 },
      { version: 6, start: 0x20010db8n << 96n, end: (0x20010db8n << 96n) | ((1n << 96n) - 1n), kind: 1 },
    ]);
  });

  it('refuses a CIDR with host bits set rather than widening it to its network', () => {
    expect(() => parseRangeFeed(buf('10.1.2.3/16\n'))).toThrow(
      "line 1: not an IP address or CIDR: '10.1.2.3/16' has host bits set: the network is 10.1.0.0/16",
    );
  });

  it('names the line of a malformed entry', () => {
    expect(() => parseRangeFeed(buf('1.2.3.4\n300.1.2.3\n'))).toThrow('line 2: not an IP address or CIDR');
    expect(() => parseRangeFeed(buf('1.2.3.4/33\n'))).toThrow('line 1');
    expect(() => parseRangeFeed(buf('1.2.3.4,vpn\n'))).toThrow('line 1: unexpected second column');
  });

  it('requires a known kind when the feed has kinds', () => {
    const kinds = ['vpn', 'proxy'];
    expect(parseRangeFeed(buf('1.2.3.0/24,proxy\n'), kinds)[0]!.kind).toBe(2);
    expect(() => parseRangeFeed(buf('1.2.3.0/24\n'), kinds)).toThrow(
      'line 1: kind must be one of vpn, proxy',
    );
    expect(() => parseRangeFeed(buf('1.2.3.0/24,tor\n'), kinds)).toThrow('line 1');
  });
});

describe('numbering-range risk feed', () => {
  it('takes the longest listed prefix', () => {
    const risk = parseNdcFeed(buf('+4470,elevated\n+44700,ordinary\n'));
    expect(ndcLevel(risk, '+447012345678')).toBe('elevated');
    expect(ndcLevel(risk, '+447001234567')).toBe('ordinary');
    expect(ndcLevel(risk, '+447911123456')).toBeUndefined();
  });

  it('refuses bad prefixes, levels and duplicates', () => {
    expect(() => parseNdcFeed(buf('4470,elevated\n'))).toThrow('line 1: prefix');
    expect(() => parseNdcFeed(buf('+4470,high\n'))).toThrow('line 1');
    expect(() => parseNdcFeed(buf('+4470,elevated\n+4470,ordinary\n'))).toThrow(
      'line 2: prefix +4470 is listed twice',
    );
  });
});

describe('reputation feed', () => {
  it('keys subjects by their canonical form, adding up repeated subjects; IP forms collapse', () => {
    const reports = parseReputationFeed(
      buf('+447700900123,2\n::ffff:192.0.2.1,1\n+447700900123,3\n192.0.2.1,4\n'),
    );
    expect(reports.size).toBe(2);
    expect(reports.get('phone:+447700900123')).toBe(5);
    expect(reports.get('ip:192.0.2.1')).toBe(5);
  });

  it('refuses subjects that are neither numbers nor addresses, and non-positive counts', () => {
    expect(() => parseReputationFeed(buf('alice,2\n'))).toThrow('line 1: subject');
    expect(() => parseReputationFeed(buf('+447700900123,0\n'))).toThrow('line 1');
    expect(() => parseReputationFeed(buf('+447700900123,2,x\n'))).toThrow('line 1');
  });

  it('canonical subjects match what the API looks up', () => {
    expect(canonicalSubject('ip', '::ffff:192.0.2.1')).toBe('ip:192.0.2.1');
    expect(canonicalSubject('phone', '+447700900123')).toBe('phone:+447700900123');
    expect(canonicalSubject('phone', '447700900123')).toBeUndefined();
  });

  it('names an IPv4 address as ipaddr.js parses and prints it, on the fast path and off it', () => {
    const viaIpaddr = (v: string) => (ipaddr.isValid(v) ? `ip:${ipaddr.process(v).toString()}` : undefined);
    const cases = [
      '0.0.0.0',
      '255.255.255.255',
      '192.0.2.1',
      '10.20.30.40',
      '01.2.3.4', // octal to ipaddr.js: 1.2.3.4
      '1.2.3.010',
      '256.1.1.1',
      '1.2.3',
      '1.2.3.4.5',
      '1.2.3.4 ',
      '0x7f.0.0.1',
      '::ffff:10.0.0.1',
    ];
    for (let i = 0; i < 2000; i++)
      cases.push([0, 0, 0, 0].map(() => Math.floor(Math.random() * 256)).join('.'));
    for (const v of cases) expect(canonicalSubject('ip', v), v).toBe(viaIpaddr(v));
  });
});
