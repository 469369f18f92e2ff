import { describe, expect, it } from 'vitest';
import { signinAddress } from './signin-limit.ts';

describe('signinAddress: what one client address counts as', () => {
  it('an IPv4 address as it is, an IPv4-mapped one as IPv4', () => {
    expect(signinAddress('192.0.2.7')).toBe('192.0.2.7');
    expect(signinAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  it('every address of one IPv6 /64 as that /64, however it is written', () => {
    expect(signinAddress('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(signinAddress('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(signinAddress('2001:db8:1:3::1')).not.toBe(signinAddress('2001:db8:1:2::1'));
  });

  it('something that is no address stays itself (its own counter)', () => {
    expect(signinAddress('unknown')).toBe('unknown');
  });
});
