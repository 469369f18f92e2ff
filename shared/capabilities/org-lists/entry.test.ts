import { describe, expect, it } from 'vitest';
import { ListEntryError, listEntryId, parseListEntry } from './entry.ts';

const now = new Date('2026-12-01T12:00:00Z');
const entry = (kind: string, value: string, more: Record<string, unknown> = {}) =>
  parseListEntry({ kind, value, effect: 'deny', reason: 'chargebacks', ...more }, now);

describe('parseListEntry', () => {
  it.each([
    ['phone', '+447700900123', '+447700900123'],
    ['phone_prefix', '+4477009', '+4477009'],
    ['phone_prefix', '+4', '+4'],
    ['ip', '198.51.100.7', '198.51.100.7'],
    ['ip', '2001:DB8:0:0::1', '2001:db8::1'],
    ['ip', '::ffff:198.51.100.7', '198.51.100.7'],
    ['ip', '::ffff:c633:6407', '198.51.100.7'],
    ['cidr', '198.51.100.0/24', '198.51.100.0/24'],
    ['cidr', '10.0.0.0/8', '10.0.0.0/8'],
    ['cidr', '198.51.100.7/32', '198.51.100.7/32'],
    ['cidr', '2001:0db8:0000::/32', '2001:db8::/32'],
    ['cidr', '2001:db8::1/128', '2001:db8::1/128'],
    ['cidr', '::ffff:198.51.100.0/120', '198.51.100.0/24'],
    ['asn', 'AS64500', 'AS64500'],
    ['asn', 'as64500', 'AS64500'],
    ['asn', '64500', 'AS64500'],
  ])('%s %s is %s', (kind, value, canonical) => {
    expect(entry(kind, value).value).toBe(canonical);
  });

  it.each([
    ['phone', '447700900123', /value: not an E\.164 number/],
    ['phone', '+44 7700 900123', /value: not an E\.164 number/],
    ['phone', '+4477009001234567', /value: not an E\.164 number/],
    ['phone_prefix', '+', /value: not a number prefix/],
    ['phone_prefix', '+044', /value: not a number prefix/],
    ['phone_prefix', '+447700900123456', /value: not a number prefix/],
    ['ip', '198.51.100', /value .*not a dotted-quad/],
    ['ip', '010.1.1.1', /value .*not a dotted-quad/],
    ['ip', 'fe80::1%eth0', /value .*not a dotted-quad/],
    ['ip', '198.51.100.0/24', /without a prefix length/],
    ['ip', '::1.2.3.4', /IPv4-compatible/],
    ['cidr', '198.51.100.1/24', /host bits set: the network is 198\.51\.100\.0\/24/],
    ['cidr', '2001:db8::1/64', /host bits set: the network is 2001:db8::\/64/],
    ['cidr', '198.51.100.0/33', /is not a prefix length/],
    ['cidr', '::/80', /covers the deprecated IPv4-compatible block/],
    ['asn', 'AS0', /value: not an AS number/],
    ['asn', 'AS4294967296', /value: not an AS number/],
    ['asn', 'ASN64500', /value: not an AS number/],
  ])('refuses %s %s', (kind, value, message) => {
    expect(() => entry(kind, value)).toThrow(ListEntryError);
    expect(() => entry(kind, value)).toThrow(message);
  });

  it('names the field that is wrong', () => {
    expect(() => parseListEntry(null, now)).toThrow(/^entry: must be an object/);
    expect(() => entry('email', 'a@b')).toThrow(/^kind: must be one of phone, phone_prefix, ip, cidr, asn/);
    expect(() => entry('ip', '198.51.100.7', { effect: 'block' })).toThrow(
      /^effect: must be one of allow, deny/,
    );
    expect(() => entry('ip', '198.51.100.7', { value: 7 })).toThrow(/^value: required/);
    expect(() => entry('ip', '198.51.100.7', { reason: '  ' })).toThrow(/^reason: required/);
    expect(() => entry('ip', '198.51.100.7', { reason: 'x'.repeat(201) })).toThrow(/^reason: at most 200/);
    expect(() => entry('ip', '198.51.100.7', { reason: 'a\nb' })).toThrow(
      /^reason: must not contain control/,
    );
    expect(() => entry('ip', '198.51.100.7', { reason: 'a\u202eb' })).toThrow(/^reason: must not contain/);
    expect(() => entry('ip', '198.51.100.7', { reason: 'a\ufffeb' })).toThrow(/^reason: must not contain/);
    expect(() => entry('ip', '198.51.100.7', { reason: 'a\ud800' })).toThrow(/^reason: must be well-formed/);
  });

  it('keeps a reason of 200 characters, counted as code points', () => {
    expect(entry('ip', '198.51.100.7', { reason: '€'.repeat(200) }).reason).toHaveLength(200);
    expect(entry('ip', '198.51.100.7', { reason: '😀'.repeat(200) }).reason).toBe('😀'.repeat(200));
  });

  it('takes a future expiry as UTC, and none when absent or empty', () => {
    expect(entry('ip', '198.51.100.7', { expires_at: '2028-02-29T23:59:59.5Z' }).expires_at).toBe(
      '2028-02-29T23:59:59.500Z',
    );
    expect(entry('ip', '198.51.100.7', { expires_at: '2027-01-31T00:00+00:00' }).expires_at).toBe(
      '2027-01-31T00:00:00.000Z',
    );
    expect(entry('ip', '198.51.100.7', { expires_at: '2027-01-31T01:00:00+01:00' }).expires_at).toBe(
      '2027-01-31T00:00:00.000Z',
    );
    expect(entry('ip', '198.51.100.7')).not.toHaveProperty('expires_at');
    expect(entry('ip', '198.51.100.7', { expires_at: '' })).not.toHaveProperty('expires_at');
    expect(entry('ip', '198.51.100.7', { expires_at: null })).not.toHaveProperty('expires_at');
  });

  it.each([
    ['2026-12-01T11:59:59Z', /expires_at: must be in the future/],
    ['2026-12-01T12:00:00Z', /expires_at: must be in the future/],
    ['2020-01-01T00:00:00Z', /expires_at: must be in the future/],
    ['2027-01-31', /expires_at: an ISO 8601 time/],
    ['2027-01-31T00:00:00', /expires_at: an ISO 8601 time/],
    ['2027-02-30T00:00:00Z', /expires_at: an ISO 8601 time/],
    ['tomorrow', /expires_at: an ISO 8601 time/],
    ['2027-01-31T24:00:00Z', /expires_at: an ISO 8601 time/],
    ['2028-02-30T00:00:00Z', /expires_at: an ISO 8601 time/],
    [1_900_000_000_000, /expires_at: an ISO 8601 time/],
  ])('refuses expiry %s', (expires_at, message) => {
    expect(() => entry('ip', '198.51.100.7', { expires_at })).toThrow(message);
  });

  it('returns only the entry fields', () => {
    expect(entry('asn', 'AS64500', { added_by: 'key:x', extra: 1 })).toEqual({
      kind: 'asn',
      value: 'AS64500',
      effect: 'deny',
      reason: 'chargebacks',
    });
  });
});

describe('listEntryId', () => {
  it('is kind and canonical value', () => {
    expect(listEntryId(entry('ip', '::ffff:198.51.100.7'))).toBe('ip:198.51.100.7');
    expect(listEntryId({ kind: 'cidr', value: '2001:db8::/32' })).toBe('cidr:2001:db8::/32');
  });
});
