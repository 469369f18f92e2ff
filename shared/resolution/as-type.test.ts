import { describe, expect, it } from 'vitest';
import { classifyAs } from './as-type.ts';

describe('classifyAs', () => {
  it('knows the listed cloud and mobile networks whatever their registered name says', () => {
    expect(classifyAs(16509, 'Amazon.com, Inc.')).toBe('hosting');
    expect(classifyAs(15169, 'Google LLC')).toBe('hosting');
    expect(classifyAs(21928, 'T-Mobile USA, Inc.')).toBe('mobile');
    expect(classifyAs(35228, 'Telefonica UK Limited')).toBe('mobile');
  });

  it('falls back to keywords in the AS name, in rule order', () => {
    expect(classifyAs(1, 'Serverius Holding B.V.')).toBe('hosting');
    expect(classifyAs(1, 'Kingdom Cloud Telecom')).toBe('hosting');
    expect(classifyAs(1, 'Two Degrees Mobile Limited')).toBe('mobile');
    expect(classifyAs(1, 'University of Melbourne')).toBe('education');
    expect(classifyAs(1, 'Hudson Valley Federal Credit Union')).toBe('business');
    expect(classifyAs(1, 'Lackawanna County Government')).toBe('government');
    expect(classifyAs(1, 'Comcast Cable Communications, LLC')).toBe('isp');
  });

  it('knows telecom operators by the names of the MCC-MNC list', () => {
    for (const name of [
      'Telstra Limited',
      'Orange S.A.',
      'Vodafone GmbH',
      'CHINA UNICOM China169 Backbone',
      'KDDI CORPORATION',
      'Free SAS',
      'Sky UK Limited',
    ])
      expect(classifyAs(2, name), name).toBe('isp');
    // Brands that are ordinary words or other businesses' names do not match on their own.
    for (const name of ['Google LLC', 'VIVA PIXEL AGENCIA DIGITAL', 'Phoenix', 'Apple Inc.'])
      expect(classifyAs(2, name), name).toBe('unknown');
  });

  it('says unknown rather than guessing', () => {
    expect(classifyAs(1, 'Andrews & Arnold Ltd')).toBe('unknown');
    expect(classifyAs(1, undefined)).toBe('unknown');
  });
});
