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

  it('says unknown rather than guessing', () => {
    expect(classifyAs(1, 'Telstra Limited')).toBe('unknown');
    expect(classifyAs(1, undefined)).toBe('unknown');
  });
});
