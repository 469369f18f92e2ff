import express from 'express';
import { describe, expect, it } from 'vitest';
import { loadPortalConfig } from './config.ts';

const trust = (v: string | undefined) => loadPortalConfig({ PORTAL_TRUST_PROXY: v }).PORTAL_TRUST_PROXY;

describe('PORTAL_TRUST_PROXY', () => {
  it('is off unless set, and reads hop counts, addresses, ranges and range names', () => {
    expect(trust(undefined)).toBe(false);
    expect(trust('')).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('1')).toBe(1);
    expect(trust('loopback')).toEqual(['loopback']);
    expect(trust('10.0.0.0/8, 192.168.1.7,fd00::/8, 10.1.0.0/255.255.0.0')).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      '10.1.0.0/255.255.0.0',
    ]);
  });

  it('gives Express only values it accepts', () => {
    for (const v of ['', '2', 'loopback,uniquelocal', '10.0.0.0/8,::1'])
      expect(() => express().set('trust proxy', trust(v))).not.toThrow();
  });

  it('refuses true (any client could name its own address), typos and bad ranges, naming the variable', () => {
    for (const v of ['true', 'lo', '0', '10.0.0.0/33', '1.2.3', '10.0.0.0/ffff::', 'loopback,'])
      expect(() => trust(v)).toThrow(/PORTAL_TRUST_PROXY/);
    expect(() => trust('true')).toThrow(/name its own address/);
  });
});
