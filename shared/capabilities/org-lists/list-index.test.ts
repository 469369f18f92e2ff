import { describe, expect, it } from 'vitest';
import { buildListIndex } from './list-index.ts';
import type { ListEffect, ListEntry, ListEntryKind } from './types.ts';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const HOUR = 3_600_000;
const entry = (kind: ListEntryKind, value: string, effect: ListEffect, expiresMs?: number): ListEntry => ({
  kind,
  value,
  effect,
  reason: 'test',
  ...(expiresMs === undefined ? {} : { expires_at: new Date(expiresMs).toISOString() }),
  added_by: 'key:k_test',
  added_at: '2026-11-30T00:00:00.000Z',
});
const index = (...entries: ListEntry[]) => buildListIndex(entries);

describe('buildListIndex: each kind', () => {
  it.each([
    ['phone', '+447700900123', { e164: '+447700900123' }, { e164: '+447700900124' }],
    ['phone_prefix', '+4477009', { e164: '+447700900123' }, { e164: '+447700800123' }],
    ['ip', '198.51.100.7', { ip: '198.51.100.7' }, { ip: '198.51.100.8' }],
    ['ip', '2001:db8::7', { ip: '2001:db8:0:0:0:0:0:7' }, { ip: '2001:db8::8' }],
    ['cidr', '198.51.100.0/24', { ip: '198.51.100.200' }, { ip: '198.51.101.1' }],
    ['cidr', '198.51.100.128/25', { ip: '198.51.100.255' }, { ip: '198.51.100.127' }],
    ['cidr', '0.0.0.0/0', { ip: '203.0.113.9' }, { ip: '2001:db8::1' }],
    ['cidr', '198.51.100.7/32', { ip: '198.51.100.7' }, { ip: '198.51.100.6' }],
    ['cidr', '2001:db8::/32', { ip: '2001:db8:ffff::1' }, { ip: '2001:db9::1' }],
    ['cidr', '2001:db8:8000::/33', { ip: '2001:db8:8000::1' }, { ip: '2001:db8:7fff::1' }],
    ['cidr', '2001:db8::7/128', { ip: '2001:db8::7' }, { ip: '2001:db8::6' }],
    ['cidr', '::/0', { ip: '2001:db8::1' }, { ip: '198.51.100.7' }],
    ['asn', 'AS64500', { ip: '198.51.100.7', asn: 64500 }, { ip: '198.51.100.7', asn: 64501 }],
  ] as const)('%s %s: matches its own, not a neighbour', (kind, value, hit, miss) => {
    for (const effect of ['allow', 'deny'] as const) {
      const lists = index(entry(kind, value, effect));
      expect(lists.match(hit, NOW)).toEqual({ effect, kind });
      expect(lists.match(miss, NOW)).toBeUndefined();
    }
  });

  it('matches an AS without an address', () => {
    expect(index(entry('asn', 'AS64500', 'deny')).match({ asn: 64500 }, NOW)).toEqual({
      effect: 'deny',
      kind: 'asn',
    });
  });

  it('reads an IPv4-mapped IPv6 address as its IPv4, against address and CIDR entries', () => {
    const byAddress = index(entry('ip', '198.51.100.7', 'deny'));
    expect(byAddress.match({ ip: '::ffff:198.51.100.7' }, NOW)).toEqual({ effect: 'deny', kind: 'ip' });
    expect(byAddress.match({ ip: '::ffff:c633:6407' }, NOW)).toEqual({ effect: 'deny', kind: 'ip' });
    const byRange = index(entry('cidr', '198.51.100.0/24', 'allow'));
    expect(byRange.match({ ip: '::ffff:198.51.100.9' }, NOW)).toEqual({ effect: 'allow', kind: 'cidr' });
  });

  it('matches nothing for a subject without a number, an address or an AS, or an empty list', () => {
    expect(index(entry('cidr', '0.0.0.0/0', 'deny')).match({}, NOW)).toBeUndefined();
    expect(index().match({ e164: '+447700900123', ip: '198.51.100.7', asn: 64500 }, NOW)).toBeUndefined();
  });
});

describe('buildListIndex: the most specific entry wins', () => {
  const network = index(
    entry('asn', 'AS64500', 'deny'),
    entry('cidr', '198.51.0.0/16', 'allow'),
    entry('cidr', '198.51.100.0/24', 'deny'),
    entry('cidr', '198.51.100.0/28', 'allow'),
    entry('ip', '198.51.100.7', 'deny'),
    entry('cidr', '198.51.100.9/32', 'deny'),
  );

  it.each([
    ['198.51.100.7', { effect: 'deny', kind: 'ip' }, 'address over CIDR and AS'],
    ['198.51.100.8', { effect: 'allow', kind: 'cidr' }, 'the /28 over the /24 and /16'],
    ['198.51.100.9', { effect: 'deny', kind: 'cidr' }, 'the /32 over the /28'],
    ['198.51.100.99', { effect: 'deny', kind: 'cidr' }, 'the /24 over the /16'],
    ['198.51.7.7', { effect: 'allow', kind: 'cidr' }, 'the /16 over the AS'],
    ['203.0.113.1', { effect: 'deny', kind: 'asn' }, 'the AS when no range holds the address'],
  ])('%s: %o (%s)', (ip, expected) => {
    expect(network.match({ ip, asn: 64500 }, NOW)).toEqual(expected);
  });

  it('takes an address entry over a /32 CIDR of the same address', () => {
    const lists = index(entry('cidr', '198.51.100.7/32', 'deny'), entry('ip', '198.51.100.7', 'allow'));
    expect(lists.match({ ip: '198.51.100.7' }, NOW)).toEqual({ effect: 'allow', kind: 'ip' });
  });

  it('orders IPv6 CIDRs by length, at any bit', () => {
    const lists = index(
      entry('cidr', '2001:db8::/32', 'deny'),
      entry('cidr', '2001:db8:8000::/33', 'allow'),
      entry('cidr', '2001:db8:8000::/47', 'deny'),
      entry('ip', '2001:db8:8000::1', 'allow'),
    );
    expect(lists.match({ ip: '2001:db8:8000::1' }, NOW)).toEqual({ effect: 'allow', kind: 'ip' });
    expect(lists.match({ ip: '2001:db8:8000::2' }, NOW)).toEqual({ effect: 'deny', kind: 'cidr' });
    expect(lists.match({ ip: '2001:db8:8002::2' }, NOW)).toEqual({ effect: 'allow', kind: 'cidr' });
    expect(lists.match({ ip: '2001:db8:7fff::2' }, NOW)).toEqual({ effect: 'deny', kind: 'cidr' });
  });

  it('takes the full number over a prefix, and a longer prefix over a shorter', () => {
    const lists = index(
      entry('phone_prefix', '+44', 'deny'),
      entry('phone_prefix', '+447700', 'allow'),
      entry('phone_prefix', '+4477009', 'deny'),
      entry('phone', '+447700900123', 'allow'),
    );
    expect(lists.match({ e164: '+447700900123' }, NOW)).toEqual({ effect: 'allow', kind: 'phone' });
    expect(lists.match({ e164: '+447700900124' }, NOW)).toEqual({ effect: 'deny', kind: 'phone_prefix' });
    expect(lists.match({ e164: '+447700100000' }, NOW)).toEqual({ effect: 'allow', kind: 'phone_prefix' });
    expect(lists.match({ e164: '+442079460000' }, NOW)).toEqual({ effect: 'deny', kind: 'phone_prefix' });
    expect(lists.match({ e164: '+15555550100' }, NOW)).toBeUndefined();
  });

  it('with a number and an address on opposite lists, deny wins; on the same, the number says', () => {
    const lists = index(entry('phone', '+447700900123', 'allow'), entry('ip', '198.51.100.7', 'deny'));
    expect(lists.match({ e164: '+447700900123', ip: '198.51.100.7' }, NOW)).toEqual({
      effect: 'deny',
      kind: 'ip',
    });
    const reversed = index(entry('phone', '+447700900123', 'deny'), entry('ip', '198.51.100.7', 'allow'));
    expect(reversed.match({ e164: '+447700900123', ip: '198.51.100.7' }, NOW)).toEqual({
      effect: 'deny',
      kind: 'phone',
    });
    const both = index(entry('phone', '+447700900123', 'allow'), entry('asn', 'AS64500', 'allow'));
    expect(both.match({ e164: '+447700900123', asn: 64500 }, NOW)).toEqual({
      effect: 'allow',
      kind: 'phone',
    });
  });
});

describe('buildListIndex: numbers as keys', () => {
  it('does not put a number shorter than a prefix under it, though its digits start the same', () => {
    const lists = index(entry('phone_prefix', '+4477000', 'deny'));
    expect(lists.match({ e164: '+447700' }, NOW)).toBeUndefined();
    expect(lists.match({ e164: '+4477000' }, NOW)).toEqual({ effect: 'deny', kind: 'phone_prefix' });
    expect(lists.match({ e164: '+447700099999999' }, NOW)).toEqual({ effect: 'deny', kind: 'phone_prefix' });
    expect(lists.match({ e164: '+447700100000000' }, NOW)).toBeUndefined();
  });

  it('keeps fifteen-digit numbers exact, and reads nothing longer or not digits', () => {
    const lists = index(entry('phone', '+999999999999999', 'deny'), entry('phone_prefix', '+9', 'allow'));
    expect(lists.match({ e164: '+999999999999999' }, NOW)).toEqual({ effect: 'deny', kind: 'phone' });
    expect(lists.match({ e164: '+999999999999998' }, NOW)).toEqual({ effect: 'allow', kind: 'phone_prefix' });
    expect(lists.match({ e164: '+9999999999999999' }, NOW)).toBeUndefined();
    expect(lists.match({ e164: '+99x' }, NOW)).toBeUndefined();
  });

  it('tells IPv6 addresses apart in every part of their key', () => {
    const lists = index(
      entry('ip', '2001:db8::1', 'deny'),
      entry('ip', '2001:db8::1:0:0:1', 'allow'),
      entry('cidr', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:fff0/124', 'deny'),
    );
    expect(lists.match({ ip: '2001:db8::1' }, NOW)).toEqual({ effect: 'deny', kind: 'ip' });
    expect(lists.match({ ip: '2001:db8::1:0:0:1' }, NOW)).toEqual({ effect: 'allow', kind: 'ip' });
    expect(lists.match({ ip: '2001:db8:0:1::1' }, NOW)).toBeUndefined();
    expect(lists.match({ ip: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' }, NOW)).toEqual({
      effect: 'deny',
      kind: 'cidr',
    });
    expect(lists.match({ ip: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffef' }, NOW)).toBeUndefined();
  });
});

describe('buildListIndex: expiry', () => {
  it('passes over an expired entry to the next most specific live one', () => {
    const lists = index(
      entry('asn', 'AS64500', 'deny'),
      entry('cidr', '198.51.100.0/24', 'allow', NOW + HOUR),
      entry('ip', '198.51.100.7', 'deny', NOW - 1),
      entry('phone_prefix', '+4477', 'deny'),
      entry('phone', '+447700900123', 'allow', NOW),
    );
    expect(lists.match({ ip: '198.51.100.7', asn: 64500 }, NOW)).toEqual({ effect: 'allow', kind: 'cidr' });
    expect(lists.match({ ip: '198.51.100.7', asn: 64500 }, NOW + HOUR)).toEqual({
      effect: 'deny',
      kind: 'asn',
    });
    expect(lists.match({ ip: '198.51.100.7', asn: 64500 }, NOW - 2)).toEqual({ effect: 'deny', kind: 'ip' });
    // Past its expiry at the very millisecond.
    expect(lists.match({ e164: '+447700900123' }, NOW)).toEqual({ effect: 'deny', kind: 'phone_prefix' });
    expect(lists.match({ e164: '+447700900123' }, NOW - 1)).toEqual({ effect: 'allow', kind: 'phone' });
  });

  it('matches nothing when every entry that would has expired', () => {
    const lists = index(entry('cidr', '2001:db8::/32', 'deny', NOW - HOUR));
    expect(lists.match({ ip: '2001:db8::1' }, NOW)).toBeUndefined();
  });
});
