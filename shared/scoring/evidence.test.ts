import { describe, expect, it } from 'vitest';
import { gatherEvidence, hasTrunkZero } from './evidence.ts';

describe('trunk zero', () => {
  it('is a zero after the country code that the plan would strip', () => {
    expect(hasTrunkZero('+4407911123456')).toBe(true);
    expect(hasTrunkZero('+33012345678')).toBe(true);
    expect(hasTrunkZero('+447911123456')).toBe(false);
  });
  it('is not a zero that belongs to the number as written (Italy)', () => {
    expect(hasTrunkZero('+390612345678')).toBe(false);
  });
  it('resolves to no range', () => {
    expect(gatherEvidence({ phone_number: '+4407911123456' }, false).phone).toMatchObject({
      valid: false,
      trunkZero: true,
      allocated: false,
    });
  });
  it('consults the ledger only when asked', () => {
    expect(gatherEvidence({ ip_address: '1.1.1.1' }, false).reputation).toBeUndefined();
    expect(gatherEvidence({ ip_address: '1.1.1.1' }, true).reputation).toEqual({ reports: 0 });
  });
});
